/**
 * Why `serve` could not open the databases of its data directory, when a disk is the reason
 * (issue: faults): one line naming the cause and the directory instead of SQLite's bare
 * "database or disk is full" or "unable to open database file". SQLite needs to write even to
 * read a database in WAL mode (its index, `-shm`, beside the file), so a full or read-only
 * data directory stops the server at start; on a read-only one SQLite says only that it cannot
 * open the file, so access(2) names the cause.
 */
import { accessSync, constants } from 'node:fs';
import { diskCauseOf } from '../ingest/diskFault.js';

/** `e` as one clear error when a full or read-only disk made the open fail; else `e` itself. */
export function dataDirOpenFailure(dataDir: string, e: unknown): unknown {
  let cause = diskCauseOf(e)?.cause ?? null;
  if (cause === null && (e as { code?: unknown } | null)?.code === 'SQLITE_CANTOPEN') {
    try {
      accessSync(dataDir, constants.W_OK);
    } catch (refusal) {
      cause = diskCauseOf(refusal)?.cause ?? null;
    }
  }
  if (cause === null) return e;
  return new Error(
    `${cause} while opening the data directory at ${dataDir}: SQLite writes an index beside each database even to read it, and the server writes service.db on every request; free space (or make it writable) and start the server again`,
    { cause: e },
  );
}
