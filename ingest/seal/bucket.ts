/**
 * Step 1 of sealing for one staging bucket: each symbol-day's file written by the lake's one
 * writer (storage/symbolDayFile.ts), a few at once. Returns the facts the catalog records; recording them
 * (step 2) and dropping the staged rows (step 3) stay with the caller, in one process, so the
 * catalog has a single writer. Runs in-process or in a seal worker alike.
 */
import type { Db } from '../../shared/sqlite.js';
import type { Dataset } from '../../shared/schema.js';
import type { NewCatalogFile } from '../../storage/catalog.js';
import type { FileCandidates } from '../../storage/boundary/candidates.js';
import { readStagedBucket, type StagedRecord } from '../../storage/staging/bucketRead.js';
import { writeSymbolDay, type Encoder } from '../../storage/symbolDayFile.js';
import { atStage } from '../diskFault.js';

export type { Encoder };

const sealGuard = (path: string, write: () => Promise<void>): Promise<void> => atStage('seal', path, write);

/** Symbol-days encoded at once: enough to keep the zstd threads busy, few enough to bound memory. */
const IN_FLIGHT = 4;

export interface BucketJob {
  readonly dataset: Dataset;
  readonly tradedate: string;
  readonly bucket: number;
  readonly symbols: readonly string[];
  /** Leave out records whose order is at or above this (rows past an agreed seal cut). */
  readonly belowOrder?: number;
}

/** What the catalog records of a written file: the catalog's own type, not a copy of it. */
export type WrittenFile = NewCatalogFile;

/**
 * A bucket's files, the records it left out past the job's `belowOrder`, and the boundary
 * candidates of its files (index and level-2 days) for the day's boundary parts.
 */
export interface BucketSealed {
  readonly files: WrittenFile[];
  readonly pastCut: StagedRecord[];
  readonly candidates: FileCandidates[];
}

export interface BucketSealEnv {
  readonly dataDir: string;
  readonly ingestDb: Db;
  readonly encode: Encoder;
  /** Called after each file is durably written, with its row count. */
  readonly onFile?: (rows: number) => void;
}

export async function sealBucket(env: BucketSealEnv, job: BucketJob): Promise<BucketSealed> {
  const { dataset, tradedate } = job;
  const written: WrittenFile[] = [];
  const pastCut: StagedRecord[] = [];
  const candidates: FileCandidates[] = [];
  const inFlight = new Set<Promise<void>>();
  let failure: unknown = null;
  for (const cols of readStagedBucket(env.ingestDb, env.dataDir, dataset, tradedate, job.bucket, new Set(job.symbols), job.belowOrder, pastCut)) {
    const task = (async () => {
      // A disk fault names the file it met: its words cross back from a seal worker as they are.
      const { file, candidates: c } = await writeSymbolDay({ dataDir: env.dataDir, encode: env.encode, guard: sealGuard }, { dataset, tradedate, ...cols });
      written.push(file);
      if (c) candidates.push(c);
      env.onFile?.(cols.rows);
    })();
    inFlight.add(task);
    task.then(
      () => inFlight.delete(task),
      (e: unknown) => {
        inFlight.delete(task);
        failure ??= e;
      },
    );
    if (inFlight.size >= IN_FLIGHT) await Promise.race(inFlight).catch(() => undefined);
    if (failure) break;
  }
  await Promise.allSettled(inFlight);
  if (failure) throw failure;
  return { files: written, pastCut, candidates };
}
