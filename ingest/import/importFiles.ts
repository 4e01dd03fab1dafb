/**
 * Runs a planned import: each file's units (CSV chunks, Parquet row groups) go to a pool of
 * import workers; their results are appended to staging strictly in file and unit order, so
 * "later wins" among duplicates means later in the command line and the file, as in replay.
 * A file's rows are committed to staging only after the whole file has been read without a
 * difference from a sealed day; a difference discards what was appended of it (nothing of a
 * refused file is staged, api-contract: Import and mirror). Every row is accounted for: a
 * unit's rows and blank lines must be the newlines counted here, and a file's rows staged,
 * already there or quarantined; otherwise the reader lost rows and the file is refused whole.
 * Commits gather whole files up to COMMIT_BYTES: each costs an fsync of every segment touched,
 * and a whole market's day of per-symbol files (5,000 of them) committed one by one would
 * spend most of the import in fsync. Sealing is the caller's next step.
 */
import { availableParallelism } from 'node:os';
import { Buffer } from 'node:buffer';
import { WorkerDiedError, WorkerPool, WorkerPoolClosedError } from '../../shared/workerPool.js';
import { readFeedChunks } from '../feed/chunks.js';
import type { IngestStores } from '../staging/stores.js';
import type { AppendMark, QuarantineEntry } from '../staging/segments.js';
import { csvCutPoint } from './csvRecords.js';
import type { PlannedFile } from './importPlan.js';
import type { ImportedUnit, ImportUnit, ImportWorkerInput } from './importWorker.js';

/**
 * An import's figures. Of every file, rows = staged + alreadyThere + quarantined, or the file
 * is refused; so over the import rows = staged + alreadyThere + quarantined + refusedRows.
 */
export interface ImportStats {
  rows: number;
  staged: number;
  alreadyThere: number;
  quarantined: number;
  /** Rows of refused files, past those quarantined: nothing of them is staged. */
  refusedRows: number;
  /** Quarantined rows by reason. */
  readonly reasons: Map<string, number>;
  /** Quarantined rows by file, in file order. */
  readonly quarantinedFiles: Map<string, number>;
  /** Files refused whole, with why: a difference from a sealed day, or the file could not be read. */
  readonly refused: { readonly file: string; readonly reason: string; readonly sealedDay: boolean }[];
  /** `dataset|tradedate` of days with rows staged. */
  readonly days: Set<string>;
  /** `dataset|tradedate` of days with rows already there. */
  readonly sealedDays: Set<string>;
  /** `dataset|tradedate` of the staged days handed to `sealDays` during the import. */
  readonly sealedDuring: Set<string>;
}

export function emptyImportStats(): ImportStats {
  return {
    rows: 0,
    staged: 0,
    alreadyThere: 0,
    quarantined: 0,
    refusedRows: 0,
    reasons: new Map(),
    quarantinedFiles: new Map(),
    refused: [],
    days: new Set(),
    sealedDays: new Set(),
    sealedDuring: new Set(),
  };
}

export interface ImportDeps {
  readonly stores: IngestStores;
  readonly nowMs: number;
  /** Import workers; default one per core. */
  readonly workers?: number;
  /** Input bytes done (across files) and rows read so far. */
  readonly onProgress?: (bytesDone: number, rows: number) => void;
  /**
   * Seals days (`dataset|tradedate`) whose rows are all staged and committed: no file still to
   * come can hold them (by the day its path names). Called between files, so that an import
   * of years seals as it goes instead of staging everything first; the rest is the caller's
   * after the import.
   */
  readonly sealDays?: (days: string[]) => Promise<void>;
  /** Each file once read: rows staged from it, or why it was refused. */
  readonly onFile?: (file: string, staged: number, refusal: string | null) => void;
}

/** Units handed to each worker before waiting: keeps workers busy, memory bounded. */
const PER_WORKER_IN_FLIGHT = 2;
/**
 * Source rows in flight, past one unit per worker: a unit's memory is its rows (decoded
 * columns, then packed records), and other writers' row groups are large (DuckDB's hold
 * 122,880 rows: measured 1.18 GiB peak with two of them per worker, 0.5 GiB for our files).
 */
