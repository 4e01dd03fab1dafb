import { open, type FileHandle } from 'node:fs/promises';
import { Codec, Encoding, PageType, PhysicalType, UnsupportedParquetError } from './format.js';
import type { ColumnDesc, ParquetFooter } from './metadata.js';
import { CompactReader, num, struct } from './thrift.js';
import { zstdDecompress } from './zstd.js';
import type { ByteSource } from './byteSource.js';

/**
 * A dedicated reader for the sealed files this project writes (storage/parquet/writer.ts):
 * flat schema, v1 data pages, PLAIN or dictionary encoding, OPTIONAL columns with RLE
 * definition levels, ZSTD or no compression. It reads only the byte ranges of the row groups
 * asked for, decompresses every page of them at once in libuv's thread pool (native zstd),
 * and decodes numbers straight into Float64Arrays (NaN = null: the feed is JSON, which has no
 * NaN, so the sentinel cannot collide with a value).
 *
 * Anything outside that subset throws `UnsupportedParquetError`; the caller may fall back to
 * a general reader. Files are immutable, so a parsed footer is valid forever.
 */
const latin1 = new TextDecoder('latin1');
const utf8 = new TextDecoder('utf-8');

// ---- Pages -------------------------------------------------------------------------------

/** A decoded column chunk: numbers (NaN = null), strings, or strings and nulls. */
export type DecodedColumn =
  | { readonly kind: 'number'; readonly values: Float64Array }
  | { readonly kind: 'string'; readonly values: readonly string[] }
  /** An OPTIONAL string column (the code columns: bs_flag, side, …), null for null. */
  | { readonly kind: 'nullable-string'; readonly values: readonly (string | null)[] };

interface RawPage {
  readonly type: number;
  readonly numValues: number;
  readonly encoding: number;
  readonly uncompressedSize: number;
  readonly body: Uint8Array;
}

function splitPages(buf: Uint8Array, start: number, end: number): RawPage[] {
  const pages: RawPage[] = [];
  let pos = start;
  while (pos < end) {
    const r = new CompactReader(buf, pos);
    const h = r.struct();
    const type = num(h[1], 'page type');
    const uncompressedSize = num(h[2], 'uncompressed_page_size');
    const compressedSize = num(h[3], 'compressed_page_size');
    const body = buf.subarray(r.pos, r.pos + compressedSize);
    if (body.length !== compressedSize) throw new UnsupportedParquetError('truncated page');
    pos = r.pos + compressedSize;
    if (type === PageType.DATA_PAGE) {
      const dh = struct(h[5], 'data page header');
      pages.push({ type, numValues: num(dh[1], 'num_values'), encoding: num(dh[2], 'encoding'), uncompressedSize, body });
    } else if (type === PageType.DICTIONARY_PAGE) {
      const dh = struct(h[7], 'dictionary page header');
      pages.push({ type, numValues: num(dh[1], 'num_values'), encoding: num(dh[2], 'encoding'), uncompressedSize, body });
    } else if (type === PageType.INDEX_PAGE) {
      continue; // index page: nothing to decode
    } else {
      throw new UnsupportedParquetError(`page type ${type} is not supported`);
    }
  }
  return pages;
}

/** RLE / bit-packed hybrid decoding of `count` values of `bitWidth` bits into `out`. */
function decodeHybrid(buf: Uint8Array, pos: number, end: number, bitWidth: number, count: number, out: Int32Array): void {
  let n = 0;
  const byteWidth = (bitWidth + 7) >> 3;
  const mask = bitWidth === 32 ? -1 : (1 << bitWidth) - 1;
  while (n < count && pos < end) {
    let header = 0;
    let mul = 1;
    for (;;) {
      const b = buf[pos++];
      header += (b & 0x7f) * mul;
      if (b < 0x80) break;
      mul *= 128;
    }
    if (header % 2 === 0) {
      const run = header / 2;
      let v = 0;
      for (let i = 0; i < byteWidth; i++) v |= buf[pos++] << (8 * i);
      const stop = Math.min(count, n + run);
      while (n < stop) out[n++] = v;
    } else {
      const values = ((header - 1) / 2) * 8;
      let bitPos = 0;
      const base = pos;
      for (let i = 0; i < values; i++) {
        let v = 0;
        for (let b = 0; b < bitWidth; b++, bitPos++) {
          if (buf[base + (bitPos >> 3)] & (1 << (bitPos & 7))) v |= 1 << b;
        }
        if (n < count) out[n++] = v & mask;
      }
      pos = base + ((values * bitWidth + 7) >> 3);
    }
  }
  if (n < count) throw new UnsupportedParquetError('definition levels or indices end early');
}

