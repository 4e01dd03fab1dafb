/**
 * Encodes one sealed symbol-day into a complete ZSTD Parquet file.
 *
 * Hand-written rather than built on a library: hyparquet-writer only takes synchronous
 * compressors (Node 20 has no synchronous zstd) and builds pages from JS arrays; run twice to
 * bolt the async compressor on, it measured ~37k rows/s, and @dsnp/parquetjs ~13.5k, against
 * a 100k target. Here every page is laid out straight from the typed arrays and handed to
 * @mongodb-js/zstd as soon as it is built, so the thread pool compresses earlier pages while
 * this thread builds later ones, and the file is only assembled once all have come back.
 *
 * Layout: one v1 data page per column chunk (the server reads whole row groups); numeric
 * columns OPTIONAL + PLAIN with RLE definition levels; `symbol`/`tradedate` (constant in a
 * symbol-day) dictionary-encoded with a single entry; `time` PLAIN; code columns (bs_flag,
 * side, …: one letter of a few) OPTIONAL, dictionary-encoded.
 */
import { endianness } from 'node:os';
import { SCHEMAS, type Dataset, type FieldDef } from '../../shared/schema.js';
import { formatIndexTime, formatLevel2Time, MS_PER_DAY } from '../../shared/timeFormat.js';
import { Encoding, PhysicalType, Repetition } from './format.js';
import { fileMetaData, pageHeader, type ColumnChunkMeta, type RowGroupMeta, type SchemaLeaf, type Statistics } from './metadata.js';
import { zstdCompress } from './zstd.js';

export interface SymbolDayColumns {
  dataset: Dataset;
  symbol: string; // canonical, e.g. '600000.SH' (level2) or '000300' (index)
  tradedate: string; // YYYYMMDD
  rows: number;
  timesMs: Int32Array; // ms since midnight, ascending, length rows
  values: Float64Array[]; // one per SCHEMAS[dataset].valueFields entry, length rows, NaN = null; codes as character codes
}

export interface EncodeOptions {
  rowGroupSize: number;
  /**
   * ZSTD level, default 3. Keep it at or below ~9: with @mongodb-js/zstd, high levels are
   * drastically slower on many small pages (measured 8.6 s at 12 vs 30 ms at 3 for 2,345 rows).
   */
  compressionLevel?: number;
  /** Key-value metadata of the footer; a sealed file (version 1) has none, so its bytes stay what every site wrote. */
  keyValues?: readonly (readonly [string, string])[];
}

/** zstd's own default, and DuckDB's for Parquet. */
export const DEFAULT_ZSTD_LEVEL = 3;
export const PARQUET_CREATED_BY = 'tickvault version 0.1.0';

// Typed-array bytes are copied into pages as they are; Parquet is little-endian.
if (endianness() !== 'LE') throw new Error('parquetEncode requires a little-endian host');

const MAGIC = Buffer.from('PAR1', 'latin1');
const utf8 = new TextEncoder();

interface PendingPage {
  kind: 'data' | 'dictionary';
  numValues: number;
  encoding: Encoding;
  uncompressedSize: number;
  /** Index into the batch of compressed bodies. */
  body: number;
}

interface PendingChunk {
  leaf: SchemaLeaf;
  encodings: readonly Encoding[];
  numValues: number;
  statistics: Statistics;
  pages: PendingPage[];
}

const PLAIN_OPTIONAL: readonly Encoding[] = [Encoding.PLAIN, Encoding.RLE];
const PLAIN_REQUIRED: readonly Encoding[] = [Encoding.PLAIN];
const DICTIONARY: readonly Encoding[] = [Encoding.PLAIN, Encoding.RLE_DICTIONARY];
const DICTIONARY_OPTIONAL: readonly Encoding[] = [Encoding.PLAIN, Encoding.RLE, Encoding.RLE_DICTIONARY];

/** What collectDefined found in a chunk's rows. */
interface DefinedValues {
  readonly count: number;
  readonly min: number;
  readonly max: number;
  readonly nRuns: number;
  readonly firstDefined: boolean;
}

function leafOf(f: FieldDef): SchemaLeaf {
  if (f.type === 'string') {
    return { name: f.name, type: PhysicalType.BYTE_ARRAY, repetition: Repetition.REQUIRED, utf8: true };
  }
  if (f.type === 'code') {
    return { name: f.name, type: PhysicalType.BYTE_ARRAY, repetition: Repetition.OPTIONAL, utf8: true };
  }
  const type = f.type === 'int64' ? PhysicalType.INT64 : PhysicalType.DOUBLE;
  return { name: f.name, type, repetition: Repetition.OPTIONAL, utf8: false };
}

