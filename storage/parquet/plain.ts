/**
 * Parquet's PLAIN encoding, read side, for the physical types the fast reader accepts: DOUBLE
 * and INT64 into a Float64Array, BYTE_ARRAY into strings.
 */
import { PhysicalType } from './format.js';

const latin1 = new TextDecoder('latin1');

/** `count` length-prefixed strings from the start of `buf`. */
export function plainStrings(buf: Uint8Array, count: number, decoder: { decode(b: Uint8Array): string }): string[] {
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

/**
 * `count` DOUBLE or INT64 values from `buf[pos..]` as numbers. Throws RangeError when `buf`
 * holds fewer than `count` values.
 */
export function plainNumbers(buf: Uint8Array, pos: number, count: number, physicalType: number): Float64Array {
  const out = new Float64Array(count);
  plainNumbersInto(buf.subarray(pos), count, physicalType, out, 0);
  return out;
}

/**
 * `count` DOUBLE or INT64 values from the start of `buf` into `out[at..]`, without an array of
 * their own between (a page's doubles are one copy of bytes). Throws RangeError when `buf`
 * holds fewer than `count` values or `out` has no room for them.
 */
export function plainNumbersInto(buf: Uint8Array, count: number, physicalType: number, out: Float64Array, at: number): void {
  // `buf` may be a view into a larger buffer (a row group's pages): the views below would
  // read past its end without a word, so the lengths are checked here, once.
  if (count * 8 > buf.length) throw new RangeError(`${count} values need ${count * 8} bytes, the page holds ${buf.length}`);
  if (at + count > out.length) throw new RangeError(`${count} values do not fit at ${at} of ${out.length}`);
  if (physicalType === PhysicalType.DOUBLE) {
    new Uint8Array(out.buffer, out.byteOffset + at * 8, count * 8).set(buf.subarray(0, count * 8));
    return;
  }
  const view = new DataView(buf.buffer, buf.byteOffset, count * 8);
  // Two 32-bit words instead of a BigInt per value (ids are INT64: a BigInt each was the
  // costliest part of decoding a trade page); exact for every safe integer, which is all
  // the writer stores.
  for (let i = 0; i < count; i++) out[at + i] = view.getInt32(i * 8 + 4, true) * 4294967296 + view.getUint32(i * 8, true);
}
