import { Worker } from 'node:worker_threads';
import { Buffer } from 'node:buffer';
import type { ParseWorkerInput, ParseWorkerMessage } from './feedParseWorker.js';
import type { Staging } from './staging.js';

/**
 * Replays one fixture feed file into staging: a worker thread parses and validates lines
 * (bad and late ones become quarantine entries with `file:line` and the reason); this thread
 * appends the encoded rows to staging. Sealing is the caller's next step.
 */
export interface ReplayStats {
  lines: number;
  staged: number;
  quarantined: number;
  late: number;
  /** `dataset|tradedate` of every day with staged rows. */
  readonly days: Set<string>;
}

export interface ReplayDeps {
  readonly staging: Staging;
  readonly catalogDb: string;
  readonly onProgress?: (linesDone: number, bytesRead: number) => void;
}

export function emptyReplayStats(): ReplayStats {
  return { lines: 0, staged: 0, quarantined: 0, late: 0, days: new Set() };
}

export function replayFile(deps: ReplayDeps, path: string, stats: ReplayStats = emptyReplayStats()): Promise<ReplayStats> {
  const input: ParseWorkerInput = { path, catalogDb: deps.catalogDb };
  const worker = new Worker(new URL('./feedParseWorker.js', import.meta.url), { workerData: input });
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (e: Error) => {
      if (settled) return;
      settled = true;
      void worker.terminate();
      reject(e);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      if (!settled) fail(new Error(`feed parser stopped unexpectedly (exit ${code}) reading ${path}`));
    });
    worker.on('message', (msg: ParseWorkerMessage) => {
      try {
        if (msg.type === 'error') return fail(new Error(`reading ${path}: ${msg.message}`));
        if (msg.type === 'done') {
          deps.staging.sync();
          settled = true;
          void worker.terminate();
          return resolve(stats);
        }
        // Transferred buffers arrive as plain Uint8Arrays; staging wants Buffers.
        const packs = msg.packs.map((p) => ({ ...p, records: Buffer.from(p.records.buffer, p.records.byteOffset, p.records.byteLength) }));
        // A replay can simply be re-run, so batches skip fsync; sync() runs once at the end.
        deps.staging.stagePacks(packs, msg.rejects, { sync: false });
        worker.postMessage('ack');
        stats.lines += msg.lines;
        stats.late += msg.late;
        stats.quarantined += msg.rejects.length;
        for (const p of packs) {
          stats.staged += p.count;
          stats.days.add(`${p.dataset}|${p.tradedate}`);
        }
        deps.onProgress?.(stats.lines, msg.bytesRead);
      } catch (e) {
        fail(e as Error);
      }
    });
  });
}
