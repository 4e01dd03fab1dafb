/**
 * The one retry policy of tickvault: how long to wait before the next try, and when to stop
 * trying. Pure arithmetic over what it is given (the tries made, the time since the first
 * failure, the wait a server asked for, a random number), no timers or I/O, so each caller's
 * cadence is tested by hand-computed numbers and every caller waits the same way:
 *   - the HTTP client (client/retryPolicy.ts): 429/503 waited out by their Retry-After;
 *   - the running ingestor's full disk (ingest/kafka/diskRetry.ts): 100 ms doubling to 5 s;
 *   - SQLite set-up racing another process (shared/sqlite.ts): 1 ms doubling to 100 ms, for
 *     as long as the busy timeout;
 *   - the ingestor's last Kafka commits before it leaves the group (ingest/kafka/consumer.ts).
 * Whether to retry at all is the error's to say (`retriable`, shared/retry/baseError.ts); this
 * module answers only "how long, and how often".
 *
 * The model is kafkajs's src/retry: a first wait multiplied on each try up to a cap, jitter,
 * and a bound on the tries. Unlike kafkajs, jitter only adds (never shortens a wait a server
 * asked for), and a server's wait is honoured as given instead of the computed one.
 *
 * It lives in shared/ and imports nothing, so the published client (which may import nothing
 * of the server's tree but shared/retry/) carries it without carrying anything else.
 */

export interface Backoff {
  /** The wait after the first failed try (ms). */
  readonly firstDelayMs: number;
  /** Each wait is the one before times this (1: a constant wait). */
  readonly multiplier: number;
  /** No computed wait longer than this (ms): the cap of the exponential. */
  readonly maxDelayMs: number;
  /**
   * Extra random wait, up to this fraction of the wait (and at least up to `jitterFloorMs`),
   * so callers told the same wait do not all come back in the same millisecond. 0: none.
   */
  readonly jitter: number;
  readonly jitterFloorMs: number;
  /** Tries in all, the first included (Infinity: the count never gives up). */
  readonly maxAttempts: number;
  /** A wait longer than this (ms) is not waited for: give up at once (a quota until midnight). */
  readonly maxWaitMs: number;
  /** Give up once this long (ms) has passed since the first try (Infinity: never). */
  readonly giveUpAfterMs: number;
}

/** A backoff from its first wait; unnamed fields: doubling, uncapped, no jitter, never giving up. */
export function backoff(fields: Partial<Backoff> & Pick<Backoff, 'firstDelayMs'>): Backoff {
  return {
    multiplier: 2,
    maxDelayMs: Infinity,
    jitter: 0,
    jitterFloorMs: 0,
    maxAttempts: Infinity,
    maxWaitMs: Infinity,
    giveUpAfterMs: Infinity,
    ...fields,
  };
}

/** Where a retrying caller stands after a failed try. */
export interface FailedTry {
  /** Tries made so far, the failed one included (1 after the first). */
  readonly attempt: number;
  /** Time since the first try (ms); only `giveUpAfterMs` reads it. */
  readonly elapsedMs?: number;
  /** The wait the other side asked for (ms, e.g. from Retry-After), in place of the computed one. */
  readonly askedWaitMs?: number;
  /** In [0, 1), for jitter. */
  readonly random?: number;
}

/**
 * The exponent stops growing here: a multiplier of 2 reaches any sane cap long before, and the
 * power stays finite (never Infinity times 0, which is NaN) however many tries a fault lasts.
 */
const MAX_EXPONENT = 64;

/** Milliseconds to wait before the next try, or null: give up. */
export function nextDelayMs(b: Backoff, t: FailedTry): number | null {
  if (t.attempt >= b.maxAttempts) return null;
  if ((t.elapsedMs ?? 0) >= b.giveUpAfterMs) return null;
  const waitMs = t.askedWaitMs ?? Math.min(b.maxDelayMs, b.firstDelayMs * b.multiplier ** Math.min(t.attempt - 1, MAX_EXPONENT));
  if (waitMs > b.maxWaitMs) return null;
  return waitMs + Math.floor((t.random ?? 0) * Math.max(b.jitterFloorMs, waitMs * b.jitter));
}

/**
 * Retry-After as whole seconds: the delta-seconds form a server sends, or an HTTP date (counted
 * from `nowMs`); undefined when absent or unreadable.
 */
export function parseRetryAfter(header: string | null | undefined, nowMs: number): number | undefined {
  if (header === null || header === undefined || header.trim() === '') return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - nowMs) / 1000));
}
