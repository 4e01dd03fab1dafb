/**
 * An import worker: turns one unit of an imported file (a chunk of CSV records, or one Parquet
 * row group) into encoded record packs, quarantine entries (`file:line` or `file#row` and the
 * reason) and the verdict on rows of sealed days (already there, or a difference that refuses
 * the file). Mapping, validation and comparison are the CPU of an import; a pool of these
 * uses every core while the main thread stages in file order.
 */
import { workerData } from 'node:worker_threads';
import { serveWorker } from '../../shared/workerPool.js';
import type { Dataset, SnapshotRow } from '../../shared/schema.js';
import { CatalogReader, openCatalog } from '../../storage/catalog.js';
import { loadCalendarExtension } from '../../calendar/closureStore.js';
import { sealRefusal } from '../../calendar/sealRefusal.js';
import { LateGuard } from '../seal/lateGuard.js';
import { RecordPacker, type RecordPack } from '../../storage/staging/recordCodec.js';
import { validateFields } from '../staging/validate.js';
import type { QuarantineEntry } from '../staging/segments.js';
import { fieldCountReason, forEachCsvRecord } from './csvRecords.js';
import { lakeColumnsMapper } from './lakeColumns.js';
import { compileMapping, readMapping, type Mapping, type RowMapper } from './mapping.js';
import { readRowGroupCells } from './parquetSource.js';
import { SealedRows } from './sealedRows.js';

export interface ImportWorkerInput {
  readonly catalogDb: string;
  readonly dataDir: string;
  /** The import's "now": which days are past (the calendar rules of `seal`). */
  readonly nowMs: number;
}

/** How a file's rows become fields: its mapping file, or the lake's own columns (null). */
export interface FileReading {
  readonly file: string;
  readonly mapping: string | null;
  /** `--dataset` (overriding the mapping's); for the lake's columns, the dataset the plan recognised. */
  readonly dataset: Dataset | null;
  /** The file's column names, in order (a CSV's header). */
  readonly columns: readonly string[];
  /** The date of a hive folder (`date=YYYYMMDD/`) in the file's path, or null. */
  readonly hiveDate: string | null;
}

export type ImportUnit =
  | {
      readonly kind: 'csv';
      readonly reading: FileReading;
      readonly delimiter: string;
      readonly firstLineNo: number;
      readonly skipFirst: boolean;
      readonly bytes: Uint8Array;
    }
  | { readonly kind: 'parquet'; readonly reading: FileReading; readonly rowGroup: number; readonly firstRow: number };

export interface ImportedUnit {
  readonly packs: RecordPack[];
  readonly rejects: QuarantineEntry[];
  /** Source rows read (CSV data lines, malformed ones included; Parquet rows). */
  readonly rows: number;
  /** Blank CSV lines skipped: with the header and `rows`, every line of the unit is accounted for. */
  readonly blank: number;
  /** Rows of sealed days equal to the sealed rows. */
  readonly alreadyThere: number;
  /** Why the file must be refused (a row of a sealed day that differs), or null. */
  readonly difference: string | null;
  /** `dataset|tradedate` of rows already there: a day left half-sealed by a crash still needs its seal. */
  readonly sealedDays: string[];
}

/**
 * A file's mapper: its mapping compiled against its columns, or the lake's columns of the
 * dataset the plan decided (importPlan.ts checks both before any unit is sent).
 */
export function mapperOf(reading: FileReading, mapping: Mapping | null): RowMapper {
  if (mapping !== null) return compileMapping(mapping, reading.columns, reading.file, reading.dataset ?? undefined);
  if (reading.dataset === null) throw new Error(`${reading.file}: planned without a dataset`);
  return lakeColumnsMapper(reading.dataset, reading.columns, reading.hiveDate);
}

export class UnitImporter {
  private readonly mappers = new Map<string, RowMapper>();
  private readonly mappings = new Map<string, Mapping>();
  private readonly refusals = new Map<string, string | null>();
  private readonly late: LateGuard;
  private readonly sealed: SealedRows;

  constructor(
    private readonly input: ImportWorkerInput,
    catalog: CatalogReader,
  ) {
    this.late = new LateGuard(catalog);
    this.sealed = new SealedRows(catalog, input.dataDir);
  }

  private mapper(reading: FileReading): RowMapper {
    const key = `${reading.file}\0${reading.mapping}\0${reading.dataset}`;
    let m = this.mappers.get(key);
    if (!m) {
      if (this.mappers.size > 64) this.mappers.clear();
      this.mappers.set(key, (m = mapperOf(reading, reading.mapping === null ? null : this.mapping(reading.mapping))));
    }
    return m;
  }

  /** A mapping file, read once per worker (an import of thousands of files uses one). */
  private mapping(path: string): Mapping {
    let m = this.mappings.get(path);
    if (!m) this.mappings.set(path, (m = readMapping(path)));
    return m;
  }

