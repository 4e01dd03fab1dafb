/**
 * A column chunk assembled from its decompressed pages into one DecodedColumn: dictionary
 * page, definition levels, PLAIN or dictionary-encoded values, nulls placed by the levels.
 * Numbers go straight into a Float64Array (NaN = null: the feed is JSON, which has no NaN,
 * so the sentinel cannot collide with a value).
 */
import { DamagedFileError } from '../damagedFile.js';
import { Encoding, PageType, PhysicalType, UnsupportedParquetError } from './format.js';
import { decodeHybrid } from './hybrid.js';
import type { ColumnDesc } from './metadata.js';
import type { RawPage } from './page.js';
import { plainNumbers, plainNumbersInto, plainStrings } from './plain.js';

const latin1 = new TextDecoder('latin1');
const utf8 = new TextDecoder('utf-8');

/** A decoded column chunk: numbers (NaN = null), strings, or strings and nulls. */
export type DecodedColumn =
  | { readonly kind: 'number'; readonly values: Float64Array }
  | { readonly kind: 'string'; readonly values: readonly string[] }
  /** An OPTIONAL string column (the code columns: bs_flag, side, …), null for null. */
  | { readonly kind: 'nullable-string'; readonly values: readonly (string | null)[] };

/**
 * Scratch for definition levels and dictionary indices, reused by every chunk decoded on this
 * thread (decoding is synchronous, so no two chunks share it at once): two typed arrays a
 * column were, with the two below, most of the ~150 ArrayBuffers a level-2 row group
 * allocated, each a calloc, a finaliser and a sweep on V8's threads.
 */
let defsScratch = new Int32Array(0);
let indexScratch = new Int32Array(0);

function scratch(which: 'defs' | 'index', n: number): Int32Array {
  if (which === 'defs') return defsScratch.length >= n ? defsScratch : (defsScratch = new Int32Array(Math.max(n, 2 * defsScratch.length)));
  return indexScratch.length >= n ? indexScratch : (indexScratch = new Int32Array(Math.max(n, 2 * indexScratch.length)));
}

/**
 * Whether `count` definition levels at `buf[pos..end)` are one RLE run of 1s (every value
 * present): what the writer stores for a column without nulls, so the levels need no decoding.
 */
function allDefined(buf: Uint8Array, pos: number, end: number, count: number): boolean {
  let header = 0;
  let mul = 1;
  for (;;) {
    if (pos >= end) return false;
    const b = buf[pos++];
    header += (b & 0x7f) * mul;
    if (b < 0x80) break;
    mul *= 128;
  }
  return header % 2 === 0 && header / 2 >= count && pos < end && buf[pos] === 1;
}

/**
 * Decodes one column chunk's pages (already decompressed) into `rows` values. Pages that
 * disagree with the footer's row count or with their own headers raise DamagedFileError
 * naming `file`; encodings and types outside the subset raise UnsupportedParquetError. A
 * numeric column is written into `into` when given (`rows` long: a slice of one buffer shared
 * by a row group's columns, rowGroup.ts), else into an array of its own.
 */
export function decodeChunk(
  col: ColumnDesc,
  pages: readonly { page: RawPage; data: Uint8Array }[],
  rows: number,
  file: string,
  into?: Float64Array,
): DecodedColumn {
  const isString = col.physicalType === PhysicalType.BYTE_ARRAY;
  if (!isString && col.physicalType !== PhysicalType.DOUBLE && col.physicalType !== PhysicalType.INT64) {
    throw new UnsupportedParquetError(`physical type ${col.physicalType} of ${col.name} is not supported`);
  }
  const damaged = (detail: string) => new DamagedFileError(file, `column ${col.name}: ${detail}`);
  if (into !== undefined && into.length !== rows) throw new RangeError(`a column of ${rows} rows cannot be decoded into ${into.length}`);
  const numbers = isString ? null : (into ?? new Float64Array(rows));
  let strings: (string | null)[] | null = isString ? new Array<string | null>(rows).fill(null) : null;
  let dictStrings: string[] | null = null;
  let dictNumbers: Float64Array | null = null;
  let row = 0;
  for (const { page, data } of pages) {
    if (page.type === PageType.DICTIONARY_PAGE) {
      if (page.encoding !== Encoding.PLAIN && page.encoding !== Encoding.PLAIN_DICTIONARY) throw new UnsupportedParquetError('dictionary encoding');
      if (isString) dictStrings = plainStrings(data, page.numValues, utf8);
      else dictNumbers = plainNumbers(data, 0, page.numValues, col.physicalType);
      continue;
    }
    const n = page.numValues;
    if (row + n > rows) throw damaged(`more values than the footer's ${rows} rows`);
    let pos = 0;
    let present = n;
    // null: every value of the page is present; else its levels, 1 for a present value.
    let defs: Int32Array | null = null;
    if (col.optional) {
      if (page.definitionEncoding !== undefined && page.definitionEncoding !== Encoding.RLE) {
        throw new UnsupportedParquetError(`definition level encoding ${page.definitionEncoding} of ${col.name} is not supported`);
      }
      const len = data[0] | (data[1] << 8) | (data[2] << 16) | (data[3] << 24);
      if (len < 0 || 4 + len > data.length) throw damaged(`definition levels of ${len} bytes in a page of ${data.length}`);
      if (!allDefined(data, 4, 4 + len, n)) {
        defs = scratch('defs', n);
        if (decodeHybrid(data, 4, 4 + len, 1, n, defs) < n) throw damaged('definition levels end early');
        present = 0;
        for (let i = 0; i < n; i++) present += defs[i];
      }
      pos = 4 + len;
    }
    const body = data.subarray(pos);
    if (page.encoding === Encoding.PLAIN) {
      if (isString) {
        const vals = plainStrings(body, present, isTimeLike(col) ? latin1 : utf8);
        if (!col.optional && row === 0 && n === rows)
          strings = vals; // one page, every row: no copy
        else scatter(vals, strings!, row, n, defs);
      } else if (defs === null) {
        plainNumbersInto(body, present, col.physicalType, numbers!, row);
      } else {
        // Values land at the front of the page's rows, then move to their rows back to front
        // (a value's row is never before its place among the values), nulls becoming NaN.
        plainNumbersInto(body, present, col.physicalType, numbers!, row);
        for (let i = n - 1, k = present - 1; i >= 0; i--) numbers![row + i] = defs[i] ? numbers![row + k--] : NaN;
      }
    } else if (page.encoding === Encoding.RLE_DICTIONARY || page.encoding === Encoding.PLAIN_DICTIONARY) {
      const idx = scratch('index', present);
      if (decodeHybrid(body, 1, body.length, body[0], present, idx) < present) throw damaged('dictionary indices end early');
      if (isString) {
        if (!dictStrings) throw damaged('dictionary page missing');
        const dict = dictStrings;
        const out = strings!;
        if (defs === null) for (let i = 0; i < n; i++) out[row + i] = dict[idx[i]];
        else for (let i = 0, k = 0; i < n; i++) if (defs[i]) out[row + i] = dict[idx[k++]];
      } else {
        if (!dictNumbers) throw damaged('dictionary page missing');
        for (let i = 0, k = 0; i < n; i++) numbers![row + i] = defs === null || defs[i] ? dictNumbers[idx[k++]] : NaN;
      }
    } else {
      throw new UnsupportedParquetError(`encoding ${page.encoding} of ${col.name} is not supported`);
    }
    row += n;
  }
  if (row !== rows) throw damaged(`${row} values for the footer's ${rows} rows`);
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