function checkInput(cols: SymbolDayColumns, opts: EncodeOptions): void {
  const schema = SCHEMAS[cols.dataset];
  if (!schema) throw new Error(`unknown dataset ${String(cols.dataset)}`);
  const { rows } = cols;
  if (!Number.isInteger(rows) || rows <= 0) throw new RangeError(`rows must be a positive integer, got ${rows}`);
  if (!Number.isInteger(opts.rowGroupSize) || opts.rowGroupSize <= 0) {
    throw new RangeError(`rowGroupSize must be a positive integer, got ${opts.rowGroupSize}`);
  }
  if (opts.compressionLevel !== undefined && !Number.isInteger(opts.compressionLevel)) {
    throw new RangeError(`compressionLevel must be an integer, got ${opts.compressionLevel}`);
  }
  if (cols.timesMs.length !== rows) throw new RangeError(`timesMs has ${cols.timesMs.length} entries, expected ${rows}`);
  if (cols.values.length !== schema.valueFields.length) {
    throw new RangeError(`${cols.values.length} value columns, ${cols.dataset} has ${schema.valueFields.length}`);
  }
  cols.values.forEach((v, i) => {
    if (v.length !== rows) {
      throw new RangeError(`${schema.valueFields[i].name} has ${v.length} entries, expected ${rows}`);
    }
  });
}

/** The text of the `time` column for a time of the day (ms), as this writer stores it. */
export function timeFormatOf(cols: Pick<SymbolDayColumns, 'dataset' | 'tradedate'>): (ms: number) => string {
  return SCHEMAS[cols.dataset].timeForm === 'level2' ? formatLevel2Time : (ms: number) => formatIndexTime(cols.tradedate, ms);
}

/**
 * The whole day's `time` column as PLAIN byte-array values, so a row group's page is a
 * zero-copy slice: every formatted time has the same width, hence the same stride.
 */
function encodeTimes(cols: SymbolDayColumns): { plain: Buffer; stride: number; sorted: boolean } {
  const format = timeFormatOf(cols);
  const width = format(0).length;
  const stride = 4 + width;
  const plain = Buffer.allocUnsafe(cols.rows * stride);
  const times = cols.timesMs;
  let sorted = true;
  for (let i = 0, p = 0; i < cols.rows; i++, p += stride) {
    const ms = times[i];
    if (ms < 0 || ms >= MS_PER_DAY) throw new RangeError(`time ${ms} ms is outside the day (row ${i})`);
    if (i > 0 && ms < times[i - 1]) sorted = false;
    const text = format(ms);
    plain.writeUInt32LE(width, p);
    for (let k = 0; k < width; k++) plain[p + 4 + k] = text.charCodeAt(k);
  }
  return { plain, stride, sorted };
}

const f64 = new Float64Array(1);
const f64Bytes = new Uint8Array(f64.buffer);
const i64 = new BigInt64Array(1);
const i64Bytes = new Uint8Array(i64.buffer);

function float64Bytes(v: number): Uint8Array {
  f64[0] = v;
  return f64Bytes.slice();
}

function int64Bytes(v: number): Uint8Array {
  i64[0] = BigInt(v);
  return i64Bytes.slice();
}

function varintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 0x80);
    size++;
  }
  return size;
}

function writeVarint(buf: Buffer, pos: number, n: number): number {
  while (n >= 0x80) {
    buf[pos++] = (n % 0x80) | 0x80;
    n = Math.floor(n / 0x80);
  }
  buf[pos++] = n;
  return pos;
}

/** One encoding job: the pages of one file, compressed as they are produced. */
class FileEncoder {
  readonly bodies: Promise<Buffer>[] = [];
  /** Bodies shared by identical pages (the constant key columns repeat in every row group). */
  private readonly shared = new Map<string, number>();
  private readonly scratch: Float64Array;
  private readonly runs: Int32Array;
  private readonly words: Int32Array;

  constructor(
    private readonly level: number,
    maxRowGroup: number,
  ) {
    this.scratch = new Float64Array(maxRowGroup);
    this.runs = new Int32Array(maxRowGroup);
    this.words = new Int32Array(this.scratch.buffer);
  }

