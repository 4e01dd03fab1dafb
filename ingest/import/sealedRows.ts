/**
 * "Never a changed sealed day" (api-contract: Import and mirror): an imported row of a sealed
 * symbol-day is compared with the sealed file's row of the same key (time for snapshots, the
 * id for trades and orders). Equal rows are already there and are skipped; any other row (a
 * different value, a key the file lacks, a symbol the sealed day lacks) is a difference, which
 * refuses the whole imported file.
 */
import { join } from 'node:path';
import { SCHEMAS, codeValue, type Dataset, type SnapshotRow } from '../../shared/schema.js';
import type { CatalogReader } from '../../storage/catalog.js';
import { withSyncFile } from '../../storage/parquet/byteSource.js';
import { readFooter } from '../../storage/parquet/metadata.js';
import { readRowGroups, type DecodedColumn } from '../../storage/parquet/reader.js';
import { storedTimeMs } from '../../storage/tickShape.js';
import { formatIndexTime, formatLevel2Time } from '../../shared/timeFormat.js';

/** A sealed symbol-day's rows by key, values as staged (NaN = null, codes as char codes). */
export interface SealedDay {
  readonly byKey: Map<number, number>;
  readonly values: Float64Array[];
  /** Each row's time (ms): the id datasets' key is not the time, which must match too. */
  readonly times: Float64Array;
}

export interface Comparison {
  readonly equal: number;
  /** The first difference, as a phrase (`level2 20240105 600000.SH 093000120: bid1 is 10.24, sealed 10.23`), or null. */
  readonly difference: string | null;
}

const CACHED_DAYS = 8;

export class SealedRows {
  /** Recently read symbol-days (rows of one arrive together). */
  private readonly days = new Map<string, SealedDay | null>();

  constructor(
    private readonly catalog: CatalogReader,
    private readonly dataDir: string,
  ) {}

  async compare(rows: readonly SnapshotRow[]): Promise<Comparison> {
    let equal = 0;
    for (const row of rows) {
      const day = await this.day(row.dataset, row.tradedate, row.symbol);
      const schema = SCHEMAS[row.dataset];
      const key = schema.idValue === null ? row.timeMs : (row.values[schema.idValue] as number);
      // A trade's or order's key is its id: a refusal names it, not only the time, so the row
      // can be found in the file (issue 46).
      const idText = schema.idValue === null ? null : `${schema.valueFields[schema.idValue].name} ${key}`;
      const where = `${row.dataset} ${row.tradedate} ${row.symbol} ${timeText(row)}${idText === null ? '' : ` ${idText}`}`;
      if (day === null) return { equal, difference: `${where}: the sealed day has no rows of ${row.symbol}` };
      const at = day.byKey.get(key);
      if (at === undefined) {
        return { equal, difference: `${where}: no sealed row has ${idText ?? 'this time'}` };
      }
      const sealed = day.values[at];
      for (let j = 0; j < schema.valueFields.length; j++) {
        const mine = row.values[j];
        const theirs = sealed[j];
        const same = mine === null ? Number.isNaN(theirs) : mine === theirs;
        if (!same) {
          const f = schema.valueFields[j];
          return { equal, difference: `${where}: ${f.name} is ${show(f.type, mine)}, sealed ${show(f.type, Number.isNaN(theirs) ? null : theirs)}` };
        }
      }
      if (schema.idValue !== null && day.times[at] !== row.timeMs) {
        return { equal, difference: `${where}: the sealed row of ${idText} has another time, ${timeText({ ...row, timeMs: day.times[at] })}` };
      }
      equal++;
    }
    return { equal, difference: null };
  }

  private async day(dataset: Dataset, tradedate: string, symbol: string): Promise<SealedDay | null> {
    const key = `${dataset}|${tradedate}|${symbol}`;
    if (this.days.has(key)) return this.days.get(key)!;
    const file = this.catalog.file(dataset, tradedate, symbol);
    const day = file === null ? null : await readSealedDay(join(this.dataDir, file.path), dataset);
    if (this.days.size >= CACHED_DAYS) this.days.delete(this.days.keys().next().value!);
    this.days.set(key, day);
    return day;
  }
}

/** A stored file's rows, in file order (the comparison of imports; the base of a restatement). */
export async function readSealedDay(path: string, dataset: Dataset): Promise<SealedDay> {
  const schema = SCHEMAS[dataset];
  return withSyncFile(path, async (source, bytes) => {
    const footer = await readFooter(source, bytes);
    const all = footer.columns.map((_, i) => i);
    const groups = await readRowGroups(
      source,
      footer,
      footer.rowGroups.map((_, g) => g),
      all,
      path,
    );
    const timeAt = schema.position.get('time')!;
    const valueAt = schema.valueFields.map((f) => schema.position.get(f.name)!);
    const parseTime = storedTimeMs(dataset);
    const byKey = new Map<number, number>();
    const values: Float64Array[] = [];
    const timeList: number[] = [];
    for (const cols of groups) {
      const timeTexts = (cols.get(timeAt) as Extract<DecodedColumn, { kind: 'string' }>).values;
      for (let r = 0; r < timeTexts.length; r++) {
        const v = new Float64Array(valueAt.length);
        for (let j = 0; j < valueAt.length; j++) v[j] = cellNumber(cols.get(valueAt[j])!, r);
        const t = parseTime(timeTexts[r]);
        byKey.set(schema.idValue === null ? t : v[schema.idValue], values.length);
        values.push(v);
        timeList.push(t);
      }
    }
    return { byKey, values, times: Float64Array.from(timeList) };
  });
}

function cellNumber(col: DecodedColumn, r: number): number {
  if (col.kind === 'number') return col.values[r];
  const s = col.values[r];
  return s === null ? NaN : codeValue(s);
}

function timeText(row: SnapshotRow): string {
  return row.dataset === 'index' ? formatIndexTime(row.tradedate, row.timeMs) : formatLevel2Time(row.timeMs);
}

function show(type: string, v: number | null): string {
  if (v === null) return 'null';
  return type === 'code' ? String.fromCharCode(v) : String(v);
}
