/**
 * A dedicated reader for the sealed files this project writes (storage/parquet/writer.ts):
 * flat schema, v1 data pages, PLAIN or dictionary encoding, OPTIONAL columns with RLE
 * definition levels, ZSTD or no compression. It plans from the footer exactly the column
 * chunks asked for (readPlan.ts), reads only those bytes, and decodes them (rowGroup.ts:
 * pages in page.ts, values in plain.ts and hybrid.ts, columns in columnChunk.ts).
 *
 * Two errors, for two different callers' needs: anything outside that subset throws
 * `UnsupportedParquetError`, and the caller may fall back to a general reader; a file that
 * contradicts its own footer or page headers (shorter than the footer says, a page past its
 * chunk, pages that do not decompress to their stated size) throws `DamagedFileError`, which
 * no other reader would fix. Files are immutable, so a parsed footer is valid forever.
 */
import { open, type FileHandle } from 'node:fs/promises';
import type { ByteSource } from './byteSource.js';
import type { DecodedColumn } from './columnChunk.js';
import type { ParquetFooter } from './metadata.js';
import { planRowGroupReads } from './readPlan.js';
import { readRowGroup } from './rowGroup.js';

export type { DecodedColumn } from './columnChunk.js';
export { planRowGroupReads, type ByteRange, type ChunkRange, type RowGroupReadPlan } from './readPlan.js';

/** What a DamagedFileError says when nobody told the reader which file it is reading. */
const UNNAMED_FILE = '(parquet file)';

/**
 * The paths of handles opened by `withFile`, so a DamagedFileError can name the file without
 * every caller passing it along (a FileHandle does not know its path).
 */
const handlePaths = new WeakMap<object, string>();

/**
 * Decodes the given columns of the given row groups of an open file. Returns, per requested
 * row group, the decoded columns by column position (only those requested are present).
 * Row groups are read and decompressed concurrently. `path` names the file in a
 * DamagedFileError; by default the source's own `path`, or the one `withFile` opened.
 */
export async function readRowGroups(
  fh: ByteSource,
  footer: ParquetFooter,
  rowGroups: readonly number[],
  columns: readonly number[],
  path?: string,
): Promise<Map<number, DecodedColumn>[]> {
  const file = path ?? fh.path ?? handlePaths.get(fh) ?? UNNAMED_FILE;
  const plans = planRowGroupReads(footer, rowGroups, columns);
  return Promise.all(plans.map((plan) => readRowGroup(fh, footer, plan, columns, file)));
}

/** Opens a file, runs `fn` with its handle, closes it. */
export async function withFile<T>(path: string, fn: (fh: FileHandle) => Promise<T>): Promise<T> {
  const fh = await open(path, 'r');
  handlePaths.set(fh, path);
  try {
    return await fn(fh);
  } finally {
    await fh.close();
  }
}