  private submit(page: Buffer, key?: string): number {
    if (key !== undefined) {
      const known = this.shared.get(key);
      if (known !== undefined) return known;
    }
    const index = this.bodies.push(zstdCompress(page, this.level)) - 1;
    if (key !== undefined) this.shared.set(key, index);
    return index;
  }

  /** A string column holding one value in every row: one dictionary entry, all indices 0. */
  constantChunk(leaf: SchemaLeaf, value: string, n: number): PendingChunk {
    const bytes = utf8.encode(value);
    const dict = Buffer.allocUnsafe(4 + bytes.length);
    dict.writeUInt32LE(bytes.length, 0);
    dict.set(bytes, 4);
    // Bit width 1 rather than 0: some readers mishandle zero-width RLE data.
    const indices = Buffer.allocUnsafe(1 + varintSize(n * 2) + 1);
    indices[0] = 1;
    indices[writeVarint(indices, 1, n * 2)] = 0;
    return {
      leaf,
      encodings: DICTIONARY,
      numValues: n,
      statistics: { nullCount: 0, min: bytes, max: bytes },
      pages: [
        {
          kind: 'dictionary',
          numValues: 1,
          encoding: Encoding.PLAIN,
          uncompressedSize: dict.length,
          body: this.submit(dict, `dict:${leaf.name}`),
        },
        {
          kind: 'data',
          numValues: n,
          encoding: Encoding.RLE_DICTIONARY,
          uncompressedSize: indices.length,
          body: this.submit(indices, `idx:${leaf.name}:${n}`),
        },
      ],
    };
  }

  timeChunk(leaf: SchemaLeaf, cols: SymbolDayColumns, plain: Buffer, stride: number, start: number, end: number): PendingChunk {
    const page = plain.subarray(start * stride, end * stride);
    const times = cols.timesMs;
    let lo = start;
    let hi = start;
    for (let i = start + 1; i < end; i++) {
      if (times[i] < times[lo]) lo = i;
      if (times[i] > times[hi]) hi = i;
    }
    // Fixed-width digits: the byte order of the texts is the order of the times.
    const min = plain.subarray(lo * stride + 4, (lo + 1) * stride);
    const max = plain.subarray(hi * stride + 4, (hi + 1) * stride);
    return {
      leaf,
      encodings: PLAIN_REQUIRED,
      numValues: end - start,
      statistics: { nullCount: 0, min: Uint8Array.from(min), max: Uint8Array.from(max) },
      pages: [{ kind: 'data', numValues: end - start, encoding: Encoding.PLAIN, uncompressedSize: page.length, body: this.submit(page) }],
    };
  }

  /**
   * The non-null values of rows [start, end) into `scratch`, and the runs of defined and
   * null rows into `runs` (the first run's kind is `firstDefined`).
   */
  private collectDefined(src: Float64Array, start: number, end: number): DefinedValues {
    const { scratch, runs } = this;
    let count = 0;
    let min = Infinity;
    let max = -Infinity;
    let nRuns = 0;
    const firstDefined = src[start] === src[start];
    let defined = firstDefined;
    let runStart = start;
    for (let i = start; i < end; i++) {
      const v = src[i];
      const d = v === v;
      if (d !== defined) {
        runs[nRuns++] = i - runStart;
        runStart = i;
        defined = d;
      }
      if (d) {
        scratch[count++] = v;
        if (v < min) min = v;
        if (v > max) max = v;
      }
    }
    runs[nRuns++] = end - runStart;
    return { count, min, max, nRuns, firstDefined };
  }

  /** A v1 page starting with the RLE definition levels (bit width 1), room left for `bodyBytes`. */
  private levelsPage(d: DefinedValues, bodyBytes: number): { page: Buffer; pos: number } {
    const { runs } = this;
    let levelBytes = 0;
    for (let r = 0; r < d.nRuns; r++) levelBytes += varintSize(runs[r] * 2) + 1;
    const page = Buffer.allocUnsafe(4 + levelBytes + bodyBytes);
    page.writeUInt32LE(levelBytes, 0);
    let pos = 4;
    let level = d.firstDefined ? 1 : 0;
    for (let r = 0; r < d.nRuns; r++) {
      pos = writeVarint(page, pos, runs[r] * 2);
      page[pos++] = level;
      level ^= 1;
    }
    return { page, pos };
  }