  /** Why a day cannot be imported now (not a trading day, not past yet, …), or null. */
  private refusal(tradedate: string): string | null {
    let r = this.refusals.get(tradedate);
    if (r === undefined) this.refusals.set(tradedate, (r = sealRefusal(tradedate, this.input.nowMs)));
    return r;
  }

  async run(unit: ImportUnit): Promise<ImportedUnit> {
    const packer = new RecordPacker();
    const ofSealedDays: SnapshotRow[] = [];
    const { rows, blank, rejects } = await this.forEachRow(unit, (row) => {
      const refused = this.refusal(row.tradedate);
      if (refused !== null) return `day not importable: ${refused}`;
      if (this.late.isLate(row.dataset, row.tradedate, row.symbol)) ofSealedDays.push(row);
      else packer.add(row);
      return null;
    });
    const sealedDays = [...new Set(ofSealedDays.map((r) => `${r.dataset}|${r.tradedate}`))];
    const { equal, difference } = ofSealedDays.length > 0 ? await this.sealed.compare(ofSealedDays) : { equal: 0, difference: null };
    return { packs: packer.take(), rejects, rows, blank, alreadyThere: equal, difference, sealedDays };
  }

  /**
   * Every source row of the unit mapped and validated, handed to `onRow` (which may still
   * reject it, returning why); bad rows come back as quarantine entries with their source.
   * The import stages what it is given; a restatement (ingest/restate/) collects it.
   */
  async forEachRow(
    unit: ImportUnit,
    onRow: (row: SnapshotRow) => string | null,
  ): Promise<{ readonly rows: number; readonly blank: number; readonly rejects: QuarantineEntry[] }> {
    const mapper = this.mapper(unit.reading);
    const rejects: QuarantineEntry[] = [];
    let rows = 0;
    let blank = 0;
    const file = unit.reading.file;
    const take = (cells: ArrayLike<unknown>): string | null => {
      const m = mapper.map(cells);
      if (typeof m === 'string') return m;
      const v = validateFields(mapper.dataset, m.symbol, m.tradedate, m.time, m.values);
      return v.ok ? onRow(v.row) : v.reason;
    };
    if (unit.kind === 'csv') {
      const text = new TextDecoder('utf-8').decode(unit.bytes);
      let skip = unit.skipFirst;
      // A record of another width than the header is malformed (its cells cannot be told
      // apart), as DuckDB's and pandas' readers hold: one compare per record.
      const width = unit.reading.columns.length;
      blank = forEachCsvRecord(
        text,
        unit.delimiter,
        unit.firstLineNo,
        (cells, lineNo, raw) => {
          if (skip) {
            skip = false;
            return;
          }
          rows++;
          const reason = cells.length === width ? take(cells) : fieldCountReason(cells.length, width);
          if (reason !== null) rejects.push({ source: `${file}:${lineNo}`, reason, raw });
        },
        (lineNo, raw, reason) => {
          // The header was read whole when the import was planned: a malformed line is data.
          rows++;
          rejects.push({ source: `${file}:${lineNo}`, reason, raw });
        },
      );
    } else {
      const group = await readRowGroupCells(file, unit.rowGroup);
      const width = group.columns.length;
      // Per column, the fast reader's numbers (NaN = null) or other cells: decided once, not per cell.
      const numbers = group.columns.map((c) => ('numbers' in c ? c.numbers : null));
      const others = group.columns.map((c) => ('cells' in c ? c.cells : null));
      const cells: unknown[] = new Array(width);
      for (let r = 0; r < group.rows; r++) {
        for (let c = 0; c < width; c++) {
          const nums = numbers[c];
          if (nums !== null) {
            const x = nums[r];
            cells[c] = x !== x ? null : x;
          } else {
            cells[c] = others[c]![r];
          }
        }
        rows++;
        const reason = take(cells);
        if (reason !== null) rejects.push({ source: `${file}#${unit.firstRow + r}`, reason, raw: rawRow(unit.reading.columns, cells) });
      }
    }
    return { rows, blank, rejects };
  }
}

/** A Parquet row as quarantine text: its cells by column name, as JSON. */
function rawRow(columns: readonly string[], cells: readonly unknown[]): string {
  const obj: Record<string, unknown> = {};
  columns.forEach((c, i) => (obj[c] = typeof cells[i] === 'bigint' ? String(cells[i]) : cells[i]));
  return JSON.stringify(obj);
}

if (workerData) {
  const input = workerData as ImportWorkerInput;
  loadCalendarExtension(input.dataDir);
  const importer = new UnitImporter(input, new CatalogReader(openCatalog(input.catalogDb, true)));
  serveWorker<ImportUnit, ImportedUnit>(
    (unit) => importer.run(unit),
    (out) => out.packs.map((p) => p.records.buffer as ArrayBuffer),
  );
}
