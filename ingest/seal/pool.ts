/**
 * Seal workers, one per core: each writes the files of the buckets it is handed. A worker
 * that dies fails the buckets it held (shared/workerPool.ts), which fails the seal.
 */
import { availableParallelism } from 'node:os';
import { WorkerPool } from '../../shared/workerPool.js';
import type { BucketJob, BucketSealed } from './bucket.js';
import type { SealWorkerInput } from './worker.js';

export class SealPool extends WorkerPool<BucketJob, BucketSealed, number> {
  constructor(input: SealWorkerInput, size = Math.max(1, availableParallelism())) {
    super({ name: 'seal worker', url: new URL('./worker.js', import.meta.url), size, workerData: input });
  }

  /** Writes the bucket's files; `onFile` gets each file's row count as it lands. */
  seal(job: BucketJob, onFile?: (rows: number) => void): Promise<BucketSealed> {
    return this.run(job, { onProgress: onFile });
  }
}
