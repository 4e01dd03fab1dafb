/**
 * The one error hierarchy of tickvault, kafkajs-style (its src/errors.js: one base class whose
 * `retriable` says whether the same work, tried again unchanged, may succeed). Every error a
 * caller may want to retry extends TickvaultBaseError and says so itself, so a retrying caller
 * asks the error (`isRetriable`) instead of matching statuses or codes of its own:
 *   - the client's TickvaultError (429/503 but a damaged file: yes; any other answer: no),
 *     TickvaultDownloadError and TickvaultPagingError (no);
 *   - the ingest side's IngestError (as its thrower decides);
 *   - the server's StateUnavailableError and StateDiskError (yes: the client comes back later);
 *   - errors thrown by others (better-sqlite3's SQLITE_BUSY, Node's ENOSPC) carry no such field
 *     and are classified once, where they are caught (shared/sqlite.ts, ingest/diskFault.ts).
 * How long to wait, and when to stop, is the policy's (shared/retry/backoff.ts).
 *
 * In shared/retry/ beside the policy, importing nothing: the published client extends it.
 */

export interface BaseErrorOptions {
  /** Whether the same work, tried again unchanged, may succeed. */
  readonly retriable: boolean;
  readonly cause?: unknown;
}

export class TickvaultBaseError extends Error {
  override name = 'TickvaultBaseError';
  readonly retriable: boolean;

  constructor(message: string, opts: BaseErrorOptions) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.retriable = opts.retriable;
  }
}

/**
 * Whether `e` says it is worth another try. Its `retriable` field is read whatever its class,
 * so kafkajs's own errors (KafkaJSError has one) answer alike; an error
 * that says nothing is not retried (unlike kafkajs, which retries it): a blind retry of a fault
 * nobody classified may repeat a side effect (a quota unit, a trial call) or hide a bug.
 */
export function isRetriable(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { retriable?: unknown }).retriable === true;
}
