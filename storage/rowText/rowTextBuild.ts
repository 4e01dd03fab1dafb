/**
 * Makes and writes a sealed file's row text (rowTextFile.ts), written by the server's own
 * serialiser (rowJson.ts) so it is byte for byte what a page made from the file would hold:
 * from the Parquet bytes, decoded by the server's own reader (`doctor --rebuild`), or, at seal
 * and restatement, from the columns the file was just encoded from, as the reader would give
 * them back (a decode saved: a quarter of the row text's seal time). A test holds the two
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
import { ALL_FIELDS, ROW_BYTES, serializeColumns, serializeRows, type RowColumn, type SerializedRows } from './rowJson.js';
import type { DecodedColumn } from '../parquet/columnChunk.js';
import { timeFormatOf, type SymbolDayColumns } from '../parquet/writer.js';
import { encodeRowText, ROW_TEXT_DEFLATE_LEVEL, rowTextWindowBits } from './rowTextFile.js';

/** The datasets with detailed-history pages: the ones whose files get row text. */
export function hasRowText(dataset: Dataset): boolean {
  return dataset !== 'index';
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
 */
export function columnsAsRead(cols: SymbolDayColumns): DecodedColumn[] {
  const format = timeFormatOf(cols);
  let value = 0;
  return SCHEMAS[cols.dataset].fields.map((f): DecodedColumn => {
    if (f.name === 'symbol') return { kind: 'string', values: new Array<string>(cols.rows).fill(cols.symbol) };
    if (f.name === 'tradedate') return { kind: 'string', values: new Array<string>(cols.rows).fill(cols.tradedate) };
    if (f.name === 'time') return { kind: 'string', values: Array.from(cols.timesMs.subarray(0, cols.rows), format) };
    const values = cols.values[value++]!;
    if (f.type === 'code')
      return { kind: 'nullable-string', values: Array.from(values.subarray(0, cols.rows), (c) => (Number.isNaN(c) ? null : String.fromCharCode(c))) };
    return { kind: 'number', values };
  });
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
