/**
 * The client's retry options, on the one retry policy (shared/retry/backoff.ts): whether an
 * answer is worth another try is the TickvaultError's to say (`retriable`: 429, a limit that
 * lifts, and 503, the account's one request in progress, but not a file damaged at the site);
 * how long to wait is the server's Retry-After (1 s, its usual value, when it sends none), plus
 * jitter, within `maxAttempts` tries and `maxWaitSec`.
 */
import { backoff, nextDelayMs, type Backoff } from '../shared/retry/backoff.js';
import { isRetriableAnswer } from './errors.js';

export { parseRetryAfter } from '../shared/retry/backoff.js';

export interface RetryPolicy {
  /** Tries in all, the first included. Default 4. */
  readonly maxAttempts: number;
  /**
   * The longest wait the client accepts (seconds). A Retry-After above it (e.g. the Parquet
   * quota's, to Beijing midnight) is not waited for: the error is thrown at once, carrying
   * `retryAfterSec`. Default 30.
   */
  readonly maxWaitSec: number;
  /**
   * Extra random wait, up to this fraction of the wait (at least up to 100 ms), so clients
   * told the same Retry-After do not all come back in the same millisecond. Default 0.2.
   */
  readonly jitter: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 4, maxWaitSec: 30, jitter: 0.2 };

/** The wait when a 429/503 carries no Retry-After: the server's usual value. */
const DEFAULT_WAIT_MS = 1000;

/** The client's options as the one policy: a constant wait, the server's when it names one. */
function backoffOf(policy: RetryPolicy): Backoff {
  return backoff({
    firstDelayMs: DEFAULT_WAIT_MS,
    multiplier: 1,
    jitter: policy.jitter,
    jitterFloorMs: 100,
    maxAttempts: policy.maxAttempts,
    maxWaitMs: policy.maxWaitSec * 1000,
  });
}

/**
 * Milliseconds to wait before the next try of an answer that is retriable, or null for "do
 * not retry". `attempt` counts the tries made so far (1 after the first); `random` is in [0, 1).
 */
export function waitMs(retryAfterSec: number | undefined, attempt: number, policy: RetryPolicy, random: number): number | null {
  return nextDelayMs(backoffOf(policy), { attempt, askedWaitMs: retryAfterSec === undefined ? undefined : retryAfterSec * 1000, random });
}

/**
 * The same decision from the status line alone (no TickvaultError at hand): null for an answer
 * that is not retriable, else `waitMs`.
 */
export function retryDelayMs(
  status: number,
  retryAfterSec: number | undefined,
  attempt: number,
  policy: RetryPolicy,
  random: number,
  /** The server's X-Tickvault-Reason, when it sent one. */
  reason?: string,
): number | null {
  return isRetriableAnswer(status, reason) ? waitMs(retryAfterSec, attempt, policy, random) : null;
}
