/**
 * Row text made in worker threads (rowTextWorker.ts), for rowTextKeeper.ts: decoding a file,
 * writing its rows as text and deflating them is CPU work of 15–50 ms a file, which on the
 * calling thread would hold up a server's or an ingestor's event loop, and which a command
 * that has just sealed can spread over every core.
 */
import { WorkerPool } from '../../shared/workerPool.js';
import type { RowTextJob, RowTextMaker, RowTextOutcome } from './rowTextKeeper.js';

export class RowTextPool extends WorkerPool<RowTextJob, RowTextOutcome> {
  constructor(size: number) {
    super({ name: 'row text worker', url: new URL('./rowTextWorker.js', import.meta.url), size, lazy: true });
  }

  readonly make: RowTextMaker = (job) => this.run(job);
}
