/**
 * The mirror's side of the upstream's rules (api-contract: Import and mirror): every request,
 * retries included, waits for its turn under `--rate` requests a second, and at most one
 * request per interface is in flight (the upstream holds one slot per account and level-2
 * interface; tick_history gets the same courtesy). 429 and 503 are waited out by their
 * Retry-After inside the client (tickvault/client's transport); a Retry-After longer than
 * MAX_WAIT_SEC (a quota spent until Beijing midnight) comes back as the error instead. Every
 * answer's status is counted, for the summary, and every answer the client waits out (its
 * error would say `retriable`) as a wait.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { TickvaultClient } from '../../client/index.js';
import { isRetriableAnswer } from '../../client/errors.js';
import { Limiter } from '../../shared/limiter.js';
import { TickvaultBaseError } from '../../shared/retry/baseError.js';
import { parseRetryAfter } from '../../shared/retry/backoff.js';

/** Waits longer than this are not waited for: the upstream means hours (a daily quota). */
export const MAX_WAIT_SEC = 120;
/**
 * Tries of one request under 429/503: waiting is what the upstream asks for, so the bound
 * is only against an upstream that never lets go.
 */
const MAX_ATTEMPTS = 200;

export type UpstreamInterface = 'level2_quote_history' | 'level2_trade_history' | 'level2_order_history' | 'tick_history';

/** What the upstream answered, for the summary and the progress bar. */
export interface UpstreamCounts {
  requests: number;
  /** 429 and 503 answers, each followed by a wait. */
  waits: number;
  /** The seconds those answers' Retry-After asked for. */
  waitedSec: number;
  readonly byStatus: Map<number, number>;
}

/**
 * Spaces requests at least 1000/rate ms apart: any one-second window then holds at most
 * `rate` of them, whatever the upstream's window alignment.
 */
export class Pacer {
  private nextAtMs = 0;
  constructor(
    private readonly rate: number,
    private readonly nowMs: () => number = Date.now,
  ) {}

  async take(): Promise<void> {
    const now = this.nowMs();
    const at = Math.max(now, this.nextAtMs);
    this.nextAtMs = at + 1000 / this.rate;
    if (at > now) await sleep(at - now);
  }
}

/** `/api` appended to a base address, unless it already ends so (api-contract: Import and mirror). */
export function apiBaseOf(url: string): string {
  const trimmed = url.replace(/\/+$/, '');
  return trimmed.endsWith('/api') ? trimmed.slice(0, -'/api'.length) : trimmed;
}

/**
 * The upstream could not be reached or broke the connection; a rerun continues where this
 * stopped. Not retriable, as the client retries no network error: whether the request reached
 * the upstream is unknown, and if it did, a quota unit or a trial call may be spent on it.
 */
export class UpstreamUnreachableError extends TickvaultBaseError {
  override name = 'UpstreamUnreachableError';
  constructor(message: string, options: { cause: unknown }) {
    super(message, { retriable: false, cause: options.cause });
  }
}

/** fetch's "fetch failed" hides the reason in its cause: ECONNREFUSED, ENOTFOUND, a reset. */
function causeOf(e: unknown): string {
  const cause = (e as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return (e as Error).message;
}

export class Upstream {
  readonly client: TickvaultClient;
  readonly counts: UpstreamCounts = { requests: 0, waits: 0, waitedSec: 0, byStatus: new Map() };
  private readonly pacer: Pacer;
  private readonly lanes = new Map<UpstreamInterface, Limiter>();

  constructor(url: string, apikey: string, rate: number) {
    this.pacer = new Pacer(rate);
    const counted: typeof fetch = async (input, init) => {
      await this.pacer.take();
      this.counts.requests++;
      let res: Response;
      try {
        res = await fetch(input, init);
      } catch (e) {
        throw new UpstreamUnreachableError(`${apiBaseOf(url)}/api did not answer: ${causeOf(e)}`, { cause: e });
      }
      this.counts.byStatus.set(res.status, (this.counts.byStatus.get(res.status) ?? 0) + 1);
      if (isRetriableAnswer(res.status, res.headers.get('x-tickvault-reason') ?? undefined)) {
        this.counts.waits++;
        this.counts.waitedSec += parseRetryAfter(res.headers.get('retry-after'), Date.now()) ?? 1;
      }
      return res;
    };
    this.client = new TickvaultClient({
      baseUrl: apiBaseOf(url),
      apikey,
      fetch: counted,
      retry: { maxAttempts: MAX_ATTEMPTS, maxWaitSec: MAX_WAIT_SEC, jitter: 0.1 },
    });
  }

  /** Runs `call` once no other request of `iface` is in flight. */
  on<T>(iface: UpstreamInterface, call: (client: TickvaultClient) => Promise<T>): Promise<T> {
    let lane = this.lanes.get(iface);
    if (lane === undefined) this.lanes.set(iface, (lane = new Limiter(1)));
    return lane.run(() => call(this.client));
  }
}
