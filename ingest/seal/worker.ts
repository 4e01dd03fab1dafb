import { parentPort, workerData } from 'node:worker_threads';
import { openDb } from '../../shared/sqlite.js';
import { sealBucket, type BucketJob, type BucketSealed } from './bucket.js';
import { encodeParquet } from '../../storage/parquet/writer.js';

/**
 * A seal worker: writes the files of the staging buckets it is handed (step 1 of sealing) on
 * its own thread, so that a day's encoding uses every core. Only the main thread writes the
 * catalog.
 */
export interface SealWorkerInput {
  readonly dataDir: string;
  readonly ingestDb: string;
}

export interface SealRequest {
  readonly id: number;
  readonly job: BucketJob;
}

export type SealReply =
  | { readonly type: 'file'; readonly id: number; readonly rows: number }
  | { readonly type: 'done'; readonly id: number; readonly sealed: BucketSealed }
  | { readonly type: 'error'; readonly id: number; readonly message: string };

if (parentPort && workerData) {
  const port = parentPort;
  const input = workerData as SealWorkerInput;
  const ingestDb = openDb(input.ingestDb, { readonly: true });
  port.on('message', (req: SealRequest) => {
    const env = {
      dataDir: input.dataDir, ingestDb, encode: encodeParquet,
      onFile: (rows: number) => port.postMessage({ type: 'file', id: req.id, rows } satisfies SealReply),
    };
    sealBucket(env, req.job).then(
      (sealed) => port.postMessage({ type: 'done', id: req.id, sealed } satisfies SealReply),
      (e: unknown) => port.postMessage({ type: 'error', id: req.id, message: (e as Error).message } satisfies SealReply),
    );
  });
}
