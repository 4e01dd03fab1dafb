/**
 * Pages of a column chunk: their headers read off the chunk's bytes (`splitPages`), and their
 * bodies decompressed (`decompressPages`), all pages of a row group at once.
 */
import { DamagedFileError } from '../damagedFile.js';
import { Codec, PageType, UnsupportedParquetError } from './format.js';
import { CompactReader, num, struct } from './thrift.js';
import { zstdDecompress } from './zstd.js';

export interface RawPage {
  readonly type: number;
  readonly numValues: number;
  readonly encoding: number;
  /** Encoding of the definition levels (data pages; RLE is the only one decoded). */
  readonly definitionEncoding: number | undefined;
  readonly uncompressedSize: number;
  /** The page's stored (possibly compressed) body, a view into the bytes read. */
  readonly body: Uint8Array;
}

/**
 * The pages of the column chunk at `buf[start..end)`. `file` names the file in a
 * DamagedFileError when a page does not fit its chunk.
 */
export function splitPages(buf: Uint8Array, start: number, end: number, file: string): RawPage[] {
  const pages: RawPage[] = [];
  let pos = start;
  while (pos < end) {
    const r = new CompactReader(buf, pos);
    const h = r.struct();
    const type = num(h[1], 'page type');
    const uncompressedSize = num(h[2], 'uncompressed_page_size');
    const compressedSize = num(h[3], 'compressed_page_size');
    // `buf` may hold the next chunk too: a page running past its own chunk's end is damage,
    // not more data.
    if (compressedSize < 0 || r.pos + compressedSize > end) {
      throw new DamagedFileError(file, `truncated page: ${compressedSize} bytes at ${r.pos - start} of a ${end - start}-byte column chunk`);
    }
    const body = buf.subarray(r.pos, r.pos + compressedSize);
    pos = r.pos + compressedSize;
    if (type === PageType.DATA_PAGE) {
      const dh = struct(h[5], 'data page header');
      const definitionEncoding = dh[3] === undefined ? undefined : num(dh[3], 'definition_level_encoding');
      pages.push({ type, numValues: num(dh[1], 'num_values'), encoding: num(dh[2], 'encoding'), definitionEncoding, uncompressedSize, body });
    } else if (type === PageType.DICTIONARY_PAGE) {
      const dh = struct(h[7], 'dictionary page header');
      pages.push({ type, numValues: num(dh[1], 'num_values'), encoding: num(dh[2], 'encoding'), definitionEncoding: undefined, uncompressedSize, body });
    } else if (type === PageType.INDEX_PAGE) {
      continue; // index page: nothing to decode
    } else {
      throw new UnsupportedParquetError(`page type ${type} is not supported`);
    }
  }
  return pages;
}

/**
 * Decompresses the bodies of a row group's pages. ZSTD frames may be concatenated and a zstd
 * decoder returns the concatenation of their contents, so all ZSTD pages of one row group go
 * to the thread pool as ONE call (measured 2-3x faster than a call per page: per-call
 * overhead dominates pages of ~10 KB), then the output is split at the pages' known sizes.
 */
export async function decompressPages(pages: readonly { codec: number; page: RawPage }[], file: string): Promise<Uint8Array[]> {
  const out: Uint8Array[] = new Array(pages.length);
  const zstd: number[] = [];
  let zstdIn = 0;
  let zstdOut = 0;
  pages.forEach(({ codec, page }, i) => {
    if (codec === Codec.UNCOMPRESSED) out[i] = page.body;
    else if (codec !== Codec.ZSTD) throw new UnsupportedParquetError(`codec ${codec} is not supported`);
    else if (page.uncompressedSize === 0) out[i] = new Uint8Array(0);
    else {
      zstd.push(i);
      zstdIn += page.body.length;
      zstdOut += page.uncompressedSize;
    }
  });
  if (zstd.length === 0) return out;
  const input = Buffer.allocUnsafe(zstdIn);
  let pos = 0;
  for (const i of zstd) {
    input.set(pages[i].page.body, pos);
    pos += pages[i].page.body.length;
  }
  let plain: Buffer;
  try {
    plain = await zstdDecompress(input);
  } catch (e) {
    throw new DamagedFileError(file, `zstd pages do not decompress: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  if (plain.length !== zstdOut) {
    throw new DamagedFileError(file, `pages decompress to ${plain.length} bytes, their headers say ${zstdOut}`);
  }
  pos = 0;
  for (const i of zstd) {
    out[i] = plain.subarray(pos, pos + pages[i].page.uncompressedSize);
    pos += pages[i].page.uncompressedSize;
  }
  return out;
}
