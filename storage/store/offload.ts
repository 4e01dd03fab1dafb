/**
 * `tickvault offload --before DAY` (issue 50): the local copies of days wholly in the store go,
 * so a disk holds only its recent days; the server then serves the others from the store.
 *
 * A day goes only when the store still holds every object the catalog recorded for it, as
 * recorded: each of its listed files is in stored_objects with the catalog's SHA-256, and a
 * HEAD of each (its files, its row text, its manifest) answers the recorded size and `sha256`
 * metadata. Every candidate day is checked before anything is removed, so a store that is
 * down or wrong fails the run with nothing deleted. Then, day by day, its offloaded_days row
 * is committed first and its files removed after: a crash in between leaves a day marked
 * offloaded with files still here, which the next run removes (a file already gone is fine).
 */
import { readdir, rm, rmdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Limiter } from '../../shared/limiter.js';
import { DATASETS } from '../../shared/schema.js';
import type { Db } from '../../shared/sqlite.js';
import { rowTextDatasetDir } from '../layout.js';
import { manifestKey } from './dayManifest.js';
import type { ObjectStore } from './objectStore.js';
import { daysInStore, daysWithFilesBefore, markOffloaded, offloadedDays, StoreCatalog, storedRowText } from './storeCatalog.js';

export interface OffloadOptions {
  readonly dataDir: string;
  /** catalog.db, writable (offloaded_days). */
  readonly catalog: Db;
  readonly store: ObjectStore;
  /** Days before this one (YYYYMMDD) are offloaded. */
  readonly before: string;
  readonly nowMs: () => number;
  /** HEADs at once (default 16: each is one small round trip). */
  readonly concurrency?: number;
}

export interface Offloaded {
  /** Days whose local files this run removed: those it offloaded, and earlier ones a crash left files of. */
  readonly days: readonly string[];
  /** Local files removed, and their bytes. */
  readonly files: number;
  readonly bytes: number;
  /** Days before the date with files here that were not offloaded, each with one line why. */
  readonly notOffloaded: readonly { readonly day: string; readonly reason: string }[];
}

export async function offload(o: OffloadOptions): Promise<Offloaded> {
  const catalog = new StoreCatalog(o.catalog);
  const already = offloadedDays(o.catalog);
  const stored = daysInStore(o.catalog);
  const limiter = new Limiter(o.concurrency ?? 16);
  const notOffloaded: { day: string; reason: string }[] = [];

  // 1. Every candidate checked against the store before anything is removed.
  const verified: string[] = [];
  for (const day of daysWithFilesBefore(o.catalog, o.before)) {
    if (already.has(day)) continue;
    if (!stored.has(day)) {
      notOffloaded.push({ day, reason: 'not wholly in the store yet; run tickvault upload' });
      continue;
    }
    const fault = await storeFault(o, catalog, limiter, day);
    if (fault === null) verified.push(day);
    else notOffloaded.push({ day, reason: fault });
  }

  // 2. Marked, then removed; days a crash left marked with files here are finished too.
  const days: string[] = [];
  let files = 0;
  let bytes = 0;
  const removeDay = async (day: string) => {
    const freed = await removeLocalDay(o.dataDir, catalog, day);
    if (freed.files > 0) days.push(day);
    files += freed.files;
    bytes += freed.bytes;
  };
  for (const day of [...already].sort()) await removeDay(day);
  for (const day of verified) {
    if (!markOffloaded(o.catalog, day, o.nowMs())) {
      notOffloaded.push({ day, reason: 'listed again since its check (a restatement or its bars?); run tickvault upload, then offload again' });
      continue;
    }
    await removeDay(day);
    if (!days.includes(day)) days.push(day);
  }
  return { days: days.sort(), files, bytes, notOffloaded: notOffloaded.sort((a, b) => (a.day < b.day ? -1 : 1)) };
}

/**
 * Why the store cannot stand for the day's local files, or null when it can. A store that
 * cannot be asked throws (StoreError): the run ends before anything is removed.
 */
async function storeFault(o: OffloadOptions, catalog: StoreCatalog, limiter: Limiter, day: string): Promise<string | null> {
  const expected: { key: string; bytes: number; sha256: string }[] = [];
  for (const obj of catalog.dayObjects(day)) {
    const rec = catalog.stored(obj.key);
    if (rec === null) return `${obj.key} is not recorded as stored; run tickvault upload`;
    if (obj.sha256 !== null && rec.sha256 !== obj.sha256) return `${obj.key} was stored with other bytes than the catalog lists; run tickvault upload`;
    expected.push(rec);
  }
  expected.push(...storedRowText(o.catalog, day));
  const manifest = catalog.stored(manifestKey(day));
  if (manifest === null) return `its manifest ${manifestKey(day)} is not recorded as stored; run tickvault upload`;
  expected.push(manifest);
  const faults = await Promise.all(
    expected.map((rec) =>
      limiter.run(async () => {
        const there = await o.store.head(rec.key);
        if (there === null) return `${rec.key} is not in the store`;
        if (there.bytes !== rec.bytes) return `${rec.key} is ${there.bytes} bytes in the store, recorded ${rec.bytes}`;
        if (there.sha256 !== rec.sha256) return `${rec.key} has SHA-256 ${there.sha256 ?? '(none)'} in the store, recorded ${rec.sha256}`;
        return null;
      }),
    ),
  );
  const first = faults.find((f) => f !== null);
  return first === undefined ? null : `${first}; run tickvault upload`;
}

/**
 * Removes a day's listed files here (files, versions, boundary parts, bars), its row text, and
 * the `date=DAY` folders they leave empty; a file already gone is skipped. Anything else in a
 * folder (a file no catalog lists) stays, and so does its folder: doctor names it.
 */
async function removeLocalDay(dataDir: string, catalog: StoreCatalog, day: string): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  const dirs = new Set<string>();
  const removeFile = async (rel: string) => {
    const path = join(dataDir, rel);
    const st = await stat(path).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return null;
      throw e;
    });
    if (st === null) return;
    await unlink(path).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOENT') throw e;
    });
    files++;
    bytes += st.size;
  };
  for (const obj of catalog.dayObjects(day)) {
    await removeFile(obj.key);
    dirs.add(obj.key.slice(0, obj.key.lastIndexOf('/')));
  }
  // Row text is derived: the whole folder of the day goes, whatever the store has of it.
  for (const dataset of DATASETS) {
    const rel = `${rowTextDatasetDir(dataset)}/date=${day}`;
    const names = await readdir(join(dataDir, rel), { withFileTypes: true }).catch(() => []);
    for (const e of names) if (e.isFile()) await removeFile(`${rel}/${e.name}`);
    await rm(join(dataDir, rel), { recursive: true, force: true });
    for (const top of [dataset, `_boundary/${dataset}`]) dirs.add(`${top}/date=${day}`);
  }
  for (const kind of ['minute', 'daily']) dirs.add(`bars/${kind}/date=${day}`);
  for (const rel of dirs) {
    await rmdir(join(dataDir, rel)).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOENT' && e.code !== 'ENOTEMPTY') throw e;
    });
  }
  return { files, bytes };
}
