import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { JSON_NUMBER_MAX_BYTES, writeDigits, writeJsonNumber, writePadded } from '../../shared/jsonNumber.js';

/** The one number writer of the feed lines and the detailed-history rows, against JSON.stringify itself. */
const test = suite('JSON numbers into bytes');

function written(v: number | null): string {
  const buf = Buffer.alloc(JSON_NUMBER_MAX_BYTES + 3, 0x7e);
  const end = writeJsonNumber(buf, 3, v);
  // Nothing before the position given, nothing past the position returned.
  assert.equal([...buf.subarray(0, 3)], [0x7e, 0x7e, 0x7e]);
  assert.ok(end - 3 <= JSON_NUMBER_MAX_BYTES, `${v} fits the room promised`);
  if (end < buf.length) assert.is(buf[end], 0x7e);
  return buf.toString('latin1', 3, end);
}

test('edge cases: integers across int32 and 2^53, the 0.01 and 0.0001 grids and their bounds, tiny and huge doubles', () => {
  const edge = [
    0,
    -0,
    1,
    -1,
    9,
    10,
    99,
    100,
    12345,
    2 ** 31 - 1,
    2 ** 31,
    2 ** 31 + 1,
    4294967296,
    99999999,
    100000000,
    123456789012,
    2 ** 53 - 1,
    2 ** 53,
    2 ** 53 + 2,
    1e21,
    1.5e300,
    5e-324,
    1e-7,
    0.000001,
    0.0001,
    0.00005,
    0.1,
    0.2,
    0.1 + 0.2,
    0.5,
    1.05,
    71.96,
    -71.96,
    10.1,
    3.1416,
    3.14159,
    99999999999.9999,
    1e10 - 0.0001,
    1e10 + 0.0001,
    1e12 - 0.01,
    1e12 + 0.01,
    1e11 - 0.0001,
    1e11 + 0.5,
    123456.78,
    1234567890.12,
    0.0011,
    7.0001,
    Number.MAX_VALUE,
    -Number.MAX_VALUE,
    1 / 3,
    -1 / 3,
    100.1,
    2.675,
    1.005,
  ];
  for (const v of edge) assert.is(written(v), JSON.stringify(v), `value ${v}`);
});

test('null, NaN and the infinities are null, as JSON.stringify writes them', () => {
  for (const v of [null, NaN, Infinity, -Infinity]) assert.is(written(v), 'null');
});

test('random prices, amounts, volumes and arbitrary doubles (two seeds)', () => {
  for (const start of [42, 7]) randomValues(start);
});

function randomValues(start: number): void {
  let seed = start;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let i = 0; i < 100_000; i++) {
    const kind = i % 5;
    const v =
      kind === 0
        ? Math.round(rnd() * 1e6) / 100
        : kind === 1
          ? Math.round(rnd() * 1e8) / 1e4
          : kind === 2
            ? Math.floor(rnd() * 1e12) * 100
            : kind === 3
              ? Math.round(rnd() * 1e13) / 100
              : (rnd() - 0.5) * 10 ** Math.floor(rnd() * 40 - 20);
    assert.is(written(v), JSON.stringify(v), `value ${v}`);
    assert.is(written(-v), JSON.stringify(-v), `value ${-v}`);
  }
}

test('digits and zero-padded digits', () => {
  const buf = Buffer.alloc(32);
  assert.is(buf.toString('latin1', 0, writeDigits(buf, 0, 9007199254740991)), '9007199254740991');
  assert.is(buf.toString('latin1', 0, writePadded(buf, 0, 7, 3)), '007');
  assert.is(buf.toString('latin1', 0, writePadded(buf, 0, 93015123, 9)), '093015123');
});

test.run();
