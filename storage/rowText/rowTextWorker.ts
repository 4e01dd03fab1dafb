/** A row text worker (rowTextPool.ts): makes the row text of the files it is handed. */
import { serveWorker } from '../../shared/workerPool.js';
import { makeRowText, type RowTextJob, type RowTextOutcome } from './rowTextKeeper.js';

serveWorker<RowTextJob, RowTextOutcome>((job) => makeRowText(job));
