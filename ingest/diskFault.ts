/**
 * A full or read-only disk on a batch command's way (issue: faults): one line naming the
 * stage, the path and the cause, never a stack trace or SQLite's bare "database or disk is
 * full". Every writer keeps what it lists durable before listing it, so whatever the stage,
 * nothing half-written is listed and the same command, once there is room, finishes with the
 * files an uninterrupted run writes.
 */
import { IngestError, type IngestStage } from './errors.js';

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

const DOING: Readonly<Record<IngestStage, string>> = {
  open: 'opening the data directory at',
  staging: 'staging rows in',
  seal: 'sealing files into',
  spool: 'spooling fetched rows in',
  restate: 'writing a new version in',
  decode: 'decoding in',
  consumer: 'consuming into',
  produce: 'producing from',
  metrics: 'serving metrics from',
};

/** The disk cause of an error or of any error in its cause chain, with the path it names if any. */
export function diskCauseOf(e: unknown): { readonly cause: string; readonly path: string | null } | null {
  for (let x: unknown = e, depth = 0; x !== null && x !== undefined && depth < 8; x = (x as { cause?: unknown }).cause, depth++) {
    const code = (x as { code?: unknown }).code;
    if (typeof code === 'string' && code in CAUSES) {
      const path = (x as { path?: unknown }).path;
      return { cause: CAUSES[code]!, path: typeof path === 'string' ? path : null };
    }
  }
  return null;
}

/**
 * The words of a disk fault at `stage` ("<cause> while <doing> <path>") and the path they name
 * (the failing call's own, else `where`); null when `e` is no disk fault.
 */
export function diskFaultText(stage: IngestStage, where: string, e: unknown): { readonly cause: string; readonly text: string; readonly path: string } | null {
  const disk = diskCauseOf(e);
  if (disk === null) return null;
  const path = disk.path ?? where;
  return { cause: disk.cause, text: `${disk.cause} while ${DOING[stage]} ${path}`, path };
}

/** `e` as the stage's disk-fault IngestError when a full or read-only disk caused it; else `e` itself. */
export function asDiskFault(stage: IngestStage, where: string, e: unknown): unknown {
  const disk = diskFaultText(stage, where, e);
  if (disk === null) return e;
  return new IngestError(
    stage,
    `${disk.text}: free space (or make it writable) and run the same command again; nothing half-written is listed`,
    { cause: e, context: { path: disk.path } },
  );
}

/**
 * `work`, with a disk fault turned into an IngestError of `stage` whose message names the
 * cause and the path (the failing call's own, else `where`); any other error passes as it is.
 */
export async function atStage<T>(stage: IngestStage, where: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    throw asDiskFault(stage, where, e);
  }
}
