/**
 * A stored file that does not hold what the catalog says it holds: a truncated or overwritten
 * Parquet file, a malformed value in a sealed column, a boundary part that fails its checks.
 * One type for all of them, so the server answers them the same way (a 503 'damaged' whose log line names
 * the file, never the client's fault) and `tickvault doctor` can say which file to restore.
 *
 * Raised by the readers below serve/ (storage/parquet, storage/boundary) and by the serve-side
 * decoding of sealed columns; mapped to an answer only in serve/http/errorAnswer.ts.
 */
import { wireErrorClass } from '../shared/workerErrors.js';
import { StoreError } from './store/storeError.js';

export class DamagedFileError extends Error {
  override name = 'DamagedFileError';

  /** `path`: the file, relative to the data directory where the caller knows it. */
  constructor(
    readonly path: string,
    detail: string,
    opts?: { readonly cause?: unknown },
  ) {
    super(`stored file ${path} is damaged: ${detail}`, opts?.cause === undefined ? undefined : { cause: opts.cause });
  }
}

wireErrorClass('DamagedFileError', {
  type: DamagedFileError,
  fields: (e) => ({ path: e.path }),
  rebuild: (message, f, cause) => {
    // The constructor composes the message from path and detail; the worker's is already whole.
    const e = new DamagedFileError(f.path as string, '', { cause });
    e.message = message;
    return e;
  },
});

/**
 * What a failure to read a catalogued file means: an error of the system itself (ENOENT, EIO,
 * EACCES: it has a syscall) or of the store holding it (StoreError) passes as it is; a DamagedFileError stays one; anything else (a
 * footer, page or block that does not parse) is damage of the file at `path`.
 */
export function asDamaged(path: string, e: unknown): Error {
  if (e instanceof DamagedFileError) return e;
  if (e instanceof Error && typeof (e as NodeJS.ErrnoException).syscall === 'string') return e;
  // The store of an offloaded file could not be reached: its bytes were never seen, so nothing is known of them.
  if (e instanceof StoreError) return e;
  return new DamagedFileError(path, e instanceof Error ? e.message : String(e), { cause: e });
}
