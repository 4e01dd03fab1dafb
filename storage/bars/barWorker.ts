/** A bar worker (barPool.ts): makes the bars of the stock-days it is handed. */
import { serveWorker } from '../../shared/workerPool.js';
import { makeStockBars, type StockBarsJob, type StockBarsOutcome } from './barKeeper.js';

serveWorker<StockBarsJob, StockBarsOutcome>((job) => makeStockBars(job));