const ROWS_IN_FLIGHT = 150_000;
/** Quarantine entries held before they are written (bad rows are quarantined even in a refused file). */
const REJECTS_HELD = 10_000;
/** Appended bytes (of whole files) that make a commit; the rest is committed at the end. */
const COMMIT_BYTES = 128 << 20;

/** What is in flight, in file order: a unit's result, or the end of a file (no work of its own). */
type Sent =
  | {
      readonly kind: 'unit';
      readonly file: FileImport;
      readonly result: Promise<ImportedUnit>;
      readonly bytesDone: number;
      readonly rows: number;
      readonly dataLines: number;
      readonly part: string;
    }
  | { readonly kind: 'end'; readonly file: FileImport };

/** One file's import as its results arrive. */
interface FileImport {
  readonly planned: PlannedFile;
  readonly stats: ImportStats;
  /** Where staging stood before its first rows: a refusal discards back to here. */
  mark: AppendMark | null;
  refusal: string | null;
  /** The refusal is the file's own fault (unreadable), not a sealed day's difference. */
  unreadable: boolean;
  rejects: QuarantineEntry[];
}

export async function importFiles(deps: ImportDeps, files: readonly PlannedFile[], stats: ImportStats = emptyImportStats()): Promise<ImportStats> {
  const { stores } = deps;
  const staging = stores.staging;
  const pool = new WorkerPool<ImportUnit, ImportedUnit>({
    name: 'import worker',
    url: new URL('./importWorker.js', import.meta.url),
    size: deps.workers ?? Math.max(1, availableParallelism()),
    workerData: { catalogDb: stores.layout.catalogDb, dataDir: stores.layout.dataDir, nowMs: deps.nowMs } satisfies ImportWorkerInput,
  });
  // One queue across files: a file's end does not drain the workers (a whole market's day is
  // thousands of small files).
  const inFlight: Sent[] = [];
  let bytesBefore = 0;
  let rowsBefore = 0;
  // Files not ended yet, by the day their path names (null: any day).
  const daysToCome = new Map<string | null, number>();
  for (const f of files) daysToCome.set(f.day, (daysToCome.get(f.day) ?? 0) + 1);

  const quarantine = (file: FileImport): void => {
    staging.quarantineOnce(file.rejects);
    for (const q of file.rejects) file.stats.reasons.set(q.reason, (file.stats.reasons.get(q.reason) ?? 0) + 1);
    file.stats.quarantined += file.rejects.length;
    const name = file.planned.reading.file;
    file.stats.quarantinedFiles.set(name, (file.stats.quarantinedFiles.get(name) ?? 0) + file.rejects.length);
    file.rejects = [];
  };

  const applyUnit = (file: FileImport, sent: { readonly dataLines: number; readonly part: string }, r: ImportedUnit): void => {
    const mine = file.stats;
    mine.rows += r.rows;
    file.rejects.push(...r.rejects);
    if (file.rejects.length >= REJECTS_HELD) quarantine(file);
    // A refused file is read on only to count its rows and quarantine its bad ones.
    if (file.refusal !== null) return;
    if (r.rows + r.blank !== sent.dataLines) {
      // The reader lost or made up lines (as when one quote swallowed the rest of a file):
      // nothing it read can be trusted.
      file.refusal = `counts do not add up: ${sent.part}, the reader gave ${fmt(r.rows)} rows and ${fmt(r.blank)} blank lines`;
      staging.discardAppended(file.mark!);
      return;
    }
    if (r.difference !== null) {
      file.refusal = r.difference;
      staging.discardAppended(file.mark!);
      return;
    }
    const packs = r.packs.map((p) => ({ ...p, records: Buffer.from(p.records.buffer, p.records.byteOffset, p.records.byteLength) }));
    const late = packs.find((p) => stats.sealedDuring.has(`${p.dataset}|${p.tradedate}`));
    if (late !== undefined) {
      // Only a file whose rows are not of the day its path names gets here.
      file.refusal = `rows of ${late.dataset} ${late.tradedate}, which this import sealed after the files named for that day`;
      staging.discardAppended(file.mark!);
      return;
    }
    staging.appendPacks(packs);
    mine.alreadyThere += r.alreadyThere;
    for (const d of r.sealedDays) mine.sealedDays.add(d);
    for (const p of packs) {
      mine.staged += p.count;
      mine.days.add(`${p.dataset}|${p.tradedate}`);
    }
  };

  const endFile = async (file: FileImport): Promise<void> => {
    bytesBefore += file.planned.bytes;
    rowsBefore += file.stats.rows;
    const left = daysToCome.get(file.planned.day)! - 1;
    if (left === 0) daysToCome.delete(file.planned.day);
    else daysToCome.set(file.planned.day, left);
    if (file.rejects.length > 0) quarantine(file);
    const s = file.stats;
    if (file.refusal === null && s.staged + s.alreadyThere + s.quarantined !== s.rows) {
      file.refusal = `counts do not add up: ${fmt(s.rows)} rows read, ${fmt(s.staged)} staged + ${fmt(s.alreadyThere)} already there + ${fmt(s.quarantined)} quarantined`;
    }
    if (file.refusal !== null) staging.discardAppended(file.mark!);
    deps.onFile?.(file.planned.reading.file, file.refusal === null ? file.stats.staged : 0, file.refusal);
    if (file.refusal !== null) stats.refused.push({ file: file.planned.reading.file, reason: file.refusal, sealedDay: !file.unreadable });
    mergeInto(stats, file.stats, file.refusal === null);
    // After the last file the caller seals the rest, once the import workers are gone.
    const sealNow = deps.sealDays !== undefined && daysToCome.size > 0 && !daysToCome.has(null);
    const complete = sealNow ? [...stats.days].filter((d) => !stats.sealedDuring.has(d) && !daysToCome.has(d)) : [];
    if (complete.length > 0) {
      await staging.commitAppended();
      for (const d of complete) stats.sealedDuring.add(d);
      await deps.sealDays!(complete);
    } else if (staging.appendedBytes() >= COMMIT_BYTES) {
      await staging.commitAppended();
    }
  };

  const applyNext = async (): Promise<void> => {
    const sent = inFlight.shift()!;
    const file = sent.file;
    // Results apply in order, so the previous file has ended when this one's first arrives.
    file.mark ??= staging.appendMark();
    if (sent.kind === 'end') return endFile(file);
    let r: ImportedUnit;
    try {
      r = await sent.result;
    } catch (e) {
      // A file that cannot be read (damaged, truncated, not what its name says) is refused like
      // one that differs from a sealed day; a dead worker or a closed pool is the import's failure.
      if (e instanceof WorkerDiedError || e instanceof WorkerPoolClosedError) throw e;
      refuseUnreadable(file, e);
      return;
    }
    applyUnit(file, sent, r);
    deps.onProgress?.(bytesBefore + sent.bytesDone, rowsBefore + file.stats.rows);
  };

  const tooMuchInFlight = (): boolean => {
    let units = 0;
    let rows = 0;
    for (const x of inFlight) {
      if (x.kind !== 'unit') continue;
      units++;
      rows += x.rows;
    }
    return units >= pool.size * PER_WORKER_IN_FLIGHT || (units >= pool.size && rows >= ROWS_IN_FLIGHT);
  };

  try {
    for (const planned of files) {
      const file: FileImport = { planned, stats: emptyImportStats(), mark: null, refusal: null, unreadable: false, rejects: [] };
      const units = unitsOf(planned)[Symbol.asyncIterator]();
      try {
        for (;;) {
          let next: IteratorResult<UnitToSend>;
          // Only reading this file can make it unreadable: what applyNext does (staging, sealing
          // the files before it) failing is the import's failure, not this file's refusal (a
          // full disk was once recorded as "cannot be read" and the import carried on without it).
          try {
            next = await units.next();
          } catch (e) {
            if (e instanceof WorkerDiedError || e instanceof WorkerPoolClosedError) throw e;
            // Reading the file failed here (a damaged gzip or zstd stream, a vanished file).
            refuseUnreadable(file, e);
            break;
          }
          if (next.done || file.unreadable) break;
          const unit = next.value;
          inFlight.push({
            kind: 'unit',
            file,
            result: pool.run(unit.unit, { transfer: unit.transfer }),
            bytesDone: unit.bytesDone,
            rows: unit.rows,
            dataLines: unit.dataLines,
            part: unit.part,
          });
          while (tooMuchInFlight()) await applyNext();
        }
      } finally {
        // The file's reader is closed whether the loop ended, broke off or failed.
        await units.return?.(undefined);
      }
      inFlight.push({ kind: 'end', file });
    }
    while (inFlight.length > 0) await applyNext();
    await staging.commitAppended();
    return stats;
  } finally {
    for (const s of inFlight) if (s.kind === 'unit') s.result.catch(() => undefined);
    await pool.close();
  }
}

