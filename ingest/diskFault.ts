/**
 * A full or read-only disk on a batch command's way (issue: faults): one line naming the
 * stage, the path and the cause, never a stack trace or SQLite's bare "database or disk is
 * full". Every writer keeps what it lists durable before listing it, so whatever the stage,
 * nothing half-written is listed and the same command, once there is room, finishes with the
 * files an uninterrupted run writes. Which errors are disk faults is storage/diskCause.ts's
 * to say (the server's state store asks it too).
 */
import { accessSync, constants } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { diskCauseOf, isDiskCode } from '../storage/diskCause.js';
import { IngestError, type IngestStage } from './errors.js';

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

/**
 * `e` as the stage's disk-fault IngestError when a full or read-only disk caused it; else `e`
 * itself. A fault already made by an inner stage passes unchanged: an import seals days while
 * it stages, and a seal that met the full disk must not read "while staging rows".
 */
/** What a batch command's disk fault tells the user to do. */
export const RUN_AGAIN = 'free space (or make it writable) and run the same command again; nothing half-written is listed';

export function asDiskFault(stage: IngestStage, where: string, e: unknown, advice: string = RUN_AGAIN): unknown {
  if (isStageDiskFault(e)) return e;
  const disk = diskFaultText(stage, where, e);
  if (disk === null) return e;
  return new IngestError(
    stage,
    `${disk.text}: ${advice}`,
    // The cause in the context marks it as made here; it crosses a worker thread (context is kept).
    { cause: e, context: { path: disk.path, diskCause: disk.cause } },
  );
}

/**
 * `e`, met opening (or creating) the data directory, as the open stage's disk fault. A
 * read-only disk does not always say so: SQLite reports only that it cannot open a database
 * (it must create the WAL beside it) and a recursive mkdir that the directory is missing, so
 * access(2) on the nearest directory there is tells the cause. Every command that opens a data
 * directory maps its failure here (batch commands, `serve`, `doctor`), each with its `advice`.
 */
export function asOpenFault(dataDir: string, e: unknown, advice: string = RUN_AGAIN): unknown {
  const mapped = asDiskFault('open', dataDir, e, advice);
  const code = (e as { code?: unknown } | null)?.code;
  if (mapped !== e || (code !== 'SQLITE_CANTOPEN' && code !== 'ENOENT')) return mapped;
  for (let dir = resolve(dataDir); ; dir = dirname(dir)) {
    try {
      accessSync(dir, constants.W_OK);
      return e;
    } catch (refusal) {
      const refused = (refusal as { code?: unknown }).code;
      if (refused === 'ENOENT' && dirname(dir) !== dir) continue;
      if (!isDiskCode(refused)) return e;
      // Without a path of its own: the line names the data directory, not its nearest ancestor.
      return asDiskFault('open', dataDir, Object.assign(new Error(`${(e as Error).message} (${dir}: ${refused})`, { cause: e }), { code: refused }), advice);
    }
  }
}

/** Whether `e` is a disk fault asDiskFault made (at whatever stage). */
export function isStageDiskFault(e: unknown): e is IngestError {
  return e instanceof IngestError && typeof e.context.diskCause === 'string';
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
