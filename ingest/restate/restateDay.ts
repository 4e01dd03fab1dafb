/**
 * One restatement of a sealed dataset-day (api-contract: Corrections). Order, for crash safety
 * at any instant:
 *   1. each touched symbol-day's next version is written beside the current one by the lake's
 *      one writer (storage/symbolDayFile.ts: temporary name, fsync, rename), and the directory
 *      fsynced;
 *   2. the day's boundary parts that named a touched symbol are rebuilt as a new part;
 *   3. one catalog transaction makes the new versions and the part current (the old versions
 *      stay listed, and on disk, for cursors issued on them);
 *   4. late messages taken in are removed from quarantine.
 * A crash before 3 leaves unlisted files the same command writes again, byte for byte; after
 * 3, the same command finds nothing left to change and finishes step 4.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../shared/config.js';
import type { Db } from '../../shared/sqlite.js';
import { SCHEMAS, type Dataset } from '../../shared/schema.js';
import type { FileCandidates } from '../../storage/boundary/candidates.js';
import { writeBoundaryPart } from '../../storage/boundary/partFile.js';
import { CatalogReader, CatalogWriter, type NewCatalogFile } from '../../storage/catalog.js';
import { fsyncDir } from '../../shared/durableFile.js';
import { sealedDayDir } from '../../storage/layout.js';
import type { SymbolDayColumns } from '../../storage/parquet/writer.js';
import { symbolDayCandidates, writeSymbolDay } from '../../storage/symbolDayFile.js';
import { readSealedDay } from '../import/sealedRows.js';
import type { Staging } from '../staging/segments.js';
import type { CorrectionRows } from './corrections.js';
import { mergeVersion } from './mergeVersion.js';

/** A restatement that cannot be made as asked: a usage error (exit 2), nothing written. */
export class RestateInputError extends ConfigError {
  override name = 'RestateInputError';
}

export interface RestateDeps {
  readonly dataDir: string;
  readonly catalog: Db;
  readonly staging: Staging;
  readonly nowMs: () => number;
}

export interface RestatedSymbol {
  readonly symbol: string;
  readonly version: number;
  readonly rows: number;
  readonly changed: number;
  readonly added: number;
  readonly removed: number;
}

export interface RestateResult {
  readonly restated: RestatedSymbol[];
  /** Symbols whose corrections equal their current rows. */
  readonly unchanged: string[];
  /** Boundary parts rebuilt (0 for trades and orders, which have none). */
  readonly partsRebuilt: number;
}

export async function restateDay(
  deps: RestateDeps,
  dataset: Dataset,
  tradedate: string,
  corrections: CorrectionRows,
  replace: boolean,
): Promise<RestateResult> {
  const reader = new CatalogReader(deps.catalog);
  if (!reader.isDaySealed(dataset, tradedate)) {
    throw new RestateInputError(`${dataset} ${tradedate} is not sealed: rows of an open day go in by replay, import or the feed, not restate`);
  }
  const schema = SCHEMAS[dataset];
  const restated: RestatedSymbol[] = [];
  const unchanged: string[] = [];
  const written: (NewCatalogFile & { readonly version: number })[] = [];
  const newCandidates = new Map<string, FileCandidates>();
  const dir = sealedDayDir(deps.dataDir, dataset, tradedate);
  mkdirSync(dir, { recursive: true });
  for (const symbol of [...corrections.bySymbol.keys()].sort()) {
    const file = reader.file(dataset, tradedate, symbol);
    const current = file === null ? null : await readSealedDay(join(deps.dataDir, file.path), dataset);
    const merged = mergeVersion(dataset, current, corrections.bySymbol.get(symbol)!, replace);
    if (merged.unchanged) {
      unchanged.push(symbol);
      continue;
    }
    if (merged.rows === 0)
      throw new RestateInputError(`${dataset} ${tradedate} ${symbol}: --replace with no rows would leave the symbol-day empty; nothing written`);
    const version = (file?.version ?? 0) + 1;
    const cols: SymbolDayColumns = { dataset, symbol, tradedate, rows: merged.rows, timesMs: merged.timesMs, values: merged.values };
    const { file: entry, candidates: c } = await writeSymbolDay({ dataDir: deps.dataDir }, cols, version);
    written.push(entry);
    if (c !== null) newCandidates.set(symbol, c);
    restated.push({ symbol, version, rows: merged.rows, changed: merged.changed, added: merged.added, removed: merged.removed });
  }
  if (written.length > 0) await fsyncDir(dir);

  // Parts that named a restated symbol give way to one part over all of their symbols.
  const newVersions = new Set(written.map((w) => w.symbol));
  const touched = reader.boundaryParts(dataset, tradedate).filter((p) => p.symbols.some((s) => newVersions.has(s)));
  const cover = new Set([...touched.flatMap((p) => p.symbols), ...newVersions]);
  const candidates: FileCandidates[] = [];
  for (const symbol of [...cover].sort()) {
    if (newVersions.has(symbol)) {
      const c = newCandidates.get(symbol);
      if (c !== undefined) candidates.push(c);
      continue;
    }
    const cols = await currentColumns(deps.dataDir, reader, dataset, tradedate, symbol);
    const c = cols === null ? null : symbolDayCandidates(cols);
    if (c !== null) candidates.push(c);
  }
  const parts = candidates.length > 0 ? [await writeBoundaryPart(deps.dataDir, dataset, tradedate, candidates)] : [];

  if (written.length > 0) {
    new CatalogWriter(deps.catalog).recordRestatement(
      dataset,
      tradedate,
      schema.rowGroupSize,
      written,
      touched.map((p) => p.path),
      parts,
      deps.nowMs(),
    );
  }
  if (corrections.lateIds.length > 0) deps.staging.removeQuarantined(corrections.lateIds);
  return { restated, unchanged, partsRebuilt: written.length > 0 ? parts.length : 0 };
}

/** A listed symbol-day's current rows as the writer's columns (for a rebuilt part). */
export async function currentColumns(
  dataDir: string,
  reader: CatalogReader,
  dataset: Dataset,
  tradedate: string,
  symbol: string,
): Promise<SymbolDayColumns | null> {
  const file = reader.file(dataset, tradedate, symbol);
  if (file === null) return null;
  const day = await readSealedDay(join(dataDir, file.path), dataset);
  const width = SCHEMAS[dataset].valueFields.length;
  return {
    dataset,
    symbol,
    tradedate,
    rows: day.values.length,
    timesMs: Int32Array.from(day.times),
    values: Array.from({ length: width }, (_, j) => Float64Array.from(day.values, (v) => v[j]!)),
  };
}
