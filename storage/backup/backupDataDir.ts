/**
 * A live data directory copied into a new one that is a data directory itself (restoring is
 * pointing `--data-dir` at it), while ingest and serve keep running. The order is what makes
 * the copy consistent without stopping anything:
 *
 *   1. service.db (accounts, keys, counters) by SQLite's backup API, and the small files:
 *      cursor.key (cursors stay valid), calendar-closures.txt, demo.key. The copy keeps no
 *      in-flight slot: each belongs to a request of a source process, which will never release
 *      it in the copy, so it would refuse its account there until its lease ran out.
 *   2. ingest.db (staging, quarantine, Kafka offsets) by the backup API, then the staging
 *      segments that snapshot lists, each up to its committed length (bytes past it are not
 *      staged yet). A segment gone by then belongs to a day sealed since — checked in 3.
 *   3. catalog.db by the backup API — after ingest.db, so a day sealed in between is in this
 *      catalog (a seal lists its files before it drops the day's staging): the copy then holds
 *      what a crash between those two steps leaves, which the next seal completes.
 *   4. every file that catalog lists, SHA-256 checked against it as it is copied. They are
 *      immutable once listed, so a copy made after the snapshot holds the listed bytes; a
 *      file that does not match is left out and reported (the source is damaged).
 *      Files of days offloaded to the store (storage/store/offload.ts) are not here to copy:
 *      they live in the bucket, and the copy's catalog lists them as offloaded too.
 *   5. derived files no database lists, in the `_`-named trees beside the datasets (the row
 *      text of sealed files): copied as they are, for the copy to serve as fast as the source;
 *      each is rebuilt from its sealed file when missing or bad, so no digest is needed.
 *
 * Not copied: mirror-spool/ (a mirror's resumable fetches: a mirror run fetches them again),
 * leftover `*.tmp-PID` files, and anything no database lists.
 */
import { chmod, copyFile, mkdir, readdir, stat } from 'node:fs/promises';
import { constants } from 'node:fs';
import Database from 'better-sqlite3';
import { dirname, join, relative } from 'node:path';
import { fsyncDir } from '../../shared/durableFile.js';
import { dayOfPath, layoutFor } from '../layout.js';
import { CLOSURES_FILE } from '../../calendar/closureStore.js';
import { catalogFiles, offloadedDaysOf, sealedDays, stagedSegments } from './listedFiles.js';
import { snapshotSqlite } from './sqliteSnapshot.js';
import { copyVerified, DigestMismatchError } from './verifiedCopy.js';

/** Small files of the data directory copied as they are, when present (demo.key: the demo command's key). */
const SMALL_FILES = ['cursor.key', CLOSURES_FILE, 'demo.key'] as const;

export interface BackupSummary {
  /** The SQLite files copied by the backup API. */
  readonly databases: readonly string[];
  readonly listedFiles: number;
  readonly listedBytes: number;
  readonly segments: number;
  readonly segmentBytes: number;
  /** Segments gone since ingest.db's snapshot, their days sealed in the copied catalog. */
  readonly segmentsSealedMeanwhile: number;
  /** Listed files of days offloaded to the store, and those days: not copied (they live in the bucket). */
  readonly offloadedFiles: number;
  readonly offloadedDays: number;
  /** Derived files copied as they are (step 5). */
  readonly derivedFiles: number;
  /** Listed files whose bytes did not match the catalog: left out of the copy. */
  readonly damaged: readonly DigestMismatchError[];
  readonly ms: number;
}

/** The backup cannot be trusted or made (the destination is in use, a listed file vanished). */
export class BackupError extends Error {
  override name = 'BackupError';
}

export interface BackupProgress {
  (done: number, total: number): void;
}

