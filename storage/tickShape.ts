/**
 * The tick shape: where tick_history's rows come from (api-contract: tick_history), for the server and for
 * the seal-time boundary rows alike: index snapshots as stored, or, for `asset=stock`, level-2
 * stock snapshots seen in tick_history's shape: the first five levels,
 * `vol` = `volume`, `transaction_num`, `pre_close` and `pct_chg` null, `symbol` the six digits
 * without suffix, `time` as `YYYY-MM-DD HH:mm:ss.SSS`. Everything downstream (rows, merge,
 * boundary) works on tick fields (positions in SCHEMAS.index) and asks the source which stored
 * column holds each, and how its values read.
 */
import type { DecodedColumn } from './parquet/reader.js';
import { INDEX_ALWAYS_NULL, SCHEMAS, type Dataset } from '../shared/schema.js';
import { formatIndexTime, parseIndexClock, parseLevel2Time } from '../shared/timeFormat.js';

export type Asset = 'index' | 'stock';

export interface TickSource {
  readonly asset: Asset;
  readonly dataset: Extract<Dataset, 'index' | 'level2'>;
  /** Position of the stored `time` column in the dataset's schema. */
  readonly timeColumn: number;
  /** Per tick field, the stored column it is read from; null when the field is always null. */
  readonly columnOf: readonly (number | null)[];
  /** ms since midnight of a stored time text; NaN when malformed. */
  timeMs(text: string): number;
}

const TICK = SCHEMAS.index;
const TICK_TIME = TICK.position.get('time')!;
const TICK_SYMBOL = TICK.position.get('symbol')!;

/** `YYYY-MM-DD HH:mm:ss.SSS` → ms since midnight (the date part is the file's tradedate); NaN when malformed. */
const indexTimeMs = (text: string): number => parseIndexClock(text) ?? NaN;

/** `HHMMSSmmm` (level-2, trade and order files) → ms since midnight; NaN when malformed. */
const level2TimeMs = (text: string): number => parseLevel2Time(text) ?? NaN;

const INDEX_NULL = new Set(INDEX_ALWAYS_NULL.map((name) => TICK.position.get(name)!));

const INDEX_SOURCE: TickSource = {
  asset: 'index',
  dataset: 'index',
  timeColumn: TICK_TIME,
  columnOf: TICK.fields.map((_, i) => (INDEX_NULL.has(i) ? null : i)),
  timeMs: indexTimeMs,
};

/** Stock fields by the name of the level-2 column they come from; absent = always null. */
const STOCK_COLUMN_NAME: Readonly<Record<string, string>> = { vol: 'volume' };
const STOCK_NULL = new Set(['pre_close', 'pct_chg', 'transaction_num']);

const STOCK_SOURCE: TickSource = {
  asset: 'stock',
  dataset: 'level2',
  timeColumn: SCHEMAS.level2.position.get('time')!,
  columnOf: TICK.fields.map((f) => {
    if (STOCK_NULL.has(f.name)) return null;
    const pos = SCHEMAS.level2.position.get(STOCK_COLUMN_NAME[f.name] ?? f.name);
    if (pos === undefined) throw new Error(`tick field ${f.name} has no level-2 column`);
    return pos;
  }),
  timeMs: storedTimeMs('level2'),
};

/**
 * The parser of a stored file's `time` text → ms since midnight (NaN when malformed): index
 * files keep `YYYY-MM-DD HH:mm:ss.SSS`, level-2, trade and order files `HHMMSSmmm`.
 */
export function storedTimeMs(dataset: Dataset): (text: string) => number {
  return dataset === 'index' ? indexTimeMs : level2TimeMs;
}

/** The source of a stored file (by its dataset). */
export function sourceOfFile(file: { readonly dataset: Dataset }): TickSource {
  return file.dataset === 'level2' ? STOCK_SOURCE : INDEX_SOURCE;
}

/** Stored columns to decode for a list of tick fields: the time (always needed) and each field's column. */
export function storedColumns(source: TickSource, fields: readonly number[]): number[] {
  const cols = fields.map((f) => source.columnOf[f]).filter((c): c is number => c !== null);
  return [...new Set([source.timeColumn, ...cols])];
}

/**
 * The tick fields' columns of decoded rows, in `fields` order (null = always null): index
 * columns as stored; for stocks the time rewritten from `timesMs` and the symbol cut to its
 * six digits. `stored(c)` gives the decoded stored column c.
 */
export function tickColumns(
  source: TickSource,
  tradedate: string,
  fields: readonly number[],
  timesMs: Int32Array,
  stored: (column: number) => DecodedColumn,
): (DecodedColumn | null)[] {
  return fields.map((f) => {
    const c = source.columnOf[f];
    if (c === null) return null;
    const col = stored(c);
    if (source.asset === 'index') return col;
    if (f === TICK_TIME) return { kind: 'string', values: Array.from(timesMs, (ms) => formatIndexTime(tradedate, ms)) };
    if (f === TICK_SYMBOL && col.kind === 'string') return { kind: 'string', values: col.values.map((s) => s.slice(0, 6)) };
    return col;
  });
}

/**
 * One row's JSON text, `[v, …]` in `columns` order: null for an always-null field or a missing
 * value. The one serialiser of tick rows: the server's pages (serve/tickHistory/rows.ts) and
 * the seal's boundary rows both write through it.
 */
export function tickRowText(columns: readonly (DecodedColumn | null)[], k: number): string {
  const values = columns.map((col) => {
    if (col === null) return null;
    const v = col.values[k];
    return typeof v === 'number' && v !== v ? null : v;
  });
  return JSON.stringify(values);
}
