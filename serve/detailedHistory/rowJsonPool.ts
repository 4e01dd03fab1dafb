/**
 * Row-JSON workers (rowJsonWorker.ts): the every-field JSON of a row group made on another
 * thread. Started on first use (a server that only answers from its cache never starts them);
 * an idle worker never holds a process open. Requests go to the worker with the fewest in
 * flight; a worker reads files concurrently, so several may be in flight on each. A worker that
 * dies fails the row groups it held (their page is an error) and the next request starts a
 * fresh one (shared/workerPool.ts).
 */
import type { CatalogFile } from '../../storage/catalog.js';
import { UnsupportedParquetError } from '../../storage/parquet/format.js';
import { WorkerPool } from '../../shared/workerPool.js';
import type { RowJsonMaker } from './rows.js';
import type { SerializedRows } from '../../storage/rowText/rowJson.js';
import type { RowJsonRequest, RowJsonRows, RowJsonWorkerInput } from './rowJsonWorker.js';

export class RowJsonPool extends WorkerPool<RowJsonRequest, RowJsonRows> implements RowJsonMaker {
  constructor(input: RowJsonWorkerInput, size: number) {
    super({ name: 'row JSON worker', url: new URL('./rowJsonWorker.js', import.meta.url), size, workerData: input, lazy: true });
  }

  /** Every field of row group `group` as JSON rows; null when the file needs the general reader. */
  async rows(file: CatalogFile, group: number, sizeHint: number): Promise<SerializedRows | null> {
    const req: RowJsonRequest = {
      group,
      sizeHint,
      file: { path: file.path, rows: file.rows, rowGroupSize: file.rowGroupSize, dataset: file.dataset },
    };
    try {
      const made = await this.run(req);
      return { bytes: Buffer.from(made.bytes.buffer, made.bytes.byteOffset, made.bytes.byteLength), offsets: made.offsets };
    } catch (e) {
      // Arrives as its own class (shared/workerErrors.ts): the caller decodes the file itself.
      if (e instanceof UnsupportedParquetError) return null;
      throw e;
    }
  }
}
