import { parentPort, workerData } from 'node:worker_threads';
import { openCatalog } from '../shared/catalog.js';
import { readFeedLines } from './feedLines.js';
import { LateGuard } from './lateGuard.js';
import { RecordPacker, type RecordPack } from './recordCodec.js';
import { validateFeedLine } from './snapshotValidate.js';
import type { QuarantineEntry } from './staging.js';

/**
 * Worker thread of a replay: decompresses, parses and validates a feed file and posts encoded
 * record packs to the main thread, which only appends them to staging. Parsing is most of a
 * replay's CPU, so this puts the second core to work.
 */
export interface ParseWorkerInput {
  readonly path: string;
  readonly catalogDb: string;
}

export type ParseWorkerMessage =
  | {
      readonly type: 'batch';
      readonly packs: RecordPack[];
      readonly rejects: QuarantineEntry[];
      readonly lines: number;
      readonly late: number;
      readonly bytesRead: number;
    }
  | { readonly type: 'done' }
  | { readonly type: 'error'; readonly message: string };

/** Batches in flight before the worker waits for the main thread: bounds memory. */
const MAX_UNACKED = 4;

async function run(input: ParseWorkerInput): Promise<void> {
  const port = parentPort!;
  const catalog = openCatalog(input.catalogDb, true);
  const late = new LateGuard(catalog);
  let unacked = 0;
  let wake: (() => void) | null = null;
  port.on('message', () => {
    unacked--;
    wake?.();
    wake = null;
  });
  try {
    for await (const batch of readFeedLines(input.path, 8192)) {
      const packer = new RecordPacker();
      const rejects: QuarantineEntry[] = [];
      let lines = 0;
      let lateCount = 0;
      for (let i = 0; i < batch.lines.length; i++) {
        const line = batch.lines[i];
        if (line.trim() === '') continue; // blank lines carry nothing; not worth a quarantine row
        lines++;
        const source = `${input.path}:${batch.firstLineNo + i}`;
        const v = validateFeedLine(line);
        if (!v.ok) {
          rejects.push({ source, reason: v.reason, raw: line });
        } else if (late.isLate(v.row.dataset, v.row.tradedate, v.row.symbol)) {
          rejects.push({ source, reason: `late: ${v.row.dataset} ${v.row.tradedate} ${v.row.symbol} is already sealed`, raw: line });
          lateCount++;
        } else {
          packer.add(v.row);
        }
      }
      const packs = packer.take();
      const msg: ParseWorkerMessage = { type: 'batch', packs, rejects, lines, late: lateCount, bytesRead: batch.bytesRead };
      unacked++;
      port.postMessage(msg, packs.map((p) => p.records.buffer as ArrayBuffer));
      while (unacked >= MAX_UNACKED) await new Promise<void>((r) => (wake = r));
    }
    port.postMessage({ type: 'done' } satisfies ParseWorkerMessage);
  } finally {
    catalog.close();
  }
}

run(workerData as ParseWorkerInput).catch((e: unknown) => {
  parentPort!.postMessage({ type: 'error', message: (e as Error).message } satisfies ParseWorkerMessage);
});
