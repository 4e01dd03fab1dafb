/**
 * When to retry, as a pure function of the answer: only 429 (a limit that lifts: per-second
 * limit, trial calls, Parquet quota) and 503 (the account's one level2 request in progress)
 * say "the same request later may succeed". 400/401/403/413/415 would fail the same way
 * again, and 500 is a fault whose cause a blind retry does not fix.
 */

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

/** Statuses worth another try after Retry-After. */
export const RETRIED_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/**
 * Retry-After as whole seconds: the delta-seconds form the server sends, or an HTTP date
 * (counted from `nowMs`); undefined when absent or unreadable.
 */
export function parseRetryAfter(header: string | null | undefined, nowMs: number): number | undefined {
  if (header === null || header === undefined || header.trim() === '') return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - nowMs) / 1000));
}

/**
 * Milliseconds to wait before the next try, or null for "do not retry". `attempt` counts
 * the tries made so far (1 after the first). A 429/503 without Retry-After waits 1 s, the
 * server's usual value; `random` is in [0, 1).
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
  if (!RETRIED_STATUSES.has(status)) return null;
  // A file damaged at the site stays so until an operator repairs it: not worth a client's wait.
  if (reason === 'damaged') return null;
  if (attempt >= policy.maxAttempts) return null;
  const waitSec = retryAfterSec ?? 1;
  if (waitSec > policy.maxWaitSec) return null;
  const baseMs = waitSec * 1000;
  return baseMs + Math.floor(random * Math.max(100, baseMs * policy.jitter));
}