const fmt = (n: number) => n.toLocaleString('en-US');

function refuseUnreadable(file: FileImport, e: unknown): void {
  if (file.refusal !== null) return;
  const message = e instanceof Error ? e.message : String(e);
  file.refusal = `cannot be read: ${message.split('\n')[0]}`;
  file.unreadable = true;
}

/** Adds a file's figures to the import's; of a refused file only what was read and quarantined. */
function mergeInto(total: ImportStats, file: ImportStats, accepted: boolean): void {
  total.rows += file.rows;
  total.quarantined += file.quarantined;
  for (const [k, n] of file.reasons) total.reasons.set(k, (total.reasons.get(k) ?? 0) + n);
  for (const [k, n] of file.quarantinedFiles) total.quarantinedFiles.set(k, (total.quarantinedFiles.get(k) ?? 0) + n);
  if (!accepted) {
    total.refusedRows += file.rows - file.quarantined;
    return;
  }
  total.staged += file.staged;
  total.alreadyThere += file.alreadyThere;
  for (const d of file.days) total.days.add(d);
  for (const d of file.sealedDays) total.sealedDays.add(d);
}

interface UnitToSend {
  readonly unit: ImportUnit;
  readonly transfer: ArrayBuffer[];
  readonly bytesDone: number;
  /** Source rows in it (a CSV chunk's lines). */
  readonly rows: number;
  /**
   * Its data lines as counted apart from the reader (newlines of a CSV chunk, the header not
   * included; a row group's rows by the footer): what the reader's rows and blank lines must
   * add up to.
   */
  readonly dataLines: number;
  /** Which part of the file it is and its data lines, for a refusal: `lines 2–60,001 (60,000 lines)`, `row group 3 (122,880 rows)`. */
  readonly part: string;
}

