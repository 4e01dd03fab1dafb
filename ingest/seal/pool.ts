import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { BucketJob, BucketSealed } from './bucket.js';
import type { SealReply, SealRequest, SealWorkerInput } from './worker.js';

/** Seal workers, one per core: each writes the files of the buckets it is handed. */
export class SealPool {
  private readonly workers: Worker[];
  private readonly idle: Worker[];
  private readonly queue: (() => void)[] = [];
  private readonly pending = new Map<number, { resolve: (s: BucketSealed) => void; reject: (e: Error) => void; onFile?: (rows: number) => void }>();
  private nextId = 0;

  constructor(input: SealWorkerInput, size = Math.max(1, availableParallelism())) {
    this.workers = Array.from({ length: size }, () => {
      const w = new Worker(new URL('./worker.js', import.meta.url), { workerData: input });
      w.on('message', (reply: SealReply) => {
        const p = this.pending.get(reply.id);
        if (!p) return;
        if (reply.type === 'file') return p.onFile?.(reply.rows);
        this.pending.delete(reply.id);
        this.release(w);
        if (reply.type === 'done') p.resolve(reply.sealed);
        else p.reject(new Error(reply.message));
      });
      w.on('error', (e) => this.failAll(e));
      w.on('exit', (code) => {
        if (this.pending.size > 0) this.failAll(new Error(`seal worker stopped unexpectedly (exit ${code})`));
      });
      return w;
    });
    this.idle = [...this.workers];
  }

  get size(): number {
    return this.workers.length;
  }

  private release(w: Worker): void {
    this.idle.push(w);
    this.queue.shift()?.();
  }

  private failAll(e: Error): void {
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
  }

  async seal(job: BucketJob, onFile?: (rows: number) => void): Promise<BucketSealed> {
    while (this.idle.length === 0) await new Promise<void>((r) => this.queue.push(r));
    const w = this.idle.pop()!;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onFile });
      w.postMessage({ id, job } satisfies SealRequest);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
