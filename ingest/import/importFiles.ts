/**
 * Runs a planned import: each file's units (CSV chunks, Parquet row groups) go to a pool of
 * import workers; their results are appended to staging strictly in file and unit order, so
 * "later wins" among duplicates means later in the command line and the file, as in replay.
 * A file's rows are committed to staging only when the whole file has been read without a
 * difference from a sealed day; a difference discards what was appended of it (nothing of a
 * refused file is staged, api-contract: Import and mirror). Sealing is the caller's next step.
 */
import { availableParallelism } from 'node:os';
import { Buffer } from 'node:buffer';
import { WorkerPool } from '../../shared/workerPool.js';
import { readFeedChunks } from '../feed/chunks.js';
import type { IngestStores } from '../staging/stores.js';
import type { QuarantineEntry } from '../staging/segments.js';
import { csvCutPoint } from './csvRecords.js';
import type { PlannedFile } from './importPlan.js';
import type { ImportedUnit, ImportUnit, ImportWorkerInput } from './importWorker.js';

export interface ImportStats {
  files: number;
  rows: number;
  staged: number;
  alreadyThere: number;
  quarantined: number;
  /** Quarantined rows by reason. */
  readonly reasons: Map<string, number>;
  /** Files refused whole, with why. */
  readonly refused: { readonly file: string; readonly reason: string }[];
  /** `dataset|tradedate` of days with rows staged. */
  readonly days: Set<string>;
  /** `dataset|tradedate` of days with rows already there. */
  readonly sealedDays: Set<string>;
}

export function emptyImportStats(): ImportStats {
  return { files: 0, rows: 0, staged: 0, alreadyThere: 0, quarantined: 0, reasons: new Map(), refused: [], days: new Set(), sealedDays: new Set() };
}

export interface ImportDeps {
  readonly stores: IngestStores;
  readonly nowMs: number;
  /** Import workers; default one per core. */
  readonly workers?: number;
  /** Input bytes done (across files) and rows read so far. */
  readonly onProgress?: (bytesDone: number, rows: number) => void;
}

/** Units handed to each worker before waiting: keeps workers busy, memory bounded. */
const PER_WORKER_IN_FLIGHT = 2;
/** Quarantine entries held before they are written (bad rows are quarantined even in a refused file). */
const REJECTS_HELD = 10_000;

interface SentUnit {
  readonly result: Promise<ImportedUnit>;
  /** The file's input bytes done once this unit is. */
  readonly bytesDone: number;
}

export async function importFiles(deps: ImportDeps, files: readonly PlannedFile[], stats: ImportStats = emptyImportStats()): Promise<ImportStats> {
  const { stores } = deps;
  const pool = new WorkerPool<ImportUnit, ImportedUnit>({
    name: 'import worker', url: new URL('./importWorker.js', import.meta.url),
    size: deps.workers ?? Math.max(1, availableParallelism()),
    workerData: { catalogDb: stores.layout.catalogDb, dataDir: stores.layout.dataDir, nowMs: deps.nowMs } satisfies ImportWorkerInput,
  });
  const inFlight: SentUnit[] = [];
  let bytesBefore = 0;
  try {
    for (const file of files) {
      const mine = emptyImportStats();
      let refusal: string | null = null;
      let rejects: QuarantineEntry[] = [];
      const quarantine = (entries: QuarantineEntry[]) => {
        stores.staging.quarantineOnce(entries);
        for (const q of entries) mine.reasons.set(q.reason, (mine.reasons.get(q.reason) ?? 0) + 1);
        mine.quarantined += entries.length;
      };
      const applyNext = async (): Promise<void> => {
        const sent = inFlight.shift()!;
        const r = await sent.result;
        deps.onProgress?.(bytesBefore + sent.bytesDone, stats.rows + mine.rows);
        if (refusal !== null) return;
        mine.rows += r.rows;
        rejects.push(...r.rejects);
        if (rejects.length >= REJECTS_HELD) {
          quarantine(rejects);
          rejects = [];
        }
        if (r.difference !== null) {
          refusal = r.difference;
          stores.staging.discardAppended();
          return;
        }
        const packs = r.packs.map((p) => ({ ...p, records: Buffer.from(p.records.buffer, p.records.byteOffset, p.records.byteLength) }));
        stores.staging.appendPacks(packs);
        mine.alreadyThere += r.alreadyThere;
        for (const d of r.sealedDays) mine.sealedDays.add(d);
        for (const p of packs) {
          mine.staged += p.count;
          mine.days.add(`${p.dataset}|${p.tradedate}`);
        }
      };
      for await (const unit of unitsOf(file)) {
        if (refusal !== null) break;
        inFlight.push({ result: pool.run(unit.unit, { transfer: unit.transfer }), bytesDone: unit.bytesDone });
        if (inFlight.length >= pool.size * PER_WORKER_IN_FLIGHT) await applyNext();
      }
      while (inFlight.length > 0) await applyNext();
      bytesBefore += file.bytes;
      if (refusal !== null) {
        if (rejects.length > 0) quarantine(rejects);
        stats.refused.push({ file: file.reading.file, reason: refusal });
        stats.rows += mine.rows;
        stats.quarantined += mine.quarantined;
        for (const [k, n] of mine.reasons) stats.reasons.set(k, (stats.reasons.get(k) ?? 0) + n);
        continue;
      }
      for (const q of rejects) mine.reasons.set(q.reason, (mine.reasons.get(q.reason) ?? 0) + 1);
      mine.quarantined += rejects.length;
      await stores.staging.commitAppended(rejects);
      mergeInto(stats, mine);
    }
    return stats;
  } finally {
    for (const s of inFlight) s.result.catch(() => undefined);
    await pool.close();
  }
}

function mergeInto(total: ImportStats, file: ImportStats): void {
  total.files++;
  total.rows += file.rows;
  total.staged += file.staged;
  total.alreadyThere += file.alreadyThere;
  total.quarantined += file.quarantined;
  for (const [k, n] of file.reasons) total.reasons.set(k, (total.reasons.get(k) ?? 0) + n);
  for (const d of file.days) total.days.add(d);
  for (const d of file.sealedDays) total.sealedDays.add(d);
}

interface UnitToSend {
  readonly unit: ImportUnit;
  readonly transfer: ArrayBuffer[];
  readonly bytesDone: number;
}

async function* unitsOf(file: PlannedFile): AsyncGenerator<UnitToSend> {
  if (file.kind === 'parquet') {
    let firstRow = 0;
    const n = file.rowGroupRows.length;
    for (let g = 0; g < n; g++) {
      yield { unit: { kind: 'parquet', reading: file.reading, rowGroup: g, firstRow }, transfer: [], bytesDone: Math.round((file.bytes * (g + 1)) / n) };
      firstRow += file.rowGroupRows[g];
    }
    return;
  }
  for await (const chunk of readFeedChunks(file.reading.file, 2 << 20, csvCutPoint)) {
    yield {
      unit: { kind: 'csv', reading: file.reading, delimiter: file.delimiter, firstLineNo: chunk.firstLineNo, skipFirst: chunk.firstLineNo === 1, bytes: chunk.bytes },
      transfer: [chunk.bytes.buffer as ArrayBuffer],
      bytesDone: chunk.bytesRead,
    };
  }
}