/** A planned file's units of work, in order: Parquet row groups, CSV chunks cut at record ends. */
export async function* unitsOf(file: PlannedFile): AsyncGenerator<UnitToSend> {
  if (file.kind === 'parquet') {
    let firstRow = 0;
    const n = file.rowGroupRows.length;
    for (let g = 0; g < n; g++) {
      const rows = file.rowGroupRows[g];
      yield {
        unit: { kind: 'parquet', reading: file.reading, rowGroup: g, firstRow },
        transfer: [],
        bytesDone: Math.round((file.bytes * (g + 1)) / n),
        rows,
        dataLines: rows,
        part: `row group ${g} (${fmt(rows)} rows)`,
      };
      firstRow += file.rowGroupRows[g];
    }
    return;
  }
  for await (const chunk of readFeedChunks(file.reading.file, 2 << 20, csvCutPoint)) {
    const skipFirst = chunk.firstLineNo === 1;
    yield {
      unit: { kind: 'csv', reading: file.reading, delimiter: file.delimiter, firstLineNo: chunk.firstLineNo, skipFirst, bytes: chunk.bytes },
      transfer: [chunk.bytes.buffer as ArrayBuffer],
      bytesDone: chunk.bytesRead,
      rows: chunk.lineCount,
      dataLines: chunk.lineCount - (skipFirst ? 1 : 0),
      part: `lines ${fmt(chunk.firstLineNo + (skipFirst ? 1 : 0))}–${fmt(chunk.firstLineNo + chunk.lineCount - 1)} (${fmt(chunk.lineCount - (skipFirst ? 1 : 0))} lines)`,
    };
  }
}
