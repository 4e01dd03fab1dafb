/**
 * Parquet's RLE / bit-packed hybrid encoding, read side: the definition levels of an OPTIONAL
 * column and the indices of a dictionary-encoded page. Decodes into a caller's Int32Array so a
 * page costs no allocation per value.
 */

/**
 * Decodes up to `count` values of `bitWidth` bits from `buf[pos..end)` into `out`; returns how
 * many it decoded, less than `count` when the bytes end first (the caller decides what that
 * means: a damaged page).
 */
export function decodeHybrid(buf: Uint8Array, pos: number, end: number, bitWidth: number, count: number, out: Int32Array): number {
  let n = 0;
  const byteWidth = (bitWidth + 7) >> 3;
  const mask = bitWidth === 32 ? -1 : (1 << bitWidth) - 1;
  while (n < count && pos < end) {
    let header = 0;
    let mul = 1;
    for (;;) {
      // Bounded: past the end a typed array reads undefined, which would never end the varint.
      if (pos >= end) return n;
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
  return n;
}
