/**
 * Rows of a sealed file as JSON text `[row],[row],…`, with the byte offset of every row: the
 * one serialiser of detailed-history rows. The server writes a row group's rows with it on a
 * first touch, and the seal writes every row group's rows with it into the file's row text
 * (rowTextFile.ts), so both give the same bytes.
 */
import { SCHEMAS, type Dataset } from '../../shared/schema.js';
import type { DecodedColumn } from '../parquet/reader.js';
import { JSON_NUMBER_MAX_BYTES, PAIRS, writeDigits, writeJsonNumber } from '../../shared/jsonNumber.js';
import { formatLevel2Time, MS_PER_DAY } from '../../shared/timeFormat.js';
import { JsonBytesWriter } from './jsonBytes.js';

/** Every field's position, per dataset: made once, not per row group served. */
export const ALL_FIELDS: Readonly<Record<Dataset, readonly number[]>> = {
  level2: SCHEMAS.level2.fields.map((_, i) => i),
  index: SCHEMAS.index.fields.map((_, i) => i),
  trade: SCHEMAS.trade.fields.map((_, i) => i),
  order: SCHEMAS.order.fields.map((_, i) => i),
};

/**
 * The LRU needs a size up front: measured ~320 bytes a full level-2 row of generated data;
 * a trade row ~150, an order row ~120.
 */
export const ROW_BYTES: Readonly<Partial<Record<Dataset, number>>> = { level2: 340, trade: 160, order: 130 };

export function isAllFields(fields: readonly number[], dataset: Dataset = 'level2'): boolean {
  return fields.length === SCHEMAS[dataset].fields.length && fields.every((f, i) => f === i);
}

/** Serialised rows of one row group: `bytes` holds rows separated by commas. */
export interface SerializedRows {
  readonly bytes: Buffer;
  /** offsets[r] = first byte of row r; offsets[n] = bytes.length + 1 (as if a comma followed). */
  readonly offsets: Uint32Array;
  /**
   * The rows as stored in row text (rowTextFile.ts): a raw DEFLATE chunk that starts afresh and
   * ends sync-flushed, not final, which a gzip answer splices.
   */
  readonly deflated?: DeflatedRows;
}

/** Rows as row text stores them: the chunk, and the CRC-32 of the text it inflates to. */
export interface DeflatedRows {
  readonly chunk: Buffer;
  readonly textCrc32: number;
}

/**
 * A row group's rows as row text stores them, not inflated yet: a gzip answer splices `chunk`
 * and needs of the text only its length and CRC-32; any other answer asks for `text()`.
 */
export interface StoredRowText {
  /** Raw DEFLATE, sync-flushed, not final (rowTextFile.ts). */
  readonly chunk: Buffer;
  readonly textBytes: number;
  readonly textCrc32: number;
  /** The rows' text `[…],[…]`, inflated (and cached) on first ask. */
  text(): Promise<Buffer>;
}

/**
 * A column as the serialiser takes it: a decoded column (the reader's shape), or one of the
 * forms the seal has at hand, which save making a string per row. Making the reader's shape
 * from the seal's columns (columnsAsRead) cost more than serialising it: on a liquid stock's
 * trades (33,907 rows) 31 ms to make the time and code strings against 16 ms to write the
 * rows, and the level-2 time strings, built by concatenation, were flattened again when read
 * (bench/rowText.bench.ts).
 */
export type RowColumn =
  | DecodedColumn
  /** The same JSON value on every row (a file's symbol, its tradedate), its text already quoted. */
  | { readonly kind: 'constant'; readonly json: Buffer }
  /**
   * Times of day in ms, written as the level-2 form `"HHMMSSmmm"` (formatLevel2Time,
   * shared/timeFormat.ts); a time outside the day is written through formatLevel2Time itself.
   */
  | { readonly kind: 'level2-time'; readonly ms: Int32Array }
  /** Codes as their character codes, NaN for none: `"B"`, or `null`, as columnsAsRead gives them. */
  | { readonly kind: 'code'; readonly values: Float64Array };

