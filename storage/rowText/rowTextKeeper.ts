/**
 * Keeps row text where it buys speed (rowTextWindow.ts): makes what the window's listed files
 * lack and removes the row text of days that left the window. It runs after a seal has listed
 * its days, never before: the seal makes no row text (issue 52: it cost 1.8× encoding the
 * files, on the path between a day's rows and its listing), and a day is served from its
 * Parquet files meanwhile (the column path gives the same bytes). So a crash between a
 * listing and its row text loses nothing; the next run (an ingestor's start, the next
 * replay, import or demo, `doctor --rebuild`) makes what is missing.
 *
 * One file at a time on the calling thread (its DEFLATE in libuv's threads): a background
 * task beside an ingestor or a server must leave them the other core. Each file is made from
 * its Parquet bytes, only when their SHA-256 is the catalog's (never from a damaged file).
 * A disk that takes no more bytes stops the run (row text is derived: nothing is lost); any
 * other failure skips its file and is reported.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { DATASETS } from '../../shared/schema.js';
import type { CatalogFile, CatalogReader } from '../catalog.js';
import { diskCauseOf } from '../diskCause.js';
import { rowTextDatasetDir, rowTextRelPath } from '../layout.js';
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

/** The listed files of the window's days that should have row text, the latest day first. */
export function windowFiles(catalog: CatalogReader, window: ReadonlySet<string>): CatalogFile[] {
  const days = [...window].sort().reverse();
  return days.flatMap((day) => DATASETS.filter(hasRowText).flatMap((dataset) => catalog.filesOfDay(dataset, day)));
}

export async function keepRowText(k: RowTextKeeping): Promise<RowTextKept> {
  const window = rowTextWindow(k.catalog.storedTradingDays(), k.days);
  const removedDays = await removeRowTextOutside(k.dataDir, window);
  let missing = 0;
  let made = 0;
  let madeBytes = 0;
  const skipped: { path: string; reason: string }[] = [];
  let stoppedBy: string | null = null;
  const files = windowFiles(k.catalog, window);
  k.onFiles?.(files.length);
  for (const file of files) {
    if (k.stop?.()) {
      stoppedBy = 'stopped';
      break;
    }
    const target = join(k.dataDir, rowTextRelPath(file.path));
    if (await exists(target)) {
      k.onFile?.();
      continue;
    }
    missing++;
    try {
      const bytes = await readFile(join(k.dataDir, file.path));
      if (createHash('sha256').update(bytes).digest('hex') !== file.sha256) {
        skipped.push({ path: file.path, reason: 'its bytes are not the catalog’s (doctor reports the file)' });
      } else {
        madeBytes += await writeRowText(k.dataDir, file.path, await rowTextOf(bytes, file.dataset, file.sha256, file.path));
        made++;
      }
    } catch (e) {
      const disk = diskCauseOf(e);
      if (disk !== null) {
        stoppedBy = `${disk.cause} at ${disk.path ?? target}`;
        break;
      }
      skipped.push({ path: file.path, reason: (e as Error).message });
    }
    k.onFile?.();
  }
  return { window: [...window].sort(), missing, made, madeBytes, removedDays, skipped, stoppedBy };
}

/** Removes the row text of days outside `window`; returns how many dataset-days had some. */
export async function removeRowTextOutside(dataDir: string, window: ReadonlySet<string>): Promise<number> {
  let removed = 0;
  for (const dataset of DATASETS.filter(hasRowText)) {
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
      if (day === undefined || window.has(day)) continue;
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

/**
 * keepRowText as a background task of a long-running process (the ingestor, the demo): a pass
 * after each seal, one at a time; a poke during a pass runs one more after it. `stop()` ends a
 * pass between files and waits for it.
 */
export class BackgroundRowText {
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(
    private readonly keeping: Omit<RowTextKeeping, 'stop'>,
    private readonly onPass: (kept: RowTextKept, ms: number) => void,
    private readonly onError: (e: unknown) => void,
  ) {}

  /** A pass now, or once more after the one running. */
  poke(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      do {
        this.again = false;
        const started = Date.now();
        this.onPass(await keepRowText({ ...this.keeping, stop: () => this.stopped }), Date.now() - started);
      } while (this.again && !this.stopped);
    })()
      .catch(this.onError)
      .finally(() => (this.running = null));
  }

  /** Resolves once no pass runs (the current one ends at its next file). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  /** Resolves once the passes asked so far are done (tests, the demo's shutdown). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }
}
