import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { CatalogFile } from '../../../storage/catalog.js';
import { buildMinuteIndex, minuteStarts } from '../../../storage/minuteIndex.js';
import { boundarySearchSpan, firstRowAtOrAfter, groupsOf, lowerBound } from '../../../serve/reading/rowSearch.js';

const test = suite('serve/reading/rowSearch: row positions via the minute index');

// A day of 25 rows: 09:30:00.000 + 7 s steps (about 8.6 rows a minute), plus a gap.
const times = Int32Array.from({ length: 25 }, (_, i) => 34_200_000 + i * 7_000 + (i >= 20 ? 600_000 : 0));
const idx = buildMinuteIndex(times);
const starts = minuteStarts(idx);
const timeAt = (row: number) => times[row];

/** The reference: a linear scan. */
const firstAtOrAfter = (ms: number) => {
  const i = times.findIndex((t) => t >= ms);
  return i < 0 ? times.length : i;
};

test('boundary search via the minute index equals a linear scan for every millisecond bound', () => {
  for (let ms = 34_100_000; ms <= 35_100_000; ms += 250) {
    const span = boundarySearchSpan(idx, starts, ms);
    assert.is(lowerBound(span, ms, timeAt), firstAtOrAfter(ms), `bound ${ms}`);
  }
});

test('a bound on a minute start needs no times at all', () => {
  const span = boundarySearchSpan(idx, starts, 34_260_000); // 09:31:00.000
  assert.is(span.lo, span.hi);
  assert.is(span.lo, firstAtOrAfter(34_260_000));
  const noTimes = () => {
    throw new Error('times read');
  };
  assert.is(lowerBound(span, 34_260_000, noTimes), span.lo);
});

test('a bound inside a minute searches only that minute', () => {
  const span = boundarySearchSpan(idx, starts, 34_265_000); // 09:31:05
  const m = times.filter((t) => Math.floor(t / 60_000) === Math.floor(34_265_000 / 60_000)).length;
  assert.is(span.hi - span.lo, m);
  const touched: number[] = [];
  lowerBound(span, 34_265_000, (r) => (touched.push(r), times[r]));
  for (const r of touched) assert.ok(r >= span.lo && r < span.hi, `row ${r} outside the minute`);
});

test('row groups of a span', () => {
  assert.equal(groupsOf({ lo: 0, hi: 5001 }, 1200), [0, 1, 2, 3, 4]);
  assert.equal(groupsOf({ lo: 1199, hi: 1201 }, 1200), [0, 1]);
  assert.equal(groupsOf({ lo: 1200, hi: 2400 }, 1200), [1]);
  assert.equal(groupsOf({ lo: 7, hi: 7 }, 1200), []);
});

test('firstRowAtOrAfter equals a linear scan, and reads times only when a bound falls inside a minute', async () => {
  const file = { minuteIndex: idx, rows: times.length, rowGroupSize: 10 } as unknown as CatalogFile;
  let reads = 0;
  const timesOf = async () => {
    reads++;
    return timeAt;
  };
  for (let ms = 34_100_000; ms <= 35_100_000; ms += 1_000) {
    const before = reads;
    assert.is(await firstRowAtOrAfter(file, starts, ms, timesOf), firstAtOrAfter(ms), `bound ${ms}`);
    if (ms % 60_000 === 0) assert.is(reads, before, `no times read for the minute start ${ms}`);
  }
  assert.ok(reads > 0);
});

test.run();