export async function backupDataDir(
  source: string,
  dest: string,
  onFile: BackupProgress = () => undefined,
  /** 'state': the databases, small files and staging only (steps 1-3): the lake goes to a store (storage/store/storeBackup.ts). */
  scope: 'all' | 'state' = 'all',
): Promise<BackupSummary> {
  const t0 = performance.now();
  const from = layoutFor(source);
  const to = layoutFor(dest);
  await requireEmpty(dest);
  const dirs = new Set<string>([dest]);
  const databases: string[] = [];
  const snapshot = async (src: string, dst: string) => {
    if (!(await exists(src))) return false;
    await snapshotSqlite(src, dst);
    databases.push(dst);
    return true;
  };

  // 1. The shared state and the small files.
  if (await snapshot(from.serviceDb, to.serviceDb)) forgetSlots(to.serviceDb);
  for (const name of SMALL_FILES) {
    const src = join(source, name);
    const st = await stat(src).catch(() => null);
    if (!st?.isFile()) continue;
    await copyFile(src, join(dest, name), constants.COPYFILE_EXCL);
    await chmod(join(dest, name), st.mode & 0o777);
  }

  // 2. Staging: ingest.db, then the segments it lists, up to their committed lengths.
  const gone: { path: string; day: string }[] = [];
  let segments = 0;
  let segmentBytes = 0;
  if (await snapshot(from.ingestDb, to.ingestDb)) {
    for (const seg of stagedSegments(to.ingestDb)) {
      const out = join(dest, seg.path);
      await mkdirFor(out, dirs);
      try {
        segmentBytes += (await copyVerified(join(source, seg.path), out, { limit: seg.committedBytes, label: seg.path })).bytes;
        segments++;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        gone.push({ path: seg.path, day: `${seg.dataset}|${seg.tradedate}` });
      }
    }
  }

  // 3. The catalog, after staging (see above).
  const damaged: DigestMismatchError[] = [];
  const listed = new Set<string>();
  let listedFiles = 0;
  let listedBytes = 0;
  let offloadedFiles = 0;
  let offloadedDays = 0;
  if (await snapshot(from.catalogDb, to.catalogDb)) {
    const sealed = sealedDays(to.catalogDb);
    const lost = gone.filter((g) => !sealed.has(g.day));
    if (lost.length > 0) {
      throw new BackupError(
        `staging segment ${lost[0]!.path} vanished while its day was not sealed (${lost.length} such); nothing should remove it: run doctor`,
      );
    }
    // 4. The files the catalog lists.
    const files = scope === 'all' ? catalogFiles(to.catalogDb) : [];
    const offloaded = offloadedDaysOf(to.catalogDb);
    offloadedDays = offloaded.size;
    for (const f of files) listed.add(f.path);
    for (const [i, f] of files.entries()) {
      if (offloaded.has(dayOfPath(f.path) ?? '')) {
        offloadedFiles++;
        onFile(i + 1, files.length);
        continue;
      }
      const out = join(dest, f.path);
      await mkdirFor(out, dirs);
      try {
        listedBytes += (await copyVerified(join(source, f.path), out, { sha256: f.sha256, label: f.path })).bytes;
        listedFiles++;
      } catch (e) {
        if (e instanceof DigestMismatchError) damaged.push(e);
        else if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
          throw new BackupError(
            `${f.path}, listed in the catalog, was removed while the backup ran (prune-versions?); run the backup again into an empty directory`,
          );
        } else throw e;
      }
      onFile(i + 1, files.length);
    }
  }

  // 5. Derived files beside the datasets that no database lists.
  let derivedFiles = 0;
  for (const rel of scope === 'all' ? await derivedTrees(source) : []) {
    if (listed.has(rel) || TEMP_FILE.test(rel)) continue;
    const out = join(dest, rel);
    await mkdirFor(out, dirs);
    try {
      await copyVerified(join(source, rel), out, { label: rel });
      derivedFiles++;
    } catch (e) {
      // Replaced since the walk (a restatement rebuilt it): the copy rebuilds it when needed.
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }

  // Renames inside every directory made durable, deepest first.
  for (const dir of [...dirs].sort((a, b) => b.length - a.length)) await fsyncDir(dir);
  return {
    databases,
    listedFiles,
    listedBytes,
    segments,
    segmentBytes,
    segmentsSealedMeanwhile: gone.length,
    offloadedFiles,
    offloadedDays,
    derivedFiles,
    damaged,
    ms: performance.now() - t0,
  };
}

/** Empties the slots table (serve/access/serviceDb.ts) of a service.db copy; see step 1. */
function forgetSlots(serviceDbCopy: string): void {
  const db = new Database(serviceDbCopy, { fileMustExist: true });
  try {
    const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'slots'").get();
    if (has) db.prepare('DELETE FROM slots').run();
  } finally {
    db.close();
  }
}

/** A writer's temporary name (storage/durableFile.ts): never a file of the lake. */
const TEMP_FILE = /\.tmp-\d+$/;

/**
 * Files under the data directory's top-level `_`-named directories (storage/layout.ts keeps
 * derived files there, apart from the datasets' folders), relative to it.
 */
async function derivedTrees(dataDir: string): Promise<string[]> {
  const top = await readdir(dataDir, { withFileTypes: true });
  const out: string[] = [];
  for (const d of top) {
    if (!d.isDirectory() || !d.name.startsWith('_')) continue;
    const entries = await readdir(join(dataDir, d.name), { withFileTypes: true, recursive: true });
    for (const e of entries) if (e.isFile()) out.push(relative(dataDir, join(e.parentPath, e.name)));
  }
  return out.sort();
}

/** A backup goes into a new or empty directory: never over another data directory. */
async function requireEmpty(dest: string): Promise<void> {
  const entries = await readdir(dest).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return [];
    throw e;
  });
  if (entries.length > 0) throw new BackupError(`${dest} is not empty: back up into a new or empty directory`);
  await mkdir(dest, { recursive: true });
}

async function mkdirFor(file: string, dirs: Set<string>): Promise<void> {
  const dir = dirname(file);
  if (dirs.has(dir)) return;
  await mkdir(dir, { recursive: true });
  for (let d = dir; !dirs.has(d) && d !== dirname(d); d = dirname(d)) dirs.add(d);
}

async function exists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null)) !== null;
}
