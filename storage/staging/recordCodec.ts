/**
 * The staged record: fixed size per dataset, so a segment needs no framing and a torn tail is
 * cut at a record boundary. Layout (little endian):
 *   symbol   12 bytes latin1, zero padded
 *   time_ms  int32
 *   order    float64   (duplicate resolution: highest wins)
 *   values   float64 × value fields (codes as character codes), NaN = null
 */
import { DATASETS, SCHEMAS, type Dataset, type SnapshotRow } from '../../shared/schema.js';

export const SYMBOL_BYTES = 12;
export const TIME_OFFSET = SYMBOL_BYTES;
export const ORDER_OFFSET = SYMBOL_BYTES + 4;
export const HEADER_BYTES = SYMBOL_BYTES + 4 + 8;

const SIZES = Object.fromEntries(DATASETS.map((d) => [d, HEADER_BYTES + 8 * SCHEMAS[d].valueFields.length])) as Readonly<Record<Dataset, number>>;

export function recordBytes(dataset: Dataset): number {
  return SIZES[dataset];
}

/** Writes `row` as a record at `offset`; returns the offset after it. */
export function encodeRecord(buf: Buffer, offset: number, row: SnapshotRow, order: number): number {
  return writeRecord(new DataView(buf.buffer, buf.byteOffset, buf.byteLength), offset, row.symbol, row.timeMs, row.values, order);
}

/**
 * Writes a record from its parts (values in schema order, null or NaN = null); returns the
 * offset after it. The one writer of the layout: through a DataView, whose stores cost a
 * fraction of Buffer's per-field write methods, and which the Kafka decode worker can point
 * at a plain (transferable) ArrayBuffer.
 */
export function writeRecord(view: DataView, offset: number, symbol: string, timeMs: number, vals: ArrayLike<number | null>, order: number): number {
  // latin1 as Buffer.write does it; validated symbols are ASCII.
  const n = Math.min(symbol.length, SYMBOL_BYTES);
  for (let i = 0; i < SYMBOL_BYTES; i++) view.setUint8(offset + i, i < n ? symbol.charCodeAt(i) & 0xff : 0);
  view.setInt32(offset + TIME_OFFSET, timeMs, true);
  view.setFloat64(offset + ORDER_OFFSET, order, true);
  let o = offset + HEADER_BYTES;
  for (let i = 0; i < vals.length; i++, o += 8) {
    const v = vals[i];
    view.setFloat64(o, v === null ? NaN : v, true);
  }
  return o;
}

/** A record's time and values (NaN = null), for the rare row turned back into text (a late one). */
export function readRecord(bytes: Uint8Array, offset: number, dataset: Dataset): { timeMs: number; values: (number | null)[] } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const width = SCHEMAS[dataset].valueFields.length;
  const values: (number | null)[] = new Array(width);
  for (let j = 0; j < width; j++) {
    const x = view.getFloat64(offset + HEADER_BYTES + 8 * j, true);
    values[j] = Number.isNaN(x) ? null : x;
  }
  return { timeMs: view.getInt32(offset + TIME_OFFSET, true), values };
}

export function recordSymbol(buf: Buffer, offset: number): string {
  let end = offset;
  while (end < offset + SYMBOL_BYTES && buf[end] !== 0) end++;
  return buf.toString('latin1', offset, end);
}

/**
 * Finds records of a few symbols among many without making each record's symbol a string:
 * a symbol's 12 bytes compared as three 32-bit words (a whole bucket is ~100,000 records by
 * a whole market's close, and a string per record was most of a pass over it).
 */
export class SymbolMatcher {
  private readonly words: Uint32Array;
  readonly symbols: readonly string[];

  constructor(symbols: Iterable<string>) {
    this.symbols = [...symbols];
    const key = Buffer.alloc(SYMBOL_BYTES * this.symbols.length);
    this.symbols.forEach((s, i) => key.write(s.slice(0, SYMBOL_BYTES), i * SYMBOL_BYTES, 'latin1'));
    this.words = new Uint32Array(3 * this.symbols.length);
    for (let i = 0; i < this.words.length; i++) this.words[i] = key.readUInt32LE(4 * i);
  }

