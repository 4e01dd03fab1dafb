import { Worker } from 'node:worker_threads';
import type { CatalogFile } from '../../storage/catalog.js';
import type { RowJsonMaker, SerializedRows } from './rows.js';
import type { RowJsonReply, RowJsonRequest, RowJsonWorkerInput } from './rowJsonWorker.js';

/**
 * Row-JSON workers (rowJsonWorker.ts): the every-field JSON of a row group made on another
 * thread. Started on first use (a server that only answers from its cache never starts them);
 * an idle worker is unref'd so it never holds a process open. Requests go to the worker with the fewest in
 * flight; a worker reads files concurrently, so several may be in flight on each.
 */
export class RowJsonPool implements RowJsonMaker {
  private workers: { worker: Worker; inFlight: number }[] | null = null;
  private readonly pending = new Map<number, { resolve: (r: SerializedRows | null) => void; reject: (e: Error) => void; slot: { inFlight: number } }>();
  private nextId = 0;

  constructor(
    private readonly input: RowJsonWorkerInput,
    readonly size: number,
  ) {}

  private start(): { worker: Worker; inFlight: number }[] {
    this.workers = Array.from({ length: this.size }, () => {
      const worker = new Worker(new URL('./rowJsonWorker.js', import.meta.url), { workerData: this.input });
      worker.on('message', (reply: RowJsonReply) => {
        const p = this.pending.get(reply.id);
        if (!p) return;
        this.pending.delete(reply.id);
        if (--p.slot.inFlight === 0) worker.unref();
        if (reply.type === 'done') {
          const bytes = Buffer.from(reply.bytes.buffer, reply.bytes.byteOffset, reply.bytes.byteLength);
          p.resolve({ bytes, offsets: reply.offsets });
        } else if (reply.type === 'unsupported') p.resolve(null);
        else p.reject(new Error(reply.message));
      });
      // A dead worker fails what it held; the pool starts afresh on the next request.
      const fail = (e: Error) => {
        for (const [id, p] of this.pending) {
          if (p.slot !== slot) continue;
          this.pending.delete(id);
          p.reject(e);
        }
        this.workers = null;
      };
      worker.on('error', fail);
      worker.on('exit', (code) => fail(new Error(`row JSON worker stopped (exit ${code})`)));
      // After the listeners: adding a 'message' listener refs the worker's port again.
      worker.unref();
      const slot = { worker, inFlight: 0 };
      return slot;
    });
    return this.workers;
  }

  /** Every field of row group `group` as JSON rows; null when the file needs the general reader. */
  rows(file: CatalogFile, group: number, sizeHint: number): Promise<SerializedRows | null> {
    const workers = this.workers ?? this.start();
    let slot = workers[0];
    for (const w of workers) if (w.inFlight < slot.inFlight) slot = w;
    // Referenced while it owes an answer: a process awaiting only a worker must not exit.
    if (slot.inFlight++ === 0) slot.worker.ref();
    const id = this.nextId++;
    const req: RowJsonRequest = {
      id, group, sizeHint, file: { path: file.path, rows: file.rows, rowGroupSize: file.rowGroupSize, dataset: file.dataset },
    };
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, slot });
      slot.worker.postMessage(req);
    });
  }

  async close(): Promise<void> {
    const workers = this.workers ?? [];
    this.workers = null;
    await Promise.all(workers.map((w) => w.worker.terminate()));
  }
}
