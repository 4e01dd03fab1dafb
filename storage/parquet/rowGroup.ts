/**
 * One row group, read and decoded by its plan (readPlan.ts): the planned byte ranges read
 * into one buffer, every page of the requested chunks decompressed at once in libuv's thread
 * pool (native zstd), each chunk decoded into a DecodedColumn.
 */
import { DamagedFileError } from '../damagedFile.js';
import type { ByteSource } from './byteSource.js';
import { decodeChunk, type DecodedColumn } from './columnChunk.js';
import { PhysicalType } from './format.js';
import type { ParquetFooter } from './metadata.js';
import { decompressPages, splitPages } from './page.js';
import type { RowGroupReadPlan } from './readPlan.js';

/**
 * Reads and decodes the chunks `plan` names; returns them by column position, in the order of
 * `columns` (the columns the plan was made for). `file` names the file in a DamagedFileError.
 */
export async function readRowGroup(
  source: ByteSource,
  footer: ParquetFooter,
  plan: RowGroupReadPlan,
  columns: readonly number[],
  file: string,
): Promise<Map<number, DecodedColumn>> {
  const total = plan.reads.reduce((sum, r) => sum + r.length, 0);
  const buf = Buffer.allocUnsafe(total);
  // Where each chunk lies in `buf`: the reads are laid end to end in it.
  const at = new Map<number, { begin: number; end: number; codec: number }>();
  let offset = 0;
  const reads = plan.reads.map((r) => {
    const into = offset;
    for (const ch of r.chunks) {
      const begin = into + (ch.start - r.start);
      at.set(ch.column, { begin, end: begin + ch.length, codec: footer.rowGroups[plan.group].chunks[ch.column].codec });
    }
    offset += r.length;
    return readFully(source, buf, into, r.length, r.start, file);
  });
  await Promise.all(reads);

  const perColumn = [...new Set(columns)].map((c) => {
    const ch = at.get(c);
    if (!ch) throw new RangeError(`column ${c} is not in the read plan of row group ${plan.group}`);
    return { c, codec: ch.codec, pages: splitPages(buf, ch.begin, ch.end, file) };
  });
  const flat = perColumn.flatMap(({ codec, pages }) => pages.map((page) => ({ codec, page })));
  const data = await decompressPages(flat, file);
  const out = new Map<number, DecodedColumn>();
  // The numeric columns' values in one buffer, a slice each: one allocation a row group
  // instead of one a column (a level-2 group has 47 numeric columns). A slice kept alone (a
  // cache that evicted its siblings) holds the whole buffer; a group's columns are decoded
  // and read together, so they leave an LRU close together and its 8 bytes a value holds.
  const numeric = perColumn.filter(({ c }) => footer.columns[c].physicalType !== PhysicalType.BYTE_ARRAY).length;
  const arena = new Float64Array(numeric * plan.numRows);
  let slot = 0;
  let k = 0;
  for (const { c, pages } of perColumn) {
    const decoded = pages.map((page) => ({ page, data: data[k++] }));
    const col = footer.columns[c];
    const into = col.physicalType === PhysicalType.BYTE_ARRAY ? undefined : arena.subarray(slot * plan.numRows, ++slot * plan.numRows);
    try {
      out.set(c, decodeChunk(col, decoded, plan.numRows, file, into));
    } catch (e) {
      // Values running past the end of their page (a length prefix, a count of doubles)
      // surface as RangeError from the typed-array views; that is a damaged page.
      if (e instanceof RangeError) throw new DamagedFileError(file, `column ${col.name}: ${e.message}`, { cause: e });
      throw e;
    }
  }
  return out;
}

/** `length` bytes at `position` into `buf[offset..]`; a file that ends first is damaged (its footer promised them). */
async function readFully(source: ByteSource, buf: Uint8Array, offset: number, length: number, position: number, file: string): Promise<void> {
  let done = 0;
  while (done < length) {
    const { bytesRead } = await source.read(buf, offset + done, length - done, position + done);
    if (bytesRead === 0) {
      throw new DamagedFileError(file, `file shorter than its footer says: ${length - done} bytes missing at offset ${position + done}`);
    }
    done += bytesRead;
  }
}