  /** The index in `symbols` of the record's symbol at `offset`; -1 when none. */
  match(buf: Buffer, offset: number): number {
    const a = buf.readUInt32LE(offset);
    const w = this.words;
    for (let i = 0, k = 0; k < w.length; i++, k += 3) {
      if (w[k] === a && w[k + 1] === buf.readUInt32LE(offset + 4) && w[k + 2] === buf.readUInt32LE(offset + 8)) return i;
    }
    return -1;
  }
}

/** Rows of one dataset-day, already encoded: what a parse worker hands to staging. */
export interface RecordPack {
  readonly dataset: Dataset;
  readonly tradedate: string;
  readonly count: number;
  /** `count` records back to back; their order fields are assigned by staging. */
  readonly records: Buffer;
}

/** Groups rows into packs by dataset-day, in arrival order within each pack. */
interface OpenPack {
  readonly dataset: Dataset;
  readonly tradedate: string;
  buf: Buffer;
  /** Over `buf`, made again when it grows. */
  view: DataView;
  used: number;
  count: number;
}

export class RecordPacker {
  private readonly packs = new Map<string, OpenPack>();
  /** The pack of the previous row: consecutive rows nearly always share it, so no key is built for them. */
  private last: OpenPack | null = null;
  private rows = 0;

  add(row: SnapshotRow): void {
    this.addValues(row.dataset, row.tradedate, row.symbol, row.timeMs, row.values);
  }

  /** A validated row from its parts (the generator's rows, which skip text and validation). */
  addValues(dataset: Dataset, tradedate: string, symbol: string, timeMs: number, values: ArrayLike<number | null>): void {
    const size = SIZES[dataset];
    let p = this.last;
    if (p === null || p.dataset !== dataset || p.tradedate !== tradedate) {
      const key = `${dataset}|${tradedate}`;
      p = this.packs.get(key) ?? null;
      if (p === null) {
        const buf = Buffer.allocUnsafe(size * 512);
        this.packs.set(key, (p = { dataset, tradedate, buf, view: new DataView(buf.buffer, buf.byteOffset, buf.byteLength), used: 0, count: 0 }));
      }
      this.last = p;
    }
    if (p.used + size > p.buf.length) {
      const bigger = Buffer.allocUnsafe(p.buf.length * 2);
      p.buf.copy(bigger, 0, 0, p.used);
      p.buf = bigger;
      p.view = new DataView(bigger.buffer, bigger.byteOffset, bigger.byteLength);
    }
    p.used = writeRecord(p.view, p.used, symbol, timeMs, values, NaN);
    p.count++;
    this.rows++;
  }

  /** Rows gathered since the last take(). */
  get size(): number {
    return this.rows;
  }

  /** The packs gathered so far; the packer starts empty again. */
  take(): RecordPack[] {
    const out = [...this.packs.values()].map((p) => ({ dataset: p.dataset, tradedate: p.tradedate, count: p.count, records: p.buf.subarray(0, p.used) }));
    this.packs.clear();
    this.last = null;
    this.rows = 0;
    return out;
  }
}

/** A symbol-day some records belong to. */
export interface SymbolDay {
  readonly tradedate: string;
  readonly symbol: string;
}

/**
 * Records of one dataset already encoded with their order (the Kafka decode worker's: the
 * message offset), each naming its symbol-day by index: what Staging.stageRecords appends.
 */
export interface EncodedRecords {
  readonly dataset: Dataset;
  /** Records back to back, `symbolDayOf.length` of them. */
  readonly records: Uint8Array;
  /** Per record, its entry in `symbolDays`. */
  readonly symbolDayOf: Int32Array;
  /** Every entry has at least one record. */
  readonly symbolDays: readonly SymbolDay[];
}
