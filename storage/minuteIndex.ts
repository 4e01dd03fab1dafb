/**
 * Per-file row-position index by minute, built at seal time and kept in the catalog: how many
 * rows fall in each minute from the file's first minute to its last. From it, the position of
 * the first row at or after any minute is a prefix sum, so a time window or a deep offset is
 * found without decoding the file. Counts fit in 16 bits: a minute holds at most 60,000
 * distinct millisecond times.
 */
import { MS_PER_MINUTE } from '../shared/timeFormat.js';

export interface MinuteIndex {
  /** Minute of day (0..1439) of the file's first row. */
  readonly base: number;
  /** Rows per minute, `counts[i]` for minute `base + i`. */
  readonly counts: Uint16Array;
}

export function buildMinuteIndex(timesMs: Int32Array): MinuteIndex {
  if (timesMs.length === 0) return { base: 0, counts: new Uint16Array(0) };
  const base = Math.floor(timesMs[0] / MS_PER_MINUTE);
  const last = Math.floor(timesMs[timesMs.length - 1] / MS_PER_MINUTE);
  const counts = new Uint16Array(last - base + 1);
  for (let i = 0; i < timesMs.length; i++) counts[Math.floor(timesMs[i] / MS_PER_MINUTE) - base]++;
  return { base, counts };
}

/** Cumulative form: `starts[i]` = rows before minute `base + i`; `starts[counts.length]` = rows. */
export function minuteStarts(idx: MinuteIndex): Uint32Array {
  const starts = new Uint32Array(idx.counts.length + 1);
  for (let i = 0; i < idx.counts.length; i++) starts[i + 1] = starts[i] + idx.counts[i];
  return starts;
}

/** Number of rows strictly before minute-of-day `minute`, given the cumulative starts. */
export function rowsBeforeMinute(idx: MinuteIndex, starts: Uint32Array, minute: number): number {
  const i = minute - idx.base;
  if (i <= 0) return 0;
  if (i >= idx.counts.length) return starts[idx.counts.length];
  return starts[i];
}

/**
 * The boundary row of a minute among `rows` rows with this index: the first at or after the
 * minute's start (`after`), or the last strictly before it; -1 when there is none.
 */
export function boundaryRow(idx: MinuteIndex, starts: Uint32Array, rows: number, minute: number, after: boolean): number {
  const p = rowsBeforeMinute(idx, starts, minute);
  const q = after ? p : p - 1;
  return q >= 0 && q < rows ? q : -1;
}

export function encodeMinuteCounts(counts: Uint16Array): Buffer {
  const buf = Buffer.alloc(counts.length * 2);
  for (let i = 0; i < counts.length; i++) buf.writeUInt16LE(counts[i], i * 2);
  return buf;
}

export function decodeMinuteCounts(buf: Uint8Array): Uint16Array {
  const counts = new Uint16Array(buf.length / 2);
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  for (let i = 0; i < counts.length; i++) counts[i] = view.getUint16(i * 2, true);
  return counts;
}
