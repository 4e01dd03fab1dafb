/**
 * Correction rows of one dataset-day (api-contract: Corrections): from feed files (JSON Lines,
 * as replay reads them), from anything `import` reads (through its mapping), or from the day's
 * late messages waiting in quarantine. Rows go through
 * the feed's validation; a bad row is quarantined as usual. Rows of other days or datasets,
 * or of symbols not asked for, are left alone and counted.
 */
import { SCHEMAS, type Dataset, type SnapshotRow } from '../../shared/schema.js';
import { readFeedLines } from '../feed/lines.js';
import type { QuarantineEntry, Staging } from '../staging/segments.js';
import { validateFeedLine, validateSnapshot } from '../staging/validate.js';
import { CatalogReader, openCatalog } from '../../storage/catalog.js';
import { unitsOf } from '../import/importFiles.js';
import { planImport } from '../import/importPlan.js';
import { UnitImporter } from '../import/importWorker.js';

export interface CorrectionRows {
  /** By symbol, in arrival order (the later of two rows with one key wins). */
  readonly bySymbol: Map<string, SnapshotRow[]>;
  rows: number;
  /** Rows of another dataset, day or symbol: not this restatement's. */
  elsewhere: number;
  readonly rejects: QuarantineEntry[];
  /** Quarantine ids of the late messages taken in (removed once the new versions are current). */
  readonly lateIds: number[];
}

export interface CorrectionScope {
  readonly dataset: Dataset;
  readonly tradedate: string;
  /** Only these symbols (canonical), or all. */
  readonly symbols: ReadonlySet<string> | null;
}

function emptyRows(): CorrectionRows {
  return { bySymbol: new Map(), rows: 0, elsewhere: 0, rejects: [], lateIds: [] };
}

function take(out: CorrectionRows, scope: CorrectionScope, row: SnapshotRow): void {
  if (row.dataset !== scope.dataset || row.tradedate !== scope.tradedate || (scope.symbols !== null && !scope.symbols.has(row.symbol))) {
    out.elsewhere++;
    return;
  }
  let list = out.bySymbol.get(row.symbol);
  if (list === undefined) out.bySymbol.set(row.symbol, (list = []));
  list.push(row);
  out.rows++;
}

/** Feed files (JSON Lines, as replay reads them): `.jsonl`, `.jsonl.gz`, `.jsonl.zst`. */
export function isFeedFile(path: string): boolean {
  return /\.jsonl(\.gz|\.zst)?$/i.test(path);
}

export interface CorrectionFilesDeps {
  readonly catalogDb: string;
  readonly dataDir: string;
  readonly nowMs: number;
}

/**
 * Correction files in the order given: feed files line by line, anything `import` reads
 * (Parquet in the lake's columns; CSV and other Parquet through `mapping`) by the import's own
 * planning, mapping and validation, in-process.
 */
export async function correctionsFromFiles(
  deps: CorrectionFilesDeps,
  inputs: readonly string[],
  mapping: string | null,
  scope: CorrectionScope,
): Promise<CorrectionRows> {
  const out = emptyRows();
  let importer: UnitImporter | null = null;
  for (const input of inputs) {
    if (isFeedFile(input)) {
      await feedInto(out, input, scope);
      continue;
    }
    // A file or a folder (walked in name order), checked as `import` checks it.
    for (const plan of await planImport([input], { mapping, dataset: scope.dataset })) {
      importer ??= new UnitImporter(deps, new CatalogReader(openCatalog(deps.catalogDb, true)));
      for await (const { unit } of unitsOf(plan)) {
        const { rejects } = await importer.forEachRow(unit, (row) => {
          take(out, scope, row);
          return null;
        });
        out.rejects.push(...rejects);
      }
    }
  }
  return out;
}

async function feedInto(out: CorrectionRows, file: string, scope: CorrectionScope): Promise<void> {
  for await (const batch of readFeedLines(file)) {
    batch.lines.forEach((line, i) => {
      if (line.trim() === '') return;
      const v = validateFeedLine(line);
      if (v.ok) take(out, scope, v.row);
      else out.rejects.push({ source: `${file}:${batch.firstLineNo + i}`, reason: v.reason, raw: line });
    });
  }
}

/**
 * The day's late messages, in arrival order: a replayed line (with its `kind`) or a Kafka
 * message's value (the dataset is the one its quarantine reason names).
 */
export function correctionsFromQuarantine(staging: Staging, scope: CorrectionScope): CorrectionRows {
  const out = emptyRows();
  for (const entry of staging.lateEntries(scope.dataset, scope.tradedate)) {
    let obj: unknown;
    try {
      obj = JSON.parse(entry.raw);
    } catch {
      continue; // a late entry was valid when quarantined; unreadable now means it was edited
    }
    const v = validateSnapshot(obj, scope.dataset);
    if (!v.ok) {
      out.rejects.push({ source: entry.source, reason: v.reason, raw: entry.raw });
      continue;
    }
    const before = out.rows;
    take(out, scope, v.row);
    if (out.rows > before) out.lateIds.push(entry.id);
  }
  return out;
}

/** The key a row is one of a day's by: its time (snapshots) or its id (trades, orders). */
export function rowKey(dataset: Dataset, timeMs: number, values: ArrayLike<number | null>): number {
  const id = SCHEMAS[dataset].idValue;
  return id === null ? timeMs : (values[id] as number);
}