  /**
   * OPTIONAL one-letter strings carried as character codes: a dictionary of the letters
   * present (in code order), then definition levels and RLE-run indices (bit width 8, one
   * byte per run value: a chunk has a handful of letters, and zstd takes the runs' slack).
   */
  codeChunk(leaf: SchemaLeaf, src: Float64Array, start: number, end: number): PendingChunk {
    const d = this.collectDefined(src, start, end);
    const { scratch } = this;
    const present = new Set<number>();
    for (let i = 0; i < d.count; i++) {
      const c = scratch[i];
      if (!Number.isInteger(c) || c < 1 || c > 0x7f) throw new RangeError(`${leaf.name}: ${c} is not a letter's code`);
      present.add(c);
    }
    const letters = [...present].sort((a, b) => a - b);
    const slot = new Map(letters.map((c, i) => [c, i]));
    const dict = Buffer.allocUnsafe(5 * letters.length);
    letters.forEach((c, i) => {
      dict.writeUInt32LE(1, 5 * i);
      dict[5 * i + 4] = c;
    });
    if (letters.length === 0) {
      // Every row null: the levels alone, PLAIN (no dictionary to point into).
      const { page, pos } = this.levelsPage(d, 0);
      return {
        leaf,
        encodings: PLAIN_OPTIONAL,
        numValues: end - start,
        statistics: { nullCount: end - start },
        pages: [{ kind: 'data', numValues: end - start, encoding: Encoding.PLAIN, uncompressedSize: pos, body: this.submit(page.subarray(0, pos)) }],
      };
    }
    let runBytes = 1;
    for (let i = 0; i < d.count;) {
      let j = i + 1;
      while (j < d.count && scratch[j] === scratch[i]) j++;
      runBytes += varintSize((j - i) * 2) + 1;
      i = j;
    }
    const { page, pos: at } = this.levelsPage(d, runBytes);
    let pos = at;
    page[pos++] = 8;
    for (let i = 0; i < d.count;) {
      let j = i + 1;
      while (j < d.count && scratch[j] === scratch[i]) j++;
      pos = writeVarint(page, pos, (j - i) * 2);
      page[pos++] = slot.get(scratch[i])!;
      i = j;
    }
    const statistics: Statistics = { nullCount: end - start - d.count };
    statistics.min = Uint8Array.of(letters[0]);
    statistics.max = Uint8Array.of(letters[letters.length - 1]);
    return {
      leaf,
      encodings: DICTIONARY_OPTIONAL,
      numValues: end - start,
      statistics,
      pages: [
        { kind: 'dictionary', numValues: letters.length, encoding: Encoding.PLAIN, uncompressedSize: dict.length, body: this.submit(dict) },
        { kind: 'data', numValues: end - start, encoding: Encoding.RLE_DICTIONARY, uncompressedSize: pos, body: this.submit(page.subarray(0, pos)) },
      ],
    };
  }

  /**
   * A REQUIRED string column of many values (a derived table's symbol, date and minute label):
   * a dictionary of the chunk's distinct values, then RLE-run indices; the tables written this
   * way are sorted by these keys, so a chunk is a few long runs.
   */
  stringChunk(leaf: SchemaLeaf, values: readonly string[], start: number, end: number): PendingChunk {
    const slot = new Map<string, number>();
    const indices = new Int32Array(end - start);
    for (let i = start; i < end; i++) {
      let s = slot.get(values[i]);
      if (s === undefined) slot.set(values[i], (s = slot.size));
      indices[i - start] = s;
    }
    const entries = [...slot.keys()].map((v) => utf8.encode(v));
    let dictBytes = 0;
    for (const e of entries) dictBytes += 4 + e.length;
    const dict = Buffer.allocUnsafe(dictBytes);
    let at = 0;
    for (const e of entries) {
      dict.writeUInt32LE(e.length, at);
      dict.set(e, at + 4);
      at += 4 + e.length;
    }
    const bitWidth = Math.max(1, Math.ceil(Math.log2(entries.length)));
    const byteWidth = (bitWidth + 7) >> 3;
    let runBytes = 1;
    for (let i = 0; i < indices.length;) {
      let j = i + 1;
      while (j < indices.length && indices[j] === indices[i]) j++;
      runBytes += varintSize((j - i) * 2) + byteWidth;
      i = j;
    }
    const page = Buffer.allocUnsafe(runBytes);
    let pos = 0;
    page[pos++] = bitWidth;
    for (let i = 0; i < indices.length;) {
      let j = i + 1;
      while (j < indices.length && indices[j] === indices[i]) j++;
      pos = writeVarint(page, pos, (j - i) * 2);
      for (let b = 0; b < byteWidth; b++) page[pos++] = (indices[i] >> (8 * b)) & 0xff;
      i = j;
    }
    const sorted = entries.slice().sort(Buffer.compare);
    return {
      leaf,
      encodings: DICTIONARY,
      numValues: end - start,
      statistics: { nullCount: 0, min: sorted[0], max: sorted[sorted.length - 1] },
      pages: [
        { kind: 'dictionary', numValues: entries.length, encoding: Encoding.PLAIN, uncompressedSize: dict.length, body: this.submit(dict) },
        { kind: 'data', numValues: end - start, encoding: Encoding.RLE_DICTIONARY, uncompressedSize: pos, body: this.submit(page.subarray(0, pos)) },
      ],
    };
  }

