/**
 * Bars made in worker threads (barWorker.ts), for barKeeper.ts: reading a stock-day's trade and
 * level-2 files, checking their SHA-256 and decoding them is most of the bars' cost (~4 ms a
 * stock-day), which a seal spreads over every core as it does its files.
 */
import { WorkerPool } from '../../shared/workerPool.js';
import type { StockBarsJob, StockBarsMaker, StockBarsOutcome } from './barKeeper.js';

export class BarPool extends WorkerPool<StockBarsJob, StockBarsOutcome> {
  constructor(size: number) {
    super({ name: 'bar worker', url: new URL('./barWorker.js', import.meta.url), size, lazy: true });
  }

  readonly make: StockBarsMaker = (job) => this.run(job);
}
