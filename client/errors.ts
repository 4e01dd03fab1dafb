/**
 * Failures as typed values, so callers branch on `code` (the HTTP status, which always equals
 * the envelope's `code`) and `retriable`, never on message text. Every one extends the one
 * hierarchy's base (shared/retry/baseError.ts), so a caller asks `retriable` of any of them.
 */
import { TickvaultBaseError } from '../shared/retry/baseError.js';

export { isRetriable, TickvaultBaseError } from '../shared/retry/baseError.js';

/**
 * Whether an error answer says "the same request later may succeed": only 429 (a limit that
 * lifts: per-second limit, trial calls, Parquet quota) and 503 (the account's one request in
 * progress, the state briefly unreachable). 400/401/403/413/415 would fail the same way again,
 * 500 is a fault whose cause a blind retry does not fix, and a file damaged at the site (503
 * `damaged`) stays so until an operator repairs it. The one place statuses are matched.
 */
export function isRetriableAnswer(code: number, reason: string | undefined): boolean {
  return (code === 429 || code === 503) && reason !== 'damaged';
}

/** An error answer of the server: 400, 401, 403, 413, 415, 429, 500 or 503. */
export class TickvaultError extends TickvaultBaseError {
  override readonly name = 'TickvaultError';
  constructor(
    /** The envelope's `code` (equal to the HTTP status). */
    readonly code: number,
    /** The server's one-sentence message. */
    message: string,
    /** From `Retry-After` (429, 503), when given. */
    readonly retryAfterSec?: number,
    /**
     * From `X-Tickvault-Reason`: the rule that answered (`slot`, `quota`, `damaged`, …), when the
     * server is tickvault; a vendor's server sends none.
     */
    readonly reason?: string,
  ) {
    super(message, { retriable: isRetriableAnswer(code, reason) });
  }
}

/**
 * A Parquet download that did not deliver the file: a media type other than
 * `application/vnd.apache.parquet`, or a body that broke off or did not match its
 * Content-Length. Never retried: the attempt already cost a quota unit.
 */
export class TickvaultDownloadError extends TickvaultBaseError {
  override readonly name = 'TickvaultDownloadError';
  constructor(
    readonly reason: 'media-type' | 'interrupted',
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, { retriable: false, cause: options?.cause });
  }
}

/** Paging that would loop: the server handed back a cursor (or offset) already used. Retrying loops again. */
export class TickvaultPagingError extends TickvaultBaseError {
  override readonly name = 'TickvaultPagingError';
  constructor(message: string) {
    super(message, { retriable: false });
  }
}