const NUMBER = 0;
const STRING = 1;
const CONSTANT = 2;
const TIME = 3;
const CODE = 4;
const KIND_OF: Readonly<Record<RowColumn['kind'], number>> = {
  number: NUMBER,
  string: STRING,
  'nullable-string': STRING,
  constant: CONSTANT,
  'level2-time': TIME,
  code: CODE,
};
/** Bytes a value of each kind can take, but strings (their length is their own) and constants (theirs is known). */
const MAX_BYTES = [JSON_NUMBER_MAX_BYTES, 0, 0, 11, 4];
const MS_PER_HOUR = 3_600_000;

/** Writes rows [from, to) of a row group's columns (in output order) as `[…],[…]`. */
export function serializeRows(cols: readonly DecodedColumn[], from: number, to: number, sizeHint = 0): SerializedRows {
  return serializeColumns(cols, from, to, sizeHint);
}

/**
 * serializeRows over columns in any RowColumn form: the same bytes as serializeRows over the
 * same values decoded. The room a row can take but for its strings is made once per row, not
 * once per byte or value; each string makes its own.
 */
export function serializeColumns(cols: readonly RowColumn[], from: number, to: number, sizeHint = 0): SerializedRows {
  const w = new JsonBytesWriter(Math.max(1024, sizeHint));
  const offsets = new Uint32Array(to - from + 1);
  const n = cols.length;
  // Split by kind up front so the hot loop's element loads stay monomorphic.
  const kinds = Uint8Array.from(cols, (c) => KIND_OF[c.kind]);
  const nums: (Float64Array | null)[] = cols.map((c) => (c.kind === 'number' || c.kind === 'code' ? c.values : null));
  const strs: (readonly (string | null)[] | null)[] = cols.map((c) => (c.kind === 'string' || c.kind === 'nullable-string' ? c.values : null));
  const consts: (Buffer | null)[] = cols.map((c) => (c.kind === 'constant' ? c.json : null));
  const times: (Int32Array | null)[] = cols.map((c) => (c.kind === 'level2-time' ? c.ms : null));
  let rowRoom = n + 2;
  for (let c = 0; c < n; c++) rowRoom += consts[c]?.length ?? MAX_BYTES[kinds[c]!]!;
  const end = writeRows(w, kinds, nums, strs, consts, times, rowRoom, offsets, from, to);
  offsets[to - from] = end + 1;
  // Copy out of the growable buffer so the cache holds exactly the bytes it accounts for;
  // into memory of its own (never Node's shared pool), so a worker can transfer it.
  const bytes = Buffer.allocUnsafeSlow(end);
  w.buf.copy(bytes, 0, 0, end);
  return { bytes, offsets };
}

/**
 * serializeColumns' rows, into `w` (its buffer grown as needed); returns the end of the last
 * row. A function of its own that ends with its loop: V8 optimises a long first call in the
 * middle of its loop, and code after the loop, not run yet then, had no type feedback and
 * sent each later call back to the interpreter when the loop ended (--trace-deopt: 340
 * deoptimisations in 2,700 calls on a liquid stock's trades).
 */
