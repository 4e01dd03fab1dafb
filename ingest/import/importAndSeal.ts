/**
 * An import from planned files to sealed days: the files staged in order (importFiles), days
 * sealed as soon as no later file can hold them, then the rest sealed, including days whose
 * rows were all already there but whose seal a crash cut short. `tickvault import` and
 * `tickvault mirror` (each of its dataset-days) both go this way, so mirrored rows meet the
 * same validation, refusals and seal as imported ones.
 */
import { join } from 'node:path';
import { atStage } from '../diskFault.js';
import { sealDays, unsealedDays } from '../seal/days.js';
import type { SealResult } from '../seal/day.js';
import type { BarsKept } from '../seal/bars.js';
import type { IngestStores } from '../staging/stores.js';
import { encodeParquet } from '../../storage/parquet/writer.js';
import { importFiles, type ImportDeps, type ImportStats } from './importFiles.js';
import type { PlannedFile } from './importPlan.js';

export interface ImportAndSealDeps {
  readonly stores: IngestStores;
  readonly nowMs: () => number;
  /** Input bytes done and rows read so far. */
  readonly onProgress?: ImportDeps['onProgress'];
  readonly onFile?: ImportDeps['onFile'];
  readonly onDaySealed?: (r: SealResult) => void;
  /** Told of the bars each seal made (ingest/seal/bars.ts). */
  readonly onBars?: (kept: BarsKept, ms: number) => void;
  /** Once every file is read: the rows left to seal; returns what hears of rows sealed since. */
  readonly onSealing?: (rowsToSeal: number) => ((rowsSealed: number) => void) | undefined;
}

export interface ImportAndSealResult {
  readonly stats: ImportStats;
  readonly sealed: readonly SealResult[];
  readonly sealingMs: number;
}

export async function importAndSeal(deps: ImportAndSealDeps, files: readonly PlannedFile[]): Promise<ImportAndSealResult> {
  const { stores, nowMs } = deps;
  const sealed: SealResult[] = [];
  let sealingMs = 0;
  let sealedRows = 0;
  const seal = async (days: Iterable<string>, onRows?: (rows: number) => void) => {
    const t = Date.now();
    const results = await sealDays(stores, encodeParquet, days, nowMs, (n) => onRows?.((sealedRows += n)), deps.onBars);
    sealingMs += Date.now() - t;
    for (const r of results) deps.onDaySealed?.(r);
    sealed.push(...results);
  };
  const stats = await atStage('staging', join(stores.layout.dataDir, 'staging'), () =>
    importFiles({ stores, nowMs: nowMs(), onProgress: deps.onProgress, sealDays: (days) => seal(days), onFile: deps.onFile }, files),
  );
  const rest = new Set([...stats.days, ...unsealedDays(stores, stats.sealedDays)].filter((d) => !stats.sealedDuring.has(d)));
  const rowsBefore = sealedRows;
  const onRows = deps.onSealing?.(stats.staged - sealedRows);
  await seal(rest, onRows === undefined ? undefined : (n) => onRows(n - rowsBefore));
  return { stats, sealed, sealingMs };
}