function plainStrings(buf: Uint8Array, count: number, decoder: { decode(b: Uint8Array): string }): string[] {
  const out = new Array<string>(count);
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  // ASCII text (times, codes, symbols: all this project writes) decodes once for the whole
  // page; each value is then a substring at its byte offset. A TextDecoder call per value
  // was most of a first-touch page's decode (measured on a 10,000-row trade page).
  if (isAscii(buf)) {
    const text = latin1.decode(buf);
    let pos = 0;
    for (let i = 0; i < count; i++) {
      const len = view.getUint32(pos, true);
      pos += 4;
      out[i] = text.substring(pos, pos + len);
      pos += len;
    }
    return out;
  }
  let pos = 0;
  for (let i = 0; i < count; i++) {
    const len = view.getUint32(pos, true);
    pos += 4;
    out[i] = decoder.decode(buf.subarray(pos, pos + len));
    pos += len;
  }
  return out;
}

/** Every byte below 0x80 (length prefixes too): latin1 and UTF-8 then read the values alike, one char a byte. */
function isAscii(buf: Uint8Array): boolean {
  for (let i = 0; i < buf.length; i++) if (buf[i] >= 0x80) return false;
  return true;
}

function plainNumbers(buf: Uint8Array, pos: number, count: number, physicalType: number): Float64Array {
  const out = new Float64Array(count);
  if (physicalType === PhysicalType.DOUBLE) {
    if ((buf.byteOffset + pos) % 8 === 0) {
      out.set(new Float64Array(buf.buffer, buf.byteOffset + pos, count));
    } else {
      new Uint8Array(out.buffer).set(buf.subarray(pos, pos + count * 8));
    }
  } else {
    const view = new DataView(buf.buffer, buf.byteOffset + pos, count * 8);
    // Two 32-bit words instead of a BigInt per value (ids are INT64: a BigInt each was the
    // costliest part of decoding a trade page); exact for every safe integer, which is all
    // the writer stores.
    for (let i = 0; i < count; i++) out[i] = view.getInt32(i * 8 + 4, true) * 4294967296 + view.getUint32(i * 8, true);
  }
  return out;
}

/** Decodes one column chunk's pages (already decompressed) into `rows` values. */
function decodeChunk(col: ColumnDesc, pages: readonly { page: RawPage; data: Uint8Array }[], rows: number): DecodedColumn {
  const isString = col.physicalType === PhysicalType.BYTE_ARRAY;
  if (!isString && col.physicalType !== PhysicalType.DOUBLE && col.physicalType !== PhysicalType.INT64) {
    throw new UnsupportedParquetError(`physical type ${col.physicalType} of ${col.name} is not supported`);
  }
  const numbers = isString ? null : new Float64Array(rows).fill(NaN);
  let strings: (string | null)[] | null = isString ? new Array<string | null>(rows).fill(null) : null;
  let dictStrings: string[] | null = null;
  let dictNumbers: Float64Array | null = null;
  let row = 0;
  const defs = new Int32Array(rows);
  for (const { page, data } of pages) {
    if (page.type === PageType.DICTIONARY_PAGE) {
      if (page.encoding !== Encoding.PLAIN && page.encoding !== Encoding.PLAIN_DICTIONARY) throw new UnsupportedParquetError('dictionary encoding');
      if (isString) dictStrings = plainStrings(data, page.numValues, utf8);
      else dictNumbers = plainNumbers(data, 0, page.numValues, col.physicalType);
      continue;
    }
    const n = page.numValues;
    if (row + n > rows) throw new UnsupportedParquetError('more values than rows');
    let pos = 0;
    let present = n;
    if (col.optional) {
      const len = data[0] | (data[1] << 8) | (data[2] << 16) | (data[3] << 24);
      decodeHybrid(data, 4, 4 + len, 1, n, defs);
      pos = 4 + len;
      present = 0;
      for (let i = 0; i < n; i++) present += defs[i];
    }
    const body = data.subarray(pos);
    if (page.encoding === Encoding.PLAIN) {
      if (isString) {
        const vals = plainStrings(body, present, isTimeLike(col) ? latin1 : utf8);
        if (!col.optional && row === 0 && n === rows) strings = vals; // one page, every row: no copy
        else scatter(vals, strings!, row, n, col.optional ? defs : null);
      } else {
        const vals = plainNumbers(body, 0, present, col.physicalType);
        if (!col.optional || present === n) numbers!.set(vals, row);
        else for (let i = 0, k = 0; i < n; i++) if (defs[i]) numbers![row + i] = vals[k++];
      }
    } else if (page.encoding === Encoding.RLE_DICTIONARY || page.encoding === Encoding.PLAIN_DICTIONARY) {
      const idx = new Int32Array(present);
      decodeHybrid(body, 1, body.length, body[0], present, idx);
      if (isString) {
        if (!dictStrings) throw new UnsupportedParquetError('dictionary page missing');
        const dict = dictStrings;
        const out = strings!;
        if (!col.optional) for (let i = 0; i < n; i++) out[row + i] = dict[idx[i]];
        else for (let i = 0, k = 0; i < n; i++) if (defs[i]) out[row + i] = dict[idx[k++]];
      } else {
        if (!dictNumbers) throw new UnsupportedParquetError('dictionary page missing');
        for (let i = 0, k = 0; i < n; i++) if (!col.optional || defs[i]) numbers![row + i] = dictNumbers[idx[k++]];
      }
    } else {
      throw new UnsupportedParquetError(`encoding ${page.encoding} of ${col.name} is not supported`);
    }
    row += n;
  }
  if (row !== rows) throw new UnsupportedParquetError(`${col.name}: ${row} values for ${rows} rows`);
  if (numbers) return { kind: 'number', values: numbers };
  if (col.optional) return { kind: 'nullable-string', values: strings! };
  return { kind: 'string', values: strings as string[] };
}

