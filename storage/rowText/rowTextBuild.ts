/**
 * Makes and writes a sealed file's row text (rowTextFile.ts), written by the server's own
 * serialiser (rowJson.ts) so it is byte for byte what a page made from the file would hold:
 * from the Parquet bytes, decoded by the server's own reader (rowTextOf: `doctor --rebuild` and
 * rowTextKeeper.ts, which makes it after a seal has listed its days), or from the columns a file
 * was encoded from (rowTextOfColumns: no decode, no string made per row; unused since the seal
 * stopped making row text, kept for a caller that holds the columns). A test holds the two
 * equal on every dataset.
 */
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { SCHEMAS, type Dataset } from '../../shared/schema.js';
import { bufferSource } from '../parquet/byteSource.js';
import { readFooter } from '../parquet/metadata.js';
import { readRowGroups } from '../parquet/reader.js';
import { writeDurably } from '../../shared/durableFile.js';
import { rowTextRelPath } from '../layout.js';
import { ALL_FIELDS, ROW_BYTES, serializeColumns, serializeRows, writeLevel2TimeDigits, type RowColumn, type SerializedRows } from './rowJson.js';
import { MS_PER_DAY } from '../../shared/timeFormat.js';
import type { DecodedColumn } from '../parquet/columnChunk.js';
import { timeFormatOf, type SymbolDayColumns } from '../parquet/writer.js';
import { encodeRowText, ROW_TEXT_DEFLATE_LEVEL, rowTextWindowBits } from './rowTextFile.js';

/**
 * The datasets whose files get row text: level 2 only, where it buys the most. A full-day
 * level-2 page's first touch is 0.15× DuckDB from row text against 0.25–0.43× from the file,
 * while a 10,000-row trade page's was 5.8 ms from row text against 6.9–7.3 ms from the file
 * (both about 0.15× DuckDB), and trades' and orders' row text cost two thirds of the row
 * text's CPU and bytes (DEFLATE of a liquid stock-day's trades 12 ms and orders 14 ms, against
 * 6.6 ms for its level 2; issue 52).
 */
export function hasRowText(dataset: Dataset): boolean {
  return dataset === 'level2';
}

/** The row text of the Parquet file `bytes` (SHA-256 `sha256`), every row group in order. */
export async function rowTextOf(bytes: Uint8Array, dataset: Dataset, sha256: string, path: string): Promise<Buffer> {
  const source = bufferSource(bytes, path);
  const footer = await readFooter(source, bytes.byteLength);
  const all = ALL_FIELDS[dataset];
  const groups: SerializedRows[] = [];
  // One row group at a time: a liquid stock's trades decode to tens of MB all at once.
  for (let g = 0; g < footer.rowGroups.length; g++) {
    const [cols] = await readRowGroups(source, footer, [g], all, path);
    const rows = footer.rowGroups[g]!.numRows;
    groups.push(
      serializeRows(
        all.map((c) => cols!.get(c)!),
        0,
        rows,
        rows * (ROW_BYTES[dataset] ?? 340),
      ),
    );
  }
  return encodeRowText(groups, sha256, ROW_TEXT_DEFLATE_LEVEL, rowTextWindowBits(dataset));
}

/** The row text of the file just encoded from `cols` (SHA-256 `sha256`), from the columns themselves. */
export function rowTextOfColumns(cols: SymbolDayColumns, rowGroupSize: number, sha256: string): Promise<Buffer> {
  const columns = rowColumnsOf(cols);
  const groups: SerializedRows[] = [];
  for (let from = 0; from < cols.rows; from += rowGroupSize) {
    const to = Math.min(cols.rows, from + rowGroupSize);
    groups.push(serializeColumns(columns, from, to, (to - from) * (ROW_BYTES[cols.dataset] ?? 340)));
  }
  return encodeRowText(groups, sha256, ROW_TEXT_DEFLATE_LEVEL, rowTextWindowBits(cols.dataset));
}

/**
 * The encoder's input columns for serializeColumns, written as columnsAsRead would give them
 * but with no string made per row: symbol and tradedate as constants, level-2 times and codes
 * from their numbers (the index time form, which has no row text, as strings).
 */
