/**
 * Request load for tests: client loops that keep asking a server until stopped, while the test
 * does something else to it (a backup, a restart, an outage). Every request ends in an outcome
 * that is counted: its HTTP status, or `reset` / `refused` when the connection was reset or
 * refused instead of answered. A connection error is never an unhandled rejection that kills
 * the test file (hiding the assertion that failed first); the test decides which outcomes it
 * expects and the tally says what happened.
 */
import type { HttpResponse } from './server.js';

/** A request that got no answer because its connection was reset, or refused at connect. */
export type ConnectionOutcome = 'reset' | 'refused';
export type Outcome = number | ConnectionOutcome;

/**
 * The connection outcome an error stands for, or null when it is something else (a bug of the
 * client or the test, rethrown). Node's http client says ECONNRESET for a reset and for a
 * socket closed before the answer ("socket hang up"), EPIPE for a write into a closed socket;
 * fetch (undici) wraps the cause and says UND_ERR_SOCKET ("other side closed").
 */
export function connectionOutcome(e: unknown): ConnectionOutcome | null {
  for (let err = e as { code?: unknown; cause?: unknown } | undefined, depth = 0; err && depth < 4; err = err.cause as typeof err, depth++) {
    if (err.code === 'ECONNREFUSED') return 'refused';
    if (err.code === 'ECONNRESET' || err.code === 'EPIPE' || err.code === 'UND_ERR_SOCKET') return 'reset';
  }
  return null;
}

/**
 * The answer, or the connection outcome that stood in for it (any other error is rethrown):
 * for tests that send their requests themselves and count or report what came back.
 */
export async function answerOrOutcome<T>(request: Promise<T>): Promise<T | ConnectionOutcome> {
  try {
    return await request;
  } catch (e) {
    const c = connectionOutcome(e);
    if (c === null) throw e;
    return c;
  }
}

/** Counts of outcomes, printable as `38×200, 2×reset`. */
export class Tally {
  private readonly counts = new Map<Outcome, number>();

  add(outcome: Outcome): void {
    this.counts.set(outcome, (this.counts.get(outcome) ?? 0) + 1);
  }

  get(outcome: Outcome): number {
    return this.counts.get(outcome) ?? 0;
  }

  get total(): number {
    let n = 0;
    for (const c of this.counts.values()) n += c;
    return n;
  }

  /** The outcomes seen that are not in `expected` (e.g. `[200, 429, 503]`). */
  unexpected(expected: readonly Outcome[]): Outcome[] {
    return [...this.counts.keys()].filter((o) => !expected.includes(o));
  }

  entries(): [Outcome, number][] {
    return [...this.counts];
  }

  toString(): string {
    return this.counts.size === 0 ? 'no requests' : [...this.counts].map(([o, n]) => `${n}×${o}`).join(', ');
  }
}

/**
 * `send(client, n)` for the n-th request of a client; it resolves with the answer (or only its
 * status). It may also record what it checks of the answer itself.
 */
export type Send = (client: number, n: number) => Promise<HttpResponse | number>;

export interface Load {
  readonly tally: Tally;
  /**
   * Ends the loops after their requests in flight and resolves with the tally; rejects with the
   * first error that was no connection outcome (the loops stopped at it). Idempotent: call it
   * again in a `finally` before stopping the server, so that no request is in flight when the
   * server goes (a test that failed half-way would otherwise reset them).
   */
  stop(): Promise<Tally>;
}

/**
 * After a refused or reset connection a loop waits this long before its next request: a server
 * that is gone refuses at once, and a loop that asked again at once would spin on the CPU the
 * rest of the test needs. Not a wait for anything to happen.
 */
const BACKOFF_MS = 20;

/** Starts `clients` loops sending requests one after another until stopped. */
export function startLoad(clients: number, send: Send): Load {
  const tally = new Tally();
  let running = true;
  let failure: { error: unknown } | null = null;
  const loops = Array.from({ length: clients }, async (_, client) => {
    for (let n = 0; running; n++) {
      const r = await answerOrOutcome(send(client, n));
      const outcome: Outcome = typeof r === 'object' ? r.status : r;
      tally.add(outcome);
      if (typeof outcome !== 'number') await new Promise((r) => setTimeout(r, BACKOFF_MS));
    }
  }).map((loop) =>
    // Caught at once: the first unexpected error stops every loop and is given to stop().
    loop.catch((e: unknown) => {
      failure ??= { error: e };
      running = false;
    }),
  );
  let stopped: Promise<Tally> | null = null;
  return {
    tally,
    stop() {
      running = false;
      stopped ??= Promise.all(loops).then(() => {
        if (failure) throw failure.error;
        return tally;
      });
      return stopped;
    },
  };
}
