import { mkdir, open, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Db } from '../../shared/sqlite.js';
import { SCHEMAS, type Dataset } from '../../shared/schema.js';
import { CatalogReader, CatalogWriter } from '../../storage/catalog.js';
import { sealedDayDir } from '../../storage/layout.js';
import { isProcessAlive } from '../../shared/processAlive.js';
import type { Staging } from '../staging/segments.js';
import { sealBucket, type BucketSealed, type Encoder } from './bucket.js';
import type { StagedRecord } from '../staging/bucketRead.js';
import type { SealPool } from './pool.js';

/**
 * Seals a day: every staged symbol-day becomes an immutable Parquet file, durably in place
 * before the catalog names it. Order, for crash safety at any instant:
 *   1. write `NAME.tmp-PID`, fsync, rename to the final name, fsync the directory;
 *   2. record the files in one catalog transaction (from then on servers can see them);
 *   3. drop their staged rows.
 * A crash before 2 leaves an unlisted file that the next seal overwrites; a crash between 2
 * and 3 leaves staged rows whose file is already listed, which the next seal drops unwritten.
 * A listed file is never written again.
 */
export type { Encoder } from './bucket.js';

export interface SealDeps {
  readonly dataDir: string;
  readonly catalog: Db;
  readonly staging: Staging;
  readonly encode: Encoder;
  readonly nowMs: () => number;
  /** Called after each file is durably written, with its row count. */
  readonly onFile?: (rows: number) => void;
  /** Seal workers to spread the files over (else files are written on this thread). */
  readonly pool?: SealPool;
}

export interface SealOptions {
  /** Seal only these symbols (an ingest process seals the symbols of partitions it owns). */
  readonly symbols?: readonly string[];
  /** Record the day as sealed, after which its messages are late. Default true. */
  readonly markDaySealed?: boolean;
  /**
   * Seal only records whose order is below this: Kafka rows (order = offset) at or above an
   * agreed seal cut are late. They are left out of the files and handed to `onPastCut`.
   */
  readonly belowOrder?: number;
  /**
   * The records a bucket left out past `belowOrder`, read by the seal's own pass over the
   * bucket; called before the bucket's files are recorded and its rows dropped, so what it
   * quarantines is never lost to a crash (it must tolerate being called again after one).
   */
  readonly onPastCut?: (records: readonly StagedRecord[]) => void;
}

export interface SealResult {
  readonly dataset: Dataset;
  readonly tradedate: string;
  readonly files: number;
  readonly rows: number;
  readonly bytes: number;
  readonly skipped: number;
}

async function fsyncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

export async function sealDay(deps: SealDeps, dataset: Dataset, tradedate: string, opts: SealOptions = {}): Promise<SealResult> {
  const { catalog, staging } = deps;
  const wanted = opts.symbols ?? staging.symbolsOf(dataset, tradedate);
  const writer = new CatalogWriter(catalog);
  const listed = new Set(new CatalogReader(catalog).symbolsOfDay(dataset, tradedate));
  const already = wanted.filter((s) => listed.has(s));
  if (already.length > 0) staging.drop(dataset, tradedate, already);
  const todo = wanted.filter((s) => !listed.has(s));

  const dir = sealedDayDir(deps.dataDir, dataset, tradedate);
  await mkdir(dir, { recursive: true });
  await removeStaleTemps(dir);

  let files = 0;
  let rows = 0;
  let bytes = 0;
  // Steps 2 and 3 for one bucket, on this thread: the catalog has one writer.
  const finish = async ({ files: written, pastCut }: BucketSealed) => {
    if (pastCut.length > 0) opts.onPastCut?.(pastCut);
    if (written.length === 0) return;
    await fsyncDir(dir);
    writer.recordFiles(dataset, tradedate, SCHEMAS[dataset].rowGroupSize, written, deps.nowMs());
    staging.drop(dataset, tradedate, written.map((w) => w.symbol));
    for (const w of written) {
      files++;
      rows += w.rows;
      bytes += w.bytes;
    }
  };
  const jobs = [...staging.bucketsOf(todo)].map(([bucket, symbols]) => ({
    dataset, tradedate, bucket, symbols: [...symbols], ...(opts.belowOrder === undefined ? {} : { belowOrder: opts.belowOrder }),
  }));
  if (deps.pool) {
    const pool = deps.pool;
    // Every worker busy, results recorded as each bucket completes.
    let failure: unknown = null;
    const running = new Set<Promise<void>>();
    for (const job of jobs) {
      const task = pool.seal(job, deps.onFile).then(finish);
      running.add(task);
      task.then(() => running.delete(task), (e: unknown) => {
        running.delete(task);
        failure ??= e;
      });
      if (running.size >= pool.size) await Promise.race(running).catch(() => undefined);
      if (failure) break;
    }
    await Promise.allSettled(running);
    if (failure) throw failure;
  } else {
    const env = { dataDir: deps.dataDir, ingestDb: staging.db, encode: deps.encode, onFile: deps.onFile };
    for (const job of jobs) await finish(await sealBucket(env, job));
  }
  if (opts.markDaySealed ?? true) writer.markDaySealed(dataset, tradedate, deps.nowMs());
  return { dataset, tradedate, files, rows, bytes, skipped: already.length };
}

/**
 * Removes temporary files that a crashed seal left behind. A temp name carries its writer's
 * pid; one whose process is alive may be mid-write in another ingest process, so it stays.
 */
export async function removeStaleTemps(dir: string): Promise<void> {
  for (const name of await readdir(dir)) {
    const m = /\.tmp-(\d+)$/.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid === process.pid || isProcessAlive(pid)) continue;
    await unlink(join(dir, name)).catch(() => undefined);
  }
}