  /** OPTIONAL DOUBLE / INT64: RLE definition levels (bit width 1), then the non-null values PLAIN. */
  numericChunk(leaf: SchemaLeaf, name: string, src: Float64Array, start: number, end: number): PendingChunk {
    const { scratch } = this;
    const d = this.collectDefined(src, start, end);
    const { count, min, max } = d;
    const { page, pos } = this.levelsPage(d, count * 8);

    const isInt = leaf.type === PhysicalType.INT64;
    if (isInt) this.toInt64(name, count);
    page.set(new Uint8Array(scratch.buffer, 0, count * 8), pos);

    const statistics: Statistics = { nullCount: end - start - count };
    if (count > 0) {
      const toBytes = isInt ? int64Bytes : float64Bytes;
      // Parquet's rule for float bounds: a zero minimum is written -0, a zero maximum +0.
      statistics.min = toBytes(min === 0 ? -0 : min);
      statistics.max = toBytes(max === 0 ? 0 : max);
    }
    return {
      leaf,
      encodings: PLAIN_OPTIONAL,
      numValues: end - start,
      statistics,
      pages: [{ kind: 'data', numValues: end - start, encoding: Encoding.PLAIN, uncompressedSize: page.length, body: this.submit(page) }],
    };
  }

  /** Rewrites the first `count` scratch doubles in place as little-endian int64 words. */
  private toInt64(name: string, count: number): void {
    const { scratch, words } = this;
    for (let i = 0; i < count; i++) {
      const v = scratch[i];
      if (!Number.isSafeInteger(v)) throw new RangeError(`${name}: ${v} is not an integer`);
      // `>>> 0` is v mod 2^32 for any safe integer; floor division gives the signed high word.
      const lo = v >>> 0;
      const hi = Math.floor(v / 4294967296);
      words[2 * i] = lo | 0;
      words[2 * i + 1] = hi | 0;
    }
  }
}

export async function encodeParquet(cols: SymbolDayColumns, opts: EncodeOptions): Promise<Uint8Array> {
  checkInput(cols, opts);
  const schema = SCHEMAS[cols.dataset];
  const leaves = schema.fields.map(leafOf);
  const { rows } = cols;
  const rowGroupSize = opts.rowGroupSize;
  const enc = new FileEncoder(opts.compressionLevel ?? DEFAULT_ZSTD_LEVEL, Math.min(rowGroupSize, rows));
  const { plain, stride, sorted } = encodeTimes(cols);
  const timeIndex = schema.position.get('time');

  const groups: { numRows: number; chunks: PendingChunk[] }[] = [];
  for (let start = 0; start < rows; start += rowGroupSize) {
    const end = Math.min(rows, start + rowGroupSize);
    const chunks: PendingChunk[] = [];
    let numeric = 0;
    schema.fields.forEach((f, i) => {
      const leaf = leaves[i];
      if (f.type === 'code') chunks.push(enc.codeChunk(leaf, cols.values[numeric++], start, end));
      else if (f.type !== 'string') chunks.push(enc.numericChunk(leaf, f.name, cols.values[numeric++], start, end));
      else if (f.name === 'time') chunks.push(enc.timeChunk(leaf, cols, plain, stride, start, end));
      else if (f.name === 'symbol') chunks.push(enc.constantChunk(leaf, cols.symbol, end - start));
      else if (f.name === 'tradedate') chunks.push(enc.constantChunk(leaf, cols.tradedate, end - start));
      else throw new Error(`no encoder for string column ${f.name}`);
    });
    groups.push({ numRows: end - start, chunks });
  }

  return assembleFile(enc, leaves, rows, groups, sorted ? timeIndex : undefined, opts);
}

