import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { Buffer } from 'node:buffer';
import { readFeedChunks } from './chunks.js';
import type { ParseReply, ParseRequest, ParseWorkerInput } from './parseWorker.js';
import type { Staging } from '../staging/segments.js';

/**
 * Replays feed files into staging. This thread decompresses and cuts line chunks; a pool of
 * parse workers validates them; results are staged strictly in chunk order, so "later wins"
 * among duplicates means later in the file, exactly as a single reader would see it.
 * Sealing is the caller's next step.
 */
export interface ReplayStats {
  lines: number;
  staged: number;
  quarantined: number;
  late: number;
  /** `dataset|tradedate` of every day with staged rows. */
  readonly days: Set<string>;
  /** `dataset|tradedate` of days whose lines were all or partly late. */
  readonly lateDays: Set<string>;
}

export interface ReplayDeps {
  readonly staging: Staging;
  readonly catalogDb: string;
  readonly onProgress?: (linesDone: number, bytesRead: number) => void;
  /** Parse workers; default one per core. */
  readonly workers?: number;
}

export function emptyReplayStats(): ReplayStats {
  return { lines: 0, staged: 0, quarantined: 0, late: 0, days: new Set(), lateDays: new Set() };
}

type Parsed = Extract<ParseReply, { type: 'parsed' }>;

/** Chunks handed to each worker before waiting: keeps workers busy, memory bounded. */
const PER_WORKER_IN_FLIGHT = 2;

export class ReplayPool {
  private readonly workers: Worker[];
  private readonly waiting = new Map<number, { resolve: (r: Parsed) => void; reject: (e: Error) => void }>();
  private next = 0;

  constructor(catalogDb: string, count: number) {
    const input: ParseWorkerInput = { catalogDb };
    this.workers = Array.from({ length: count }, () => {
      const w = new Worker(new URL('./parseWorker.js', import.meta.url), { workerData: input });
      w.on('message', (reply: ParseReply) => {
        const waiter = this.waiting.get(reply.seq);
        if (!waiter) return;
        this.waiting.delete(reply.seq);
        if (reply.type === 'error') waiter.reject(new Error(reply.message));
        else waiter.resolve(reply);
      });
      w.on('error', (e) => this.failAll(e));
      w.on('exit', (code) => {
        if (this.waiting.size > 0) this.failAll(new Error(`feed parser stopped unexpectedly (exit ${code})`));
      });
      return w;
    });
  }

  get size(): number {
    return this.workers.length;
  }

  private failAll(e: Error): void {
    for (const w of this.waiting.values()) w.reject(e);
    this.waiting.clear();
  }

  parse(req: ParseRequest): Promise<Parsed> {
    const worker = this.workers[this.next++ % this.workers.length];
    return new Promise((resolve, reject) => {
      this.waiting.set(req.seq, { resolve, reject });
      worker.postMessage(req, [req.bytes.buffer as ArrayBuffer]);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}

export async function replayFiles(deps: ReplayDeps, paths: readonly string[], stats: ReplayStats = emptyReplayStats()): Promise<ReplayStats> {
  const pool = new ReplayPool(deps.catalogDb, deps.workers ?? Math.max(1, availableParallelism()));
  let seq = 0;
  try {
    for (const path of paths) {
      const inFlight: Promise<Parsed>[] = [];
      const stageNext = async () => {
        const r = await inFlight.shift()!;
        const packs = r.packs.map((p) => ({ ...p, records: Buffer.from(p.records.buffer, p.records.byteOffset, p.records.byteLength) }));
        // A replay can simply be re-run, so batches skip fsync; flush() runs once per file.
        deps.staging.stagePacks(packs, r.rejects, { sync: false });
        stats.lines += r.lines;
        stats.late += r.late;
        stats.quarantined += r.rejects.length;
        for (const d of r.lateDays) stats.lateDays.add(d);
        for (const p of packs) {
          stats.staged += p.count;
          stats.days.add(`${p.dataset}|${p.tradedate}`);
        }
      };
      for await (const chunk of readFeedChunks(path)) {
        inFlight.push(pool.parse({ seq: seq++, source: path, firstLineNo: chunk.firstLineNo, bytes: chunk.bytes }));
        if (inFlight.length >= pool.size * PER_WORKER_IN_FLIGHT) await stageNext();
        deps.onProgress?.(stats.lines, chunk.bytesRead);
      }
      while (inFlight.length > 0) await stageNext();
      await deps.staging.flush();
    }
    return stats;
  } finally {
    await pool.close();
  }
}