function writeRows(
  w: JsonBytesWriter,
  kinds: Uint8Array,
  nums: readonly (Float64Array | null)[],
  strs: readonly (readonly (string | null)[] | null)[],
  consts: readonly (Buffer | null)[],
  times: readonly (Int32Array | null)[],
  rowRoom: number,
  offsets: Uint32Array,
  from: number,
  to: number,
): number {
  const n = kinds.length;
  let buf = w.buf;
  let p = w.pos;
  for (let r = from; r < to; r++) {
    if (p + rowRoom > buf.length) buf = grown(w, p, rowRoom);
    if (r > from) buf[p++] = 44;
    offsets[r - from] = p;
    buf[p++] = 91;
    for (let c = 0; c < n; c++) {
      if (c > 0) buf[p++] = 44;
      switch (kinds[c]) {
        case NUMBER: {
          const v = nums[c]![r]!;
          // Volumes and ids, most of a row's numbers, without the general path's tests.
          const i = v | 0;
          p = i === v && i >= 0 ? writeDigits(buf, p, i) : writeJsonNumber(buf, p, v);
          break;
        }
        case CONSTANT: {
          const k = consts[c]!;
          for (let i = 0; i < k.length; i++) buf[p++] = k[i]!;
          break;
        }
        case TIME: {
          const ms = times[c]![r]!;
          if (ms >= 0 && ms < MS_PER_DAY) p = writeLevel2Time(buf, p, ms);
          else {
            p = writeString(w, p, formatLevel2Time(ms), rowRoom);
            buf = w.buf;
          }
          break;
        }
        case CODE: {
          const v = nums[c]![r]!;
          if (v !== v) {
            buf[p++] = 110; // null: no code
            buf[p++] = 117;
            buf[p++] = 108;
            buf[p++] = 108;
          } else if (v >= 0x20 && v <= 0x7e && v !== 34 && v !== 92 && (v | 0) === v) {
            buf[p++] = 34;
            buf[p++] = v;
            buf[p++] = 34;
          } else {
            p = writeString(w, p, String.fromCharCode(v), rowRoom);
            buf = w.buf;
          }
          break;
        }
        default:
          p = writeString(w, p, strs[c]![r]!, rowRoom);
          buf = w.buf;
      }
    }
    buf[p++] = 93;
  }
  return p;
}

/** The writer's buffer with room for `room` bytes past `p` (its position left at `p`). */
function grown(w: JsonBytesWriter, p: number, room: number): Buffer {
  w.pos = p;
  w.ensure(room);
  return w.buf;
}

/**
 * A string (or null) at `p` through the writer, which makes its own room, and then room again
 * for a whole row's other values; returns the position after it. The caller reloads `w.buf`.
 */
function writeString(w: JsonBytesWriter, p: number, s: string | null, rowRoom: number): number {
  w.pos = p;
  if (s === null)
    w.raw('null'); // an absent code (bs_flag, …)
  else w.string(s);
  w.ensure(rowRoom);
  return w.pos;
}

/** `"HHMMSSmmm"` of a time 0 ≤ ms < 24 h, as formatLevel2Time writes it, quoted; the position after it. */
function writeLevel2Time(buf: Buffer, p: number, ms: number): number {
  buf[p] = 34;
  buf[p + 10] = 34;
  return writeLevel2TimeDigits(buf, p + 1, ms) + 1;
}

/** `HHMMSSmmm` of a time 0 ≤ ms < 24 h, as formatLevel2Time writes it; the position after it. */
export function writeLevel2TimeDigits(buf: Buffer, p: number, ms: number): number {
  const h = (ms / MS_PER_HOUR) | 0;
  let rest = ms - h * MS_PER_HOUR;
  const m = (rest / 60_000) | 0;
  rest -= m * 60_000;
  const s = (rest / 1000) | 0;
  const f = rest - s * 1000;
  buf[p] = PAIRS[h << 1]!;
  buf[p + 1] = PAIRS[(h << 1) + 1]!;
  buf[p + 2] = PAIRS[m << 1]!;
  buf[p + 3] = PAIRS[(m << 1) + 1]!;
  buf[p + 4] = PAIRS[s << 1]!;
  buf[p + 5] = PAIRS[(s << 1) + 1]!;
  const q = (f / 10) | 0;
  buf[p + 6] = 48 + ((q / 10) | 0);
  buf[p + 7] = 48 + q - ((q / 10) | 0) * 10;
  buf[p + 8] = 48 + f - q * 10;
  return p + 9;
}

/** Rows [a, b) of serialised rows, without a trailing comma. */
export function sliceRows(s: SerializedRows, a: number, b: number): Buffer {
  return s.bytes.subarray(s.offsets[a], s.offsets[b] - 1);
}
