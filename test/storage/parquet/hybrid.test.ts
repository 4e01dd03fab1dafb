import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeHybrid } from '../../../storage/parquet/hybrid.js';

// Expected values are the Parquet spec's own examples (parquet-format Encodings.md) or
// worked by hand from its grammar: header varint, low bit 0 = RLE run (count << 1, value in
// ceil(width / 8) bytes), 1 = bit-packed groups of 8 ((groups << 1) | 1, LSB first).

function decode(bytes: number[], bitWidth: number, count: number): { n: number; values: number[] } {
  const out = new Int32Array(count);
  const buf = Uint8Array.from(bytes);
  const n = decodeHybrid(buf, 0, buf.length, bitWidth, count, out);
  return { n, values: Array.from(out.subarray(0, n)) };
}

test('bit-packed: the spec example, 0..7 in 3 bits is 0x88 0xC6 0xFA', () => {
  assert.equal(decode([0x03, 0x88, 0xc6, 0xfa], 3, 8), { n: 8, values: [0, 1, 2, 3, 4, 5, 6, 7] });
});

test('RLE runs: 300 ones then 5 zeros at width 1 (a varint header longer than a byte)', () => {
  // 300 << 1 = 600 = varint 0xD8 0x04
  const { n, values } = decode([0xd8, 0x04, 0x01, 0x0a, 0x00], 1, 305);
  assert.is(n, 305);
  assert.equal(values, [...Array(300).fill(1), ...Array(5).fill(0)]);
});

test('RLE value of width 9 takes two bytes, little-endian', () => {
  assert.equal(decode([0x06, 0x2c, 0x01], 9, 3), { n: 3, values: [300, 300, 300] });
});

test('a bit-packed group padded past count: only count values are written', () => {
  // definition levels 1,0,1 of a 3-row page: one group of 8, bits 0b00000101
  assert.equal(decode([0x03, 0x05], 1, 3), { n: 3, values: [1, 0, 1] });
});

test('bytes that end early: returns how many it decoded, and stops inside a cut varint', () => {
  assert.equal(decode([0x08, 0x01], 1, 10), { n: 4, values: [1, 1, 1, 1] });
  // A header varint whose continuation byte is missing: must return, not loop.
  assert.equal(decode([0x08, 0x01, 0xd8], 1, 10), { n: 4, values: [1, 1, 1, 1] });
});

test.run();
