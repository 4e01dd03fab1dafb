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
import { mkdir, readdir, unlink } from 'node:fs/promises';
import { fsyncDir } from '../../shared/durableFile.js';
import { dirname, join } from 'node:path';
import type { Db } from '../../shared/sqlite.js';
import { SCHEMAS, type Dataset } from '../../shared/schema.js';
import { CatalogReader, CatalogWriter } from '../../storage/catalog.js';
import { boundaryPartRelPath, rowTextRelPath, sealedDayDir, sealedFileRelPath } from '../../storage/layout.js';
import { hasRowText } from '../../storage/rowText/rowTextBuild.js';
import { isProcessAlive } from '../../shared/processAlive.js';
import { Limiter } from '../../shared/limiter.js';
import type { Staging } from '../staging/segments.js';
import { sealBucket, type BucketSealed, type Encoder } from './bucket.js';
import type { StagedRecord } from '../../storage/staging/bucketRead.js';
import type { SealPool } from './pool.js';
import type { FileCandidates } from '../../storage/boundary/candidates.js';
import { writeBoundaryPart } from '../../storage/boundary/partFile.js';
import { atStage } from '../diskFault.js';

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
  if (hasRowText(dataset)) {
    // Row text is written beside the files (bucket.ts): its crashed writers' temps too.
    const textDir = join(deps.dataDir, dirname(rowTextRelPath(sealedFileRelPath(dataset, tradedate, 'x'))));
    await mkdir(textDir, { recursive: true });
    await removeStaleTemps(textDir);
  }

  let files = 0;
  let rows = 0;
  let bytes = 0;
  const parts = new PartAccumulator(deps, writer, dataset, tradedate);
  // Steps 2 and 3 for one bucket, on this thread: the catalog has one writer.
  const finish = async ({ files: written, pastCut, candidates }: BucketSealed) => {
    if (pastCut.length > 0) opts.onPastCut?.(pastCut);
    if (written.length === 0) return;
    await fsyncDir(dir);
    // A disk fault names the database it met (the outer stage's words name only the directory).
    await atStage('seal', catalog.name, async () => writer.recordFiles(dataset, tradedate, SCHEMAS[dataset].rowGroupSize, written, deps.nowMs()));
    await atStage('seal', staging.db.name, async () =>
      staging.drop(
        dataset,
        tradedate,
        written.map((w) => w.symbol),
      ),
    );
    for (const w of written) {
      files++;
      rows += w.rows;
      bytes += w.bytes;
    }
    await parts.add(candidates);
  };
  try {
    const jobs = [...staging.bucketsOf(todo)].map(([bucket, symbols]) => ({
      dataset,
      tradedate,
      bucket,
      symbols: [...symbols],
      ...(opts.belowOrder === undefined ? {} : { belowOrder: opts.belowOrder }),
    }));
    if (deps.pool) {
      const pool = deps.pool;
      // Every worker busy, results recorded as each bucket completes; the first failure stops
      // the buckets not yet started and is thrown once those running have settled.
      const limit = new Limiter(pool.size);
      const failures: unknown[] = [];
      await Promise.all(
        jobs.map((job) =>
          limit.run(async () => {
            if (failures.length > 0) return;
            try {
              await finish(await pool.seal(job, deps.onFile));
            } catch (e) {
              failures.push(e);
            }
          }),
        ),
      );
      if (failures.length > 0) throw failures[0];
    } else {
      const env = { dataDir: deps.dataDir, ingestDb: staging.db, encode: deps.encode, onFile: deps.onFile };
      for (const job of jobs) await finish(await sealBucket(env, job));
    }
    // Before the day is marked sealed: a server keeps a sealed day's listing, parts included.
    await parts.flush();
  } catch (e) {
    await removeUnlisted(deps, dataset, tradedate, todo);
    throw e;
  }
  if (opts.markDaySealed ?? true) await atStage('seal', catalog.name, async () => writer.markDaySealed(dataset, tradedate, deps.nowMs()));
  return { dataset, tradedate, files, rows, bytes, skipped: already.length };
}

/**
 * Candidate text held before a boundary part is written: bounds the seal's memory (a whole
 * market's level-2 day has ~2.5 M candidates, ~600 MB of text) at the cost of a few parts
 * for a big day; 1,000 indexes fit in one.
 */
const PART_TEXT_BYTES = 128 * 1024 * 1024;

/**
 * Gathers the boundary candidates of the files a seal lists and writes them as boundary parts
 * (storage/boundary/), each listed after its files. A crash before a part is listed leaves
 * files no part names, which the server answers from the files themselves.
 */
class PartAccumulator {
  private pending: FileCandidates[] = [];
  private textBytes = 0;

  constructor(
    private readonly deps: SealDeps,
    private readonly writer: CatalogWriter,
    private readonly dataset: Dataset,
    private readonly tradedate: string,
  ) {}

  async add(candidates: readonly FileCandidates[]): Promise<void> {
    for (const c of candidates) {
      this.pending.push(c);
      for (const t of c.texts) this.textBytes += t.length;
    }
    if (this.textBytes >= PART_TEXT_BYTES) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const files = this.pending;
    this.pending = [];
    this.textBytes = 0;
    const dir = join(this.deps.dataDir, dirname(boundaryPartRelPath(this.dataset, this.tradedate, 'part')));
    await mkdir(dir, { recursive: true });
    await removeStaleTemps(dir);
    const part = await atStage('seal', dir, () => writeBoundaryPart(this.deps.dataDir, this.dataset, this.tradedate, files));
    await atStage('seal', this.deps.catalog.name, async () => this.writer.recordBoundaryPart(this.dataset, this.tradedate, part, this.deps.nowMs()));
  }
}

/**
 * After a failed seal (a full or read-only disk, a dead worker), once all its writers have
 * settled: removes what it wrote and did not list — the files of `symbols` that the catalog
 * does not name and their row text — so that doctor finds no extra file and the space is free
 * again. Best-effort: whatever stays, the next seal overwrites.
 */
async function removeUnlisted(deps: SealDeps, dataset: Dataset, tradedate: string, symbols: readonly string[]): Promise<void> {
  let listed: Set<string>;
  try {
    listed = new Set(new CatalogReader(deps.catalog).symbolsOfDay(dataset, tradedate));
  } catch {
    return; // what is listed is unknown: nothing is removed
  }
  const paths: string[] = [];
  for (const symbol of symbols) {
    if (listed.has(symbol)) continue;
    const rel = sealedFileRelPath(dataset, tradedate, symbol);
    paths.push(join(deps.dataDir, rel));
    if (hasRowText(dataset)) paths.push(join(deps.dataDir, rowTextRelPath(rel)));
  }
  await Promise.all(paths.map((p) => unlink(p).catch(() => undefined)));
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
