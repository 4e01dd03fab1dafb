/**
 * Failures as typed values, so callers branch on `code` (the HTTP status, which always equals
 * the envelope's `code`) and never on message text.
 */

/** An error answer of the server: 400, 401, 403, 413, 415, 429, 500 or 503. */
export class TickvaultError extends Error {
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
    super(message);
  }
}

/**
 * A Parquet download that did not deliver the file: a media type other than
 * `application/vnd.apache.parquet`, or a body that broke off or did not match its
 * Content-Length. Never retried: the attempt already cost a quota unit.
 */
export class TickvaultDownloadError extends Error {
  override readonly name = 'TickvaultDownloadError';
  constructor(
    readonly reason: 'media-type' | 'interrupted',
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Paging that would loop: the server handed back a cursor (or offset) already used. */
export class TickvaultPagingError extends Error {
  override readonly name = 'TickvaultPagingError';
}
