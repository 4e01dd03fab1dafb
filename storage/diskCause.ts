/**
 * Whether an error is a disk that takes no more bytes (full, over quota, read-only), in the
 * words a user reads. Below serve/ and ingest/, which both map such errors to their answers:
 * the server's state store to a 503 and /healthz (serve/access/stateDiskWatch.ts), batch
 * commands and the ingestor to one line naming the stage and the path (ingest/diskFault.ts).
 */

/** System and SQLite codes of a disk that takes no more bytes, as the words a user reads. */
const CAUSES: Readonly<Record<string, string>> = {
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'read-only file system',
  SQLITE_FULL: 'no space left on device',
  SQLITE_READONLY: 'read-only file system',
  SQLITE_READONLY_DBMOVED: 'read-only file system',
  // WAL's shared-memory file cannot grow on a full disk: SQLite reports an I/O error.
  SQLITE_IOERR_SHMSIZE: 'no space left on device',
  SQLITE_IOERR_WRITE: 'a write failed (a full or failing disk)',
};

/** Whether `code` (an errno or SQLite code) means the disk takes no more bytes. */
export function isDiskCode(code: unknown): code is string {
  return typeof code === 'string' && Object.hasOwn(CAUSES, code);
}

export interface DiskCause {
  readonly cause: string;
  /** The path the failing call named, if it named one. */
  readonly path: string | null;
}

/**
 * The disk cause of an error or of any error in its cause chain, with the path it names if
 * any. An error already mapped by a stage (its `context` carries `diskCause` and `path`, as
 * ingest/diskFault.ts makes them, also after crossing a worker thread) gives its own: the path
 * the failing call named, not the stage's folder.
 */
export function diskCauseOf(e: unknown): DiskCause | null {
  for (let x: unknown = e, depth = 0; x !== null && x !== undefined && depth < 8; x = (x as { cause?: unknown }).cause, depth++) {
    const context = (x as { context?: { diskCause?: unknown; path?: unknown } }).context;
    if (typeof context?.diskCause === 'string') return { cause: context.diskCause, path: typeof context.path === 'string' ? context.path : null };
    const code = (x as { code?: unknown }).code;
    if (isDiskCode(code)) {
      const path = (x as { path?: unknown }).path;
      return { cause: CAUSES[code]!, path: typeof path === 'string' ? path : null };
    }
  }
  return null;
}