/** The file from its row groups' pages: magic, every page in order, then the footer. */
async function assembleFile(
  enc: FileEncoder,
  leaves: readonly SchemaLeaf[],
  rows: number,
  groups: readonly { numRows: number; chunks: PendingChunk[] }[],
  sortedBy: number | undefined,
  opts: EncodeOptions,
): Promise<Uint8Array> {
  const bodies = await Promise.all(enc.bodies);

  const parts: Uint8Array[] = [MAGIC];
  let offset = MAGIC.length;
  const rowGroups: RowGroupMeta[] = groups.map((g) => {
    const fileOffset = offset;
    const columns = g.chunks.map((c): ColumnChunkMeta => {
      let uncompressed = 0;
      let compressed = 0;
      let dataPageOffset = -1;
      let dictionaryPageOffset: number | undefined;
      for (const p of c.pages) {
        const body = bodies[p.body];
        const header = pageHeader({ ...p, compressedSize: body.length });
        if (p.kind === 'dictionary') dictionaryPageOffset = offset;
        else dataPageOffset = offset;
        parts.push(header, body);
        offset += header.length + body.length;
        uncompressed += header.length + p.uncompressedSize;
        compressed += header.length + body.length;
      }
      return {
        type: c.leaf.type,
        encodings: c.encodings,
        path: c.leaf.name,
        numValues: c.numValues,
        totalUncompressedSize: uncompressed,
        totalCompressedSize: compressed,
        dataPageOffset,
        dictionaryPageOffset,
        statistics: c.statistics,
      };
    });
    return { columns, numRows: g.numRows, fileOffset, sortedBy };
  });

  const footer = fileMetaData({ schema: leaves, numRows: rows, rowGroups, createdBy: PARQUET_CREATED_BY, keyValues: opts.keyValues });
  const tail = Buffer.allocUnsafe(4);
  tail.writeUInt32LE(footer.length, 0);
  parts.push(footer, tail, MAGIC);
  return Buffer.concat(parts, offset + footer.length + 8);
}

/**
 * A derived table (bars: many symbols and days in one file), one column per field: strings
 * (dictionary-encoded, REQUIRED), numbers (OPTIONAL, NaN = null) or codes (as character codes).
 */
export interface TableColumns {
  readonly fields: readonly FieldDef[];
  readonly rows: number;
  readonly columns: readonly (readonly string[] | Float64Array)[];
}

/** Encodes a derived table with the sealed files' encodings and compression. */
export async function encodeTable(table: TableColumns, opts: EncodeOptions): Promise<Uint8Array> {
  const { rows, fields, columns } = table;
  if (!Number.isInteger(rows) || rows <= 0) throw new RangeError(`rows must be a positive integer, got ${rows}`);
  if (columns.length !== fields.length) throw new RangeError(`${columns.length} columns for ${fields.length} fields`);
  columns.forEach((c, i) => {
    if (c.length !== rows) throw new RangeError(`${fields[i].name} has ${c.length} entries, expected ${rows}`);
    if ((fields[i].type === 'string') !== Array.isArray(c)) throw new RangeError(`${fields[i].name}: strings go with string fields only`);
  });
  const leaves = fields.map(leafOf);
  const enc = new FileEncoder(opts.compressionLevel ?? DEFAULT_ZSTD_LEVEL, Math.min(opts.rowGroupSize, rows));
  const groups: { numRows: number; chunks: PendingChunk[] }[] = [];
  for (let start = 0; start < rows; start += opts.rowGroupSize) {
    const end = Math.min(rows, start + opts.rowGroupSize);
    const chunks = fields.map((f, i) => {
      const c = columns[i];
      if (Array.isArray(c)) return enc.stringChunk(leaves[i], c as readonly string[], start, end);
      const numbers = c as Float64Array;
      return f.type === 'code' ? enc.codeChunk(leaves[i], numbers, start, end) : enc.numericChunk(leaves[i], f.name, numbers, start, end);
    });
    groups.push({ numRows: end - start, chunks });
  }
  return assembleFile(enc, leaves, rows, groups, undefined, opts);
}
