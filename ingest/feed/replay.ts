/**
 * Replays feed files into staging. This thread decompresses and cuts line chunks; a pool of
 * parse workers validates them; results are staged strictly in chunk order, so "later wins"
 * among duplicates means later in the file, exactly as a single reader would see it.
 * Sealing is the caller's next step.
 */
import { availableParallelism } from 'node:os';
import { WorkerPool } from '../../shared/workerPool.js';
import { Buffer } from 'node:buffer';
import { readFeedChunks } from './chunks.js';
import type { ParsedChunk, ParseRequest, ParseWorkerInput } from './parseWorker.js';
import type { Staging } from '../staging/segments.js';

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

/** Chunks handed to each worker before waiting: keeps workers busy, memory bounded. */
const PER_WORKER_IN_FLIGHT = 2;

export async function replayFiles(deps: ReplayDeps, paths: readonly string[], stats: ReplayStats = emptyReplayStats()): Promise<ReplayStats> {
  const pool = new WorkerPool<ParseRequest, ParsedChunk>({
    name: 'feed parse worker',
    url: new URL('./parseWorker.js', import.meta.url),
    size: deps.workers ?? Math.max(1, availableParallelism()),
    workerData: { catalogDb: deps.catalogDb } satisfies ParseWorkerInput,
  });
  // Chunks sent and not yet staged, in chunk order.
  const inFlight: Promise<ParsedChunk>[] = [];
  try {
    for (const path of paths) {
      const stageNext = async () => {
        const r = await inFlight.shift()!;
        const packs = r.packs.map((p) => ({ ...p, records: Buffer.from(p.records.buffer, p.records.byteOffset, p.records.byteLength) }));
        // A replay can simply be re-run, so batches are only appended (no fsync, invisible);
        // commitAppended() makes a file's rows durable, then visible, once per file.
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
        const req: ParseRequest = { source: path, firstLineNo: chunk.firstLineNo, bytes: chunk.bytes };
        inFlight.push(pool.run(req, { transfer: [chunk.bytes.buffer as ArrayBuffer] }));
        if (inFlight.length >= pool.size * PER_WORKER_IN_FLIGHT) await stageNext();
        deps.onProgress?.(stats.lines, chunk.bytesRead);
      }
      while (inFlight.length > 0) await stageNext();
      await deps.staging.commitAppended();
    }
    return stats;
  } finally {
    // After a failure, chunks still in flight fail too (closing rejects them): already handled.
    for (const p of inFlight) p.catch(() => undefined);
    await pool.close();
  }
}
