import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { buildMinuteIndex, decodeMinuteCounts, encodeMinuteCounts, minuteStarts, rowsBeforeMinute } from '../../storage/minuteIndex.js';

const ms = (h: number, m: number, s = 0, f = 0): number => ((h * 60 + m) * 60 + s) * 1000 + f;
const minute = (h: number, m: number): number => h * 60 + m;

/** Reference: rows strictly before the start of minute-of-day `m`, by brute force. */
function naiveRowsBefore(times: readonly number[], m: number): number {
  return times.filter((t) => t < m * 60_000).length;
}

// A small hand-made day: 3 rows in 09:30, none in 09:31, 2 in 09:32, 1 at 11:29:59.999, 2 in 13:00.
const TIMES = [ms(9, 30, 0, 0), ms(9, 30, 3, 500), ms(9, 30, 59, 999), ms(9, 32, 0, 0), ms(9, 32, 30), ms(11, 29, 59, 999), ms(13, 0, 0, 1), ms(13, 0, 2)];

// ---------------------------------------------------------------------------------------------
const build = suite('buildMinuteIndex');

build('base is the first row minute; counts cover first..last minute', () => {
  const idx = buildMinuteIndex(Int32Array.from(TIMES));
  assert.is(idx.base, minute(9, 30));
  assert.is(idx.counts.length, minute(13, 0) - minute(9, 30) + 1);
  assert.is(idx.counts[0], 3);
  assert.is(idx.counts[1], 0);
  assert.is(idx.counts[2], 2);
  assert.is(idx.counts[minute(11, 29) - minute(9, 30)], 1);
  assert.is(idx.counts[minute(11, 30) - minute(9, 30)], 0);
  assert.is(idx.counts[idx.counts.length - 1], 2);
  assert.is(
    idx.counts.reduce((a, b) => a + b, 0),
    TIMES.length,
  );
});

build('a minute boundary row belongs to the minute it starts', () => {
  const idx = buildMinuteIndex(Int32Array.from([ms(9, 29, 59, 999), ms(9, 30, 0, 0)]));
  assert.is(idx.base, minute(9, 29));
  assert.equal(Array.from(idx.counts), [1, 1]);
});

build('single row and empty input', () => {
  const one = buildMinuteIndex(Int32Array.from([ms(14, 59, 59, 999)]));
  assert.is(one.base, minute(14, 59));
  assert.equal(Array.from(one.counts), [1]);
  const none = buildMinuteIndex(new Int32Array(0));
  assert.is(none.counts.length, 0);
});

build('a dense minute: one row every millisecond of 09:31 fits the 16-bit counts', () => {
  const times = Int32Array.from({ length: 60_000 }, (_, i) => ms(9, 31) + i);
  const idx = buildMinuteIndex(times);
  assert.is(idx.base, minute(9, 31));
  assert.equal(Array.from(idx.counts), [60_000]);
});

build('a generated day: counts match a brute-force count per minute', () => {
  const times: number[] = [];
  for (let t = ms(9, 15); t < ms(11, 30); t += 3000) times.push(t + ((t / 3000) % 7) * 100);
  for (let t = ms(13, 0); t < ms(15, 0); t += 3000) times.push(t + 999);
  const idx = buildMinuteIndex(Int32Array.from(times));
  for (let i = 0; i < idx.counts.length; i++) {
    const m = idx.base + i;
    const expected = times.filter((t) => Math.floor(t / 60_000) === m).length;
    assert.is(idx.counts[i], expected, `minute ${m}`);
  }
});

// ---------------------------------------------------------------------------------------------
const starts = suite('minuteStarts / rowsBeforeMinute');

starts('prefix sums', () => {
  const idx = buildMinuteIndex(Int32Array.from(TIMES));
  const s = minuteStarts(idx);
  assert.is(s.length, idx.counts.length + 1);
  assert.is(s[0], 0);
  assert.is(s[1], 3);
  assert.is(s[2], 3);
  assert.is(s[3], 5);
  assert.is(s[s.length - 1], TIMES.length);
});

starts('rows before any minute of the day equal a brute-force count', () => {
  const idx = buildMinuteIndex(Int32Array.from(TIMES));
  const s = minuteStarts(idx);
  for (let m = 0; m < 1440; m++) assert.is(rowsBeforeMinute(idx, s, m), naiveRowsBefore(TIMES, m), `minute ${m}`);
});

starts('hand-checked points: before the first row, inside, after the last', () => {
  const idx = buildMinuteIndex(Int32Array.from(TIMES));
  const s = minuteStarts(idx);
  assert.is(rowsBeforeMinute(idx, s, minute(9, 15)), 0);
  assert.is(rowsBeforeMinute(idx, s, minute(9, 30)), 0);
  assert.is(rowsBeforeMinute(idx, s, minute(9, 31)), 3);
  assert.is(rowsBeforeMinute(idx, s, minute(9, 32)), 3);
  assert.is(rowsBeforeMinute(idx, s, minute(9, 33)), 5);
  assert.is(rowsBeforeMinute(idx, s, minute(11, 30)), 6);
  assert.is(rowsBeforeMinute(idx, s, minute(13, 0)), 6);
  assert.is(rowsBeforeMinute(idx, s, minute(13, 1)), 8);
  assert.is(rowsBeforeMinute(idx, s, minute(15, 0)), 8);
  assert.is(rowsBeforeMinute(idx, s, 1439), 8);
});

starts('empty index: zero rows before every minute', () => {
  const idx = buildMinuteIndex(new Int32Array(0));
  const s = minuteStarts(idx);
  for (const m of [0, 570, 1439]) assert.is(rowsBeforeMinute(idx, s, m), 0);
});

// ---------------------------------------------------------------------------------------------
const codec = suite('encodeMinuteCounts / decodeMinuteCounts');

codec('little-endian uint16, two bytes a minute', () => {
  const buf = encodeMinuteCounts(Uint16Array.from([1, 0x0203, 60_000, 0]));
  assert.equal(Array.from(buf), [0x01, 0x00, 0x03, 0x02, 0x60, 0xea, 0x00, 0x00]);
});

codec('round trip, including 0 and the 16-bit maximum', () => {
  const counts = Uint16Array.from([0, 1, 20, 19, 65_535, 60_000, 0, 7]);
  assert.equal(Array.from(decodeMinuteCounts(encodeMinuteCounts(counts))), Array.from(counts));
  assert.equal(Array.from(decodeMinuteCounts(encodeMinuteCounts(new Uint16Array(0)))), []);
});

codec('decodes from a view at an odd offset of a larger buffer (as SQLite blobs may be)', () => {
  const inner = encodeMinuteCounts(Uint16Array.from([5, 300, 65_535]));
  const big = Buffer.alloc(inner.length + 3, 0xff);
  inner.copy(big, 1);
  const view = big.subarray(1, 1 + inner.length);
  assert.equal(Array.from(decodeMinuteCounts(view)), [5, 300, 65_535]);
});

codec('a built index survives encode/decode', () => {
  const idx = buildMinuteIndex(Int32Array.from(TIMES));
  assert.equal(Array.from(decodeMinuteCounts(encodeMinuteCounts(idx.counts))), Array.from(idx.counts));
});

build.run();
starts.run();
codec.run();
