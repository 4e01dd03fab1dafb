import { DATASETS, SCHEMAS, type Dataset, type SnapshotRow } from '../../shared/schema.js';

/**
 * The staged record: fixed size per dataset, so a segment needs no framing and a torn tail is
 * cut at a record boundary. Layout (little endian):
 *   symbol   12 bytes latin1, zero padded
 *   time_ms  int32
 *   order    float64   (duplicate resolution: highest wins)
 *   values   float64 × value fields (codes as character codes), NaN = null
 */
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
  buf.fill(0, offset, offset + SYMBOL_BYTES);
  buf.write(row.symbol, offset, SYMBOL_BYTES, 'latin1');
  buf.writeInt32LE(row.timeMs, offset + TIME_OFFSET);
  buf.writeDoubleLE(order, offset + ORDER_OFFSET);
  let o = offset + HEADER_BYTES;
  const vals = row.values;
  for (let i = 0; i < vals.length; i++, o += 8) {
    const v = vals[i];
    buf.writeDoubleLE(v === null ? NaN : v, o);
  }
  return o;
}

export function recordSymbol(buf: Buffer, offset: number): string {
  let end = offset;
  while (end < offset + SYMBOL_BYTES && buf[end] !== 0) end++;
  return buf.toString('latin1', offset, end);
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
export class RecordPacker {
  private readonly packs = new Map<string, { dataset: Dataset; tradedate: string; buf: Buffer; used: number; count: number }>();

  add(row: SnapshotRow): void {
    const key = `${row.dataset}|${row.tradedate}`;
    const size = SIZES[row.dataset];
    let p = this.packs.get(key);
    if (!p) this.packs.set(key, (p = { dataset: row.dataset, tradedate: row.tradedate, buf: Buffer.allocUnsafe(size * 512), used: 0, count: 0 }));
    if (p.used + size > p.buf.length) {
      const bigger = Buffer.allocUnsafe(p.buf.length * 2);
      p.buf.copy(bigger, 0, 0, p.used);
      p.buf = bigger;
    }
    p.used = encodeRecord(p.buf, p.used, row, NaN);
    p.count++;
  }

  /** The packs gathered so far; the packer starts empty again. */
  take(): RecordPack[] {
    const out = [...this.packs.values()].map((p) => ({ dataset: p.dataset, tradedate: p.tradedate, count: p.count, records: p.buf.subarray(0, p.used) }));
    this.packs.clear();
    return out;
  }
}
