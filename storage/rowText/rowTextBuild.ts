/**
 * Makes and writes a sealed file's row text (rowTextFile.ts) from the Parquet bytes themselves,
 * decoded by the server's own reader and written by the server's own serialiser: so the text
 * is byte for byte what a page made from the file would hold, whatever the seal had in memory.
 * The seal, a restatement and `doctor --rebuild` all come here.
 */
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Dataset } from '../../shared/schema.js';
import type { ByteSource } from '../parquet/byteSource.js';
import { readFooter } from '../parquet/metadata.js';
import { readRowGroups } from '../parquet/reader.js';
import { writeDurably } from '../durableFile.js';
import { rowTextRelPath } from '../layout.js';
import { ALL_FIELDS, ROW_BYTES, serializeRows, type SerializedRows } from './rowJson.js';
import { encodeRowText } from './rowTextFile.js';

/** The datasets with detailed-history pages: the ones whose files get row text. */
export function hasRowText(dataset: Dataset): boolean {
  return dataset !== 'index';
}

/** The row text of the Parquet file `bytes` (SHA-256 `sha256`), every row group in order. */
export async function rowTextOf(bytes: Uint8Array, dataset: Dataset, sha256: string, path: string): Promise<Buffer> {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const source: ByteSource = {
    path,
    read: (target, offset, length, position) => Promise.resolve({ bytesRead: buf.copy(target, offset, position, position + length) }),
  };
  const footer = await readFooter(source, buf.length);
  const all = ALL_FIELDS[dataset];
  const groups: SerializedRows[] = [];
  // One row group at a time: a liquid stock's trades decode to tens of MB all at once.
  for (let g = 0; g < footer.rowGroups.length; g++) {
    const [cols] = await readRowGroups(source, footer, [g], all, path);
    const rows = footer.rowGroups[g]!.numRows;
    groups.push(serializeRows(all.map((c) => cols!.get(c)!), 0, rows, rows * (ROW_BYTES[dataset] ?? 340)));
  }
  return encodeRowText(groups, sha256);
}

/**
 * Writes the row text of the sealed file at `fileRelPath` (whole under its name or absent:
 * writeDurably). Returns its size in bytes.
 */
export async function writeRowText(dataDir: string, fileRelPath: string, dataset: Dataset, bytes: Uint8Array, sha256: string): Promise<number> {
  const text = await rowTextOf(bytes, dataset, sha256, fileRelPath);
  const target = join(dataDir, rowTextRelPath(fileRelPath));
  await mkdir(dirname(target), { recursive: true });
  await writeDurably(target, text);
  return text.length;
}