export function rowColumnsOf(cols: SymbolDayColumns): RowColumn[] {
  const level2Time = SCHEMAS[cols.dataset].timeForm === 'level2';
  const format = timeFormatOf(cols);
  let value = 0;
  return SCHEMAS[cols.dataset].fields.map((f): RowColumn => {
    if (f.name === 'symbol') return { kind: 'constant', json: Buffer.from(JSON.stringify(cols.symbol)) };
    if (f.name === 'tradedate') return { kind: 'constant', json: Buffer.from(JSON.stringify(cols.tradedate)) };
    if (f.name === 'time')
      return level2Time ? { kind: 'level2-time', ms: cols.timesMs } : { kind: 'string', values: Array.from(cols.timesMs.subarray(0, cols.rows), format) };
    const values = cols.values[value++]!;
    return f.type === 'code' ? { kind: 'code', values } : { kind: 'number', values };
  });
}

/**
 * The encoder's input columns as the reader decodes them from its file (writer.ts): `symbol`
 * and `tradedate` constant, `time` as the writer formats it, codes as their letters (null for
 * none), every other value the same double (NaN for null; int64 ids are integral doubles).
 * The live day's pages are made from these (serve/detailedHistory/livePage.ts).
 */
export function columnsAsRead(cols: SymbolDayColumns): DecodedColumn[] {
  let value = 0;
  return SCHEMAS[cols.dataset].fields.map((f): DecodedColumn => {
    if (f.name === 'symbol') return { kind: 'string', values: new Array<string>(cols.rows).fill(cols.symbol) };
    if (f.name === 'tradedate') return { kind: 'string', values: new Array<string>(cols.rows).fill(cols.tradedate) };
    if (f.name === 'time') return { kind: 'string', values: timeStrings(cols) };
    const values = cols.values[value++]!;
    if (f.type === 'code') return { kind: 'nullable-string', values: codeStrings(values, cols.rows) };
    return { kind: 'number', values };
  });
}

/** One-letter strings of the character codes below 128, made once. */
const LETTERS = Array.from({ length: 128 }, (_, c) => String.fromCharCode(c));

/** Codes as their letters (null for NaN), as String.fromCharCode gives them. */
function codeStrings(values: Float64Array, rows: number): (string | null)[] {
  const out = new Array<string | null>(rows);
  for (let r = 0; r < rows; r++) {
    const c = values[r]!;
    out[r] = c !== c ? null : c >= 0 && c < 128 && (c | 0) === c ? LETTERS[c]! : String.fromCharCode(c);
  }
  return out;
}

/**
 * The `time` column as the writer formats it (timeFormatOf). Level-2 times are written as
 * digits into one buffer and cut from one string of it, as the Parquet reader cuts a page's
 * strings (storage/parquet/plain.ts): formatLevel2Time per row, concatenating its parts, took
 * most of columnsAsRead's 22–31 ms on a liquid stock's 33,907 trades (bench/rowText.bench.ts).
 */
function timeStrings(cols: SymbolDayColumns): string[] {
  const rows = cols.rows;
  const times = cols.timesMs;
  const format = timeFormatOf(cols);
  if (SCHEMAS[cols.dataset].timeForm !== 'level2') return Array.from(times.subarray(0, rows), format);
  const digits = Buffer.allocUnsafe(rows * 9);
  for (let r = 0; r < rows; r++) {
    const ms = times[r]!;
    if (ms >= 0 && ms < MS_PER_DAY) writeLevel2TimeDigits(digits, r * 9, ms);
  }
  const text = digits.toString('latin1');
  const out = new Array<string>(rows);
  for (let r = 0; r < rows; r++) {
    const ms = times[r]!;
    out[r] = ms >= 0 && ms < MS_PER_DAY ? text.substring(r * 9, r * 9 + 9) : format(ms);
  }
  return out;
}

/**
 * Writes row text made for the sealed file at `fileRelPath` (whole under its name or absent:
 * writeDurably). Returns its size in bytes.
 */
export async function writeRowText(dataDir: string, fileRelPath: string, text: Buffer): Promise<number> {
  const target = join(dataDir, rowTextRelPath(fileRelPath));
  await mkdir(dirname(target), { recursive: true });
  await writeDurably(target, text);
  return text.length;
}
