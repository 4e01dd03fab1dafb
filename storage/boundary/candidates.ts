/**
 * Boundary candidates (api-contract: tick_history, `side`): the rows a boundary query can answer with. For
 * the minute boundary HH:MM of a symbol-day file, with p = rows before HH:MM:00.000 (the
 * minute index's prefix sum), `after` is row p and `before` row p-1. So rows p-1 and p for
 * every minute start p — the first and last row of each minute that has rows, about a tenth
 * of a 3-second file — answer every minute of the day. They are kept in the tick shape, as
 * the JSON text the server writes, so a boundary answer is read, never re-encoded.
 */
import { SCHEMAS } from '../../shared/schema.js';
import { formatIndexTime, formatLevel2Time, MS_PER_MINUTE } from '../../shared/timeFormat.js';
import { minuteStarts, type MinuteIndex } from '../minuteIndex.js';
import type { DecodedColumn } from '../parquet/reader.js';
import type { SymbolDayColumns } from '../parquet/writer.js';
import { sourceOfFile, tickColumns, tickRowText } from '../tickShape.js';

export interface FileCandidates {
  /** The file's catalog symbol. */
  readonly symbol: string;
  /** Row positions in the file, ascending, unique. */
  readonly positions: Int32Array;
  /** Minute of day of each row. */
  readonly minutes: Int16Array;
  /** Each row's JSON array text, every tick field (SCHEMAS.index order). */
  readonly texts: readonly string[];
}

/** Every tick field, in order: a candidate keeps the whole row. */
export const ALL_TICK_FIELDS: readonly number[] = SCHEMAS.index.fields.map((_, i) => i);

/** Rows p-1 and p for every minute start p of the file's minute index, ascending. */
export function candidatePositions(starts: Uint32Array, rows: number): Int32Array {
  const out: number[] = [];
  let last = -1;
  const add = (p: number) => {
    if (p > last && p >= 0 && p < rows) {
      out.push(p);
      last = p;
    }
  };
  for (let i = 0; i < starts.length; i++) {
    add(starts[i] - 1);
    add(starts[i]);
  }
  return Int32Array.from(out);
}

/**
 * Minute of day of row `position`, from the minute index alone: the last minute whose start is
 * at or before it (minutes without rows share their successor's start).
 */
export function minuteOfRow(idx: MinuteIndex, starts: Uint32Array, position: number): number {
  let lo = 0;
  let hi = idx.counts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (starts[mid] <= position) lo = mid;
    else hi = mid - 1;
  }
  return idx.base + lo;
}

/**
 * The candidates of a symbol-day as the seal writes it (`cols`, the encoder's input), in the
 * text the server would write from the file: the same columns the Parquet file stores, read
 * through the same tick shape. Null for datasets tick_history does not serve.
 */
export function fileCandidates(cols: SymbolDayColumns, idx: MinuteIndex): FileCandidates | null {
  if (cols.dataset !== 'index' && cols.dataset !== 'level2') return null;
  const schema = SCHEMAS[cols.dataset];
  const positions = candidatePositions(minuteStarts(idx), cols.rows);
  const times = Int32Array.from(positions, (p) => cols.timesMs[p]);
  const formatTime = schema.timeForm === 'level2' ? formatLevel2Time : (ms: number) => formatIndexTime(cols.tradedate, ms);
  const valueOf = new Map(schema.valueFields.map((f, i) => [schema.position.get(f.name)!, i]));
  const stored = (c: number): DecodedColumn => {
    const field = schema.fields[c];
    if (field.type === 'string') {
      const constant = field.name === 'symbol' ? cols.symbol : field.name === 'tradedate' ? cols.tradedate : null;
      return { kind: 'string', values: Array.from(times, (ms) => constant ?? formatTime(ms)) };
    }
    const values = cols.values[valueOf.get(c)!];
    return { kind: 'number', values: Float64Array.from(positions, (p) => values[p]) };
  };
  const columns = tickColumns(sourceOfFile(cols), cols.tradedate, ALL_TICK_FIELDS, times, stored);
  const texts = Array.from(positions, (_, k) => tickRowText(columns, k));
  const minutes = Int16Array.from(times, (ms) => Math.floor(ms / MS_PER_MINUTE));
  return { symbol: cols.symbol, positions, minutes, texts };
}
