/**
 * Rows of a sealed file as JSON text `[row],[row],…`, with the byte offset of every row: the
 * one serialiser of detailed-history rows. The server writes a row group's rows with it on a
 * first touch, and the seal writes every row group's rows with it into the file's row text
 * (rowTextFile.ts), so both give the same bytes.
 */
import { SCHEMAS, type Dataset } from '../../shared/schema.js';
import type { DecodedColumn } from '../parquet/reader.js';
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

/** Writes rows [from, to) of a row group's columns (in output order) as `[…],[…]`. */
export function serializeRows(cols: readonly DecodedColumn[], from: number, to: number, sizeHint = 0): SerializedRows {
  const w = new JsonBytesWriter(Math.max(1024, sizeHint));
  const offsets = new Uint32Array(to - from + 1);
  const n = cols.length;
  // Split by kind up front so the hot loop's element loads stay monomorphic.
  const nums: (Float64Array | null)[] = cols.map((c) => (c.kind === 'number' ? c.values : null));
  const strs: (readonly (string | null)[] | null)[] = cols.map((c) => (c.kind === 'number' ? null : c.values));
  for (let r = from; r < to; r++) {
    if (r > from) w.byte(44);
    offsets[r - from] = w.pos;
    w.byte(91);
    for (let c = 0; c < n; c++) {
      if (c > 0) w.byte(44);
      const nv = nums[c];
      if (nv !== null) w.number(nv[r]);
      else {
        const s = strs[c]![r];
        if (s === null)
          w.raw('null'); // an absent code (bs_flag, …)
        else w.string(s);
      }
    }
    w.byte(93);
  }
  offsets[to - from] = w.pos + 1;
  // Copy out of the growable buffer so the cache holds exactly the bytes it accounts for;
  // into memory of its own (never Node's shared pool), so a worker can transfer it.
  const bytes = Buffer.allocUnsafeSlow(w.pos);
  w.bytes().copy(bytes);
  return { bytes, offsets };
}

/** Rows [a, b) of serialised rows, without a trailing comma. */
export function sliceRows(s: SerializedRows, a: number, b: number): Buffer {
  return s.bytes.subarray(s.offsets[a], s.offsets[b] - 1);
}
