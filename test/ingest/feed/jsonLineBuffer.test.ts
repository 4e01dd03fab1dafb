import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { JsonLineBuffer, kindOfLine, LINE_KINDS } from '../../../ingest/feed/jsonLineBuffer.js';
import { formatIndexTime, formatLevel2Time } from '../../../shared/timeFormat.js';
import { seededRandom } from '../../../ingest/feed/generate.js';

/** Writes each value through `write`, one per line, and returns the lines as text. */
function written<T>(values: readonly T[], write: (b: JsonLineBuffer, v: T) => void): string[] {
  const b = new JsonLineBuffer(1 << 16);
  for (const v of values) {
    b.room(64);
    write(b, v);
    b.endLine(-1);
  }
  const text = b
    .take(true)
    .map((c) => c.bytes.toString('latin1'))
    .join('');
  return text.split('\n').slice(0, -1);
}

/** Compares in bulk, reporting the first mismatch only (a million asserts would drown it). */
function allEqual<T>(values: readonly T[], got: readonly string[], want: (v: T) => string): void {
  assert.is(got.length, values.length);
  for (let i = 0; i < values.length; i++) {
    if (got[i] !== want(values[i])) assert.is(got[i], want(values[i]), `value ${String(values[i])}`);
  }
}

const nums = suite('JsonLineBuffer.num: exactly JSON.stringify of the number');
const rnd = seededRandom('json-line-buffer');

nums('prices on the cent grid, index levels on the 0.0001 grid, their sums and products', () => {
  const values: number[] = [];
  for (let i = 0; i < 200_000; i++) {
    const cents = Math.floor(rnd() * 10_000_000);
    values.push(Math.round(cents) / 100);
    values.push(Math.round(rnd() * 1e8 * 10_000) / 10_000);
    values.push(Math.round((cents / 100) * 1.0003 * 10_000) / 10_000 - 0.01 * (1 + (i % 5)));
    values.push(Math.round(rnd() * 1e12) / 100);
    values.push(-Math.round(rnd() * 1e6) / 10_000);
  }
  allEqual(
    values,
    written(values, (b, v) => b.num(v)),
    (v) => JSON.stringify(v),
  );
});

nums('integers, arbitrary fractions and the edges', () => {
  const values: (number | null)[] = [
    0,
    -0,
    1,
    9,
    10,
    99,
    100,
    2 ** 31 - 1,
    2 ** 31,
    2 ** 32 + 7,
    Number.MAX_SAFE_INTEGER,
    -Number.MAX_SAFE_INTEGER,
    2 ** 53 + 2,
    1e21,
    1.5e300,
    -7,
    0.1,
    0.01,
    0.001,
    0.0001,
    0.00001,
    1e-7,
    5e-324,
    1 / 3,
    -2 / 3,
    0.1 + 0.2,
    999_999_999_999.99,
    1e12 + 0.01,
    12_345_678_901.2345,
    9_999_999_999.9999,
    NaN,
    Infinity,
    -Infinity,
    null,
  ];
  for (let i = 0; i < 100_000; i++) {
    values.push(Math.floor(rnd() * 2 ** (1 + (i % 53))) * (i % 3 === 0 ? -1 : 1));
    values.push((rnd() - 0.5) * 10 ** ((i % 30) - 10));
  }
  allEqual(
    values,
    written(values, (b, v) => b.num(v)),
    (v) => JSON.stringify(v),
  );
});

const times = suite('JsonLineBuffer: times and dates as the feed formats them');

times('level-2 times and index clock times, every millisecond of a sampled day', () => {
  const ms = Array.from({ length: 100_000 }, (_, i) => (i * 863_999) % 86_400_000);
  ms.push(0, 86_399_999, 9 * 3_600_000 + 15 * 60_000);
  allEqual(
    ms,
    written(ms, (b, v) => b.level2Time(v)),
    formatLevel2Time,
  );
  const got = written(ms, (b, v) => {
    b.dashedDate('20251231');
    b.ascii(' ');
    b.clockTime(v);
  });
  allEqual(ms, got, (v) => formatIndexTime('20251231', v));
});

const chunks = suite('JsonLineBuffer: chunks');

chunks('lines never split across chunks; counts per chunk and per kind add up', () => {
  const b = new JsonLineBuffer(1000);
  const lines: string[] = [];
  for (let i = 0; i < 500; i++) {
    const kind = LINE_KINDS[i % 4];
    const line = i % 7 === 0 ? `{"kind":"${kind}", broken` : JSON.stringify({ kind, n: i, pad: 'x'.repeat(i % 90) });
    lines.push(line);
    b.line(line);
  }
  b.line('{"kind":"futures","n":1}');
  b.line(JSON.stringify({ kind: 'order', big: 'y'.repeat(3000) })); // larger than a chunk: a chunk of its own
  lines.push('{"kind":"futures","n":1}', JSON.stringify({ kind: 'order', big: 'y'.repeat(3000) }));
  const got = b.take(true);
  assert.ok(got.length > 30, `${got.length} chunks`);
  let total = 0;
  const perKind = [0, 0, 0, 0];
  const back: string[] = [];
  for (const c of got) {
    const text = c.bytes.toString('latin1');
    assert.ok(text.endsWith('\n'), 'a chunk ends at a line end');
    const ls = text.split('\n').slice(0, -1);
    assert.is(ls.length, c.lines);
    total += c.lines;
    for (let k = 0; k < 4; k++) perKind[k] += c.perKind[k];
    back.push(...ls);
  }
  assert.equal(back, lines);
  assert.is(total, 502);
  // Every line begins with its kind except the futures one: 125 + 126 of orders (the big one).
  assert.equal(perKind, [125, 125, 125, 126]);
  assert.equal(b.take(true), [], 'nothing left');
});

chunks('kindOfLine reads the kind from the start of a line only', () => {
  assert.is(kindOfLine('{"kind":"level2","symbol":"600000.SH"}'), 0);
  assert.is(kindOfLine('{"kind":"index"'), 1);
  assert.is(kindOfLine('{"kind":"trade","x":1}'), 2);
  assert.is(kindOfLine('{"kind":"order","x":1}'), 3);
  assert.is(kindOfLine('{"kind":"orders","x":1}'), -1, 'the whole member value, quote included');
  assert.is(kindOfLine('{"kind":"futures"}'), -1);
  assert.is(kindOfLine('{"symbol":"600000.SH","kind":"level2"}'), -1);
  assert.is(kindOfLine(''), -1);
});

nums.run();
times.run();
chunks.run();
