/**
 * Keeps row text where it buys speed (rowTextWindow.ts): makes what the window's listed files
 * lack and removes the row text of days that left the window. It runs after a seal has listed
 * its days, never before: the seal makes no row text (issue 52: it cost 1.8× encoding the
 * files, on the path between a day's rows and its listing), and a day is served from its
 * Parquet files meanwhile (the column path gives the same bytes). So a crash between a
 * listing and its row text loses nothing; the next run (an ingestor's start, the next
 * replay, import or demo, `doctor --rebuild`) makes what is missing.
 *
 * Files are made one at a time on the calling thread (its DEFLATE in libuv's threads), or by
 * a pool of workers (rowTextPool.ts): a command that has sealed uses every core, a background
 * pass beside an ingestor or a server one worker, leaving them the other cores. Each file is
 * made from its Parquet bytes, only when their SHA-256 is the catalog's (never from a damaged file).
 * A disk that takes no more bytes stops the run (row text is derived: nothing is lost); any
 * other failure skips its file and is reported.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { DATASETS, type Dataset } from '../../shared/schema.js';
import { Limiter } from '../../shared/limiter.js';
import type { CatalogFile, CatalogReader } from '../catalog.js';
import { diskCauseOf } from '../diskCause.js';
import { rowTextDatasetDir, rowTextRelPath } from '../layout.js';
import { offloadedDays } from '../store/storeCatalog.js';
import { hasRowText, rowTextOf, writeRowText } from './rowTextBuild.js';
import { rowTextWindow } from './rowTextWindow.js';

export interface RowTextKeeping {
  readonly dataDir: string;
  readonly catalog: CatalogReader;
  /** The window, in trading days (--row-text-days). */
  readonly days: number;
  /** Asked between files: true ends the run there (a stopping ingestor). */
  readonly stop?: () => boolean;
  /** With the number of the window's files, before the first: for a progress bar. */
  readonly onFiles?: (files: number) => void;
  /** After each file of the window is looked at (made or not). */
  readonly onFile?: () => void;
  /** Makes one file's row text (default makeRowText, in this thread). */
  readonly maker?: RowTextMaker;
  /** Files made at once (a worker pool's size); default 1. */
  readonly concurrency?: number;
}

export interface RowTextKept {
  /** The window's days, ascending. */
  readonly window: readonly string[];
  /** Files of the window that lacked row text (all of them when the run was not stopped). */
  readonly missing: number;
  readonly made: number;
  readonly madeBytes: number;
  /** Dataset-days whose row text was removed: they left the window. */
  readonly removedDays: number;
  /** Files skipped, with why (unreadable, not the catalog's bytes). */
  readonly skipped: readonly { readonly path: string; readonly reason: string }[];
  /** Why the run stopped early: a full or read-only disk, or `stop()`; null when it finished. */
  readonly stoppedBy: string | null;
}

/**
 * The listed files of the window's days that should have row text, the latest day first and
 * each day's in random order: several ingest processes on one data directory each run a pass
 * after their seal, and in orders of their own they rarely make the same file at once (each
 * skips what another has made), where in one order they would make every file twice. Days
 * offloaded to the store have no Parquet here to make it from: none of theirs.
 */
export function windowFiles(catalog: CatalogReader, window: ReadonlySet<string>): CatalogFile[] {
  const offloaded = offloadedDays(catalog.db);
  const days = [...window]
    .filter((d) => !offloaded.has(d))
    .sort()
    .reverse();
  return days.flatMap((day) => shuffled(DATASETS.filter(hasRowText).flatMap((dataset) => catalog.filesOfDay(dataset, day))));
}

/** Fisher–Yates, in place. */
function shuffled<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

/** One file to make row text for: where it is and what the catalog says its bytes are. */
export interface RowTextJob {
  readonly dataDir: string;
  readonly path: string;
  readonly dataset: Dataset;
  readonly sha256: string;
}

export type RowTextOutcome = { readonly kind: 'made'; readonly bytes: number } | { readonly kind: 'skipped'; readonly reason: string };

/** Makes one file's row text: in this thread (makeRowText) or in a worker (rowTextPool.ts). */
export type RowTextMaker = (job: RowTextJob) => Promise<RowTextOutcome>;

/**
 * The row text of one listed file, from its bytes once their SHA-256 is the catalog's. A disk
 * that takes no more bytes throws (the pass stops); anything else about the file is a skip.
 */
export async function makeRowText(job: RowTextJob): Promise<RowTextOutcome> {
  try {
    const bytes = await readFile(join(job.dataDir, job.path));
    if (createHash('sha256').update(bytes).digest('hex') !== job.sha256)
      return { kind: 'skipped', reason: 'its bytes are not the catalog’s (doctor reports the file)' };
    return { kind: 'made', bytes: await writeRowText(job.dataDir, job.path, await rowTextOf(bytes, job.dataset, job.sha256, job.path)) };
  } catch (e) {
    if (diskCauseOf(e) !== null) throw e;
    return { kind: 'skipped', reason: (e as Error).message };
  }
}

export async function keepRowText(k: RowTextKeeping): Promise<RowTextKept> {
  const window = rowTextWindow(k.catalog.storedTradingDays(), k.days);
  const removedDays = await removeRowTextOutside(k.dataDir, window);
  const make = k.maker ?? makeRowText;
  let missing = 0;
  let made = 0;
  let madeBytes = 0;
  const skipped: { path: string; reason: string }[] = [];
  let stoppedBy: string | null = null;
  const files = windowFiles(k.catalog, window);
  k.onFiles?.(files.length);
  const limit = new Limiter(Math.max(1, k.concurrency ?? 1));
  await Promise.all(
    files.map((file) =>
      limit.run(async () => {
        if (stoppedBy === null && k.stop?.()) stoppedBy = 'stopped';
        if (stoppedBy !== null) return;
        const target = join(k.dataDir, rowTextRelPath(file.path));
        if (!(await exists(target))) {
          missing++;
          try {
            const outcome = await make({ dataDir: k.dataDir, path: file.path, dataset: file.dataset, sha256: file.sha256 });
            if (outcome.kind === 'made') {
              made++;
              madeBytes += outcome.bytes;
            } else skipped.push({ path: file.path, reason: outcome.reason });
          } catch (e) {
            const disk = diskCauseOf(e);
            if (disk === null) throw e;
            stoppedBy ??= `${disk.cause} at ${disk.path ?? target}`;
            return;
          }
        }
        k.onFile?.();
      }),
    ),
  );
  return { window: [...window].sort(), missing, made, madeBytes, removedDays, skipped, stoppedBy };
}

/**
 * Removes the row text of days outside `window`, and any of a dataset that gets none (trades
 * and orders had row text before issue 52); returns how many dataset-days had some.
 */
export async function removeRowTextOutside(dataDir: string, window: ReadonlySet<string>): Promise<number> {
  let removed = 0;
  for (const dataset of DATASETS) {
    const dir = join(dataDir, rowTextDatasetDir(dataset));
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw e;
    }
    for (const name of names) {
      const day = /^date=(\d{8})$/.exec(name)?.[1];
      if (day === undefined || (hasRowText(dataset) && window.has(day))) continue;
      await rm(join(dir, name), { recursive: true, force: true });
      removed++;
    }
  }
  return removed;
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
}
