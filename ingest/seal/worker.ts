/**
 * A seal worker (pool.ts): writes the files of the staging buckets it is handed (step 1 of
 * sealing) on its own thread, so that a day's encoding uses every core. Only the main thread
 * writes the catalog. Progress: each file's row count as it is durably written.
 */
import { workerData } from 'node:worker_threads';
import { openDb } from '../../shared/sqlite.js';
import { serveWorker } from '../../shared/workerPool.js';
import { sealBucket, type BucketJob, type BucketSealed } from './bucket.js';
import { encodeParquet } from '../../storage/parquet/writer.js';

export interface SealWorkerInput {
  readonly dataDir: string;
  readonly ingestDb: string;
}

if (workerData) {
  const input = workerData as SealWorkerInput;
  const ingestDb = openDb(input.ingestDb, { readonly: true });
  serveWorker<BucketJob, BucketSealed, number>((job, onFile) => sealBucket({ dataDir: input.dataDir, ingestDb, encode: encodeParquet, onFile }, job));
}