function isTimeLike(col: ColumnDesc): boolean {
  // ASCII-only columns decode faster as latin1; `time` is digits and punctuation.
  return col.name === 'time';
}

function scatter(vals: string[], out: (string | null)[], row: number, n: number, defs: Int32Array | null): void {
  if (!defs) {
    for (let i = 0; i < n; i++) out[row + i] = vals[i];
    return;
  }
  for (let i = 0, k = 0; i < n; i++) if (defs[i]) out[row + i] = vals[k++];
}

/**
 * Decompresses the bodies of a row group's pages. ZSTD frames may be concatenated and a zstd
 * decoder returns the concatenation of their contents, so all ZSTD pages of one row group go
 * to the thread pool as ONE call (measured 2-3x faster than a call per page: per-call
 * overhead dominates pages of ~10 KB), then the output is split at the pages' known sizes.
 */
async function decompressPages(pages: readonly { codec: number; page: RawPage }[]): Promise<Uint8Array[]> {
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
  const plain = await zstdDecompress(input);
  if (plain.length !== zstdOut) throw new UnsupportedParquetError('decompressed size differs from the page headers');
  pos = 0;
  for (const i of zstd) {
    out[i] = plain.subarray(pos, pos + pages[i].page.uncompressedSize);
    pos += pages[i].page.uncompressedSize;
  }
  return out;
}

/**
 * Decodes the given columns of the given row groups of an open file. Returns, per requested
 * row group, the decoded columns by column position (only those requested are present).
 * Row groups are read and decompressed concurrently.
 */
export async function readRowGroups(
  fh: ByteSource,
  footer: ParquetFooter,
  rowGroups: readonly number[],
  columns: readonly number[],
): Promise<Map<number, DecodedColumn>[]> {
  return Promise.all(
    rowGroups.map(async (g) => {
      const rg = footer.rowGroups[g];
      if (!rg) throw new RangeError(`row group ${g} does not exist`);
      const lo = Math.min(...columns.map((c) => rg.chunks[c].start));
      const hi = Math.max(...columns.map((c) => rg.chunks[c].start + rg.chunks[c].length));
      const buf = Buffer.allocUnsafe(hi - lo);
      const { bytesRead } = await fh.read(buf, 0, hi - lo, lo);
      if (bytesRead !== hi - lo) throw new UnsupportedParquetError('file shorter than its footer says');
      const perColumn = columns.map((c) => {
        const ch = rg.chunks[c];
        return { c, codec: ch.codec, pages: splitPages(buf, ch.start - lo, ch.start - lo + ch.length) };
      });
      const flat = perColumn.flatMap(({ codec, pages }) => pages.map((page) => ({ codec, page })));
      const data = await decompressPages(flat);
      const out = new Map<number, DecodedColumn>();
      let k = 0;
      for (const { c, pages } of perColumn) {
        const decoded = pages.map((page) => ({ page, data: data[k++] }));
        out.set(c, decodeChunk(footer.columns[c], decoded, rg.numRows));
      }
      return out;
    }),
  );
}

/** Opens a file, runs `fn` with its handle, closes it. */
export async function withFile<T>(path: string, fn: (fh: FileHandle) => Promise<T>): Promise<T> {
  const fh = await open(path, 'r');
  try {
    return await fn(fh);
  } finally {
    await fh.close();
  }
}
