import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { JsonBytesWriter } from '../../../storage/rowText/jsonBytes.js';
import { serializeRows, sliceRows } from '../../../storage/rowText/rowJson.js';

const test = suite('JSON bytes writer');

function written(v: number): string {
  const w = new JsonBytesWriter(8);
  w.number(v);
  return w.bytes().toString('utf8');
}

test('numbers are written exactly as JSON.stringify writes them', () => {
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

test('NaN is the decoder null', () => {
  assert.is(written(NaN), 'null');
});

test('strings: plain ASCII copied, anything else escaped as JSON.stringify does', () => {
  for (const s of ['600000.SH', '', 'a"b', 'back\\slash', 'tab\t', 'line\n', 'ünï', '中文', '\u0001', 'emoji 😀']) {
    const w = new JsonBytesWriter(4);
    w.string(s);
    assert.is(w.bytes().toString('utf8'), JSON.stringify(s));
  }
});

test('serialised rows and their slices parse back to the values', () => {
  const nums = Float64Array.from([1.5, NaN, -2, 3.25]);
  const strs = ['a', 'b', 'c', 'd'];
  const rows = serializeRows(
    [
      { kind: 'string', values: strs },
      { kind: 'number', values: nums },
    ],
    0,
    4,
  );
  assert.equal(JSON.parse(`[${rows.bytes.toString()}]`), [
    ['a', 1.5],
    ['b', null],
    ['c', -2],
    ['d', 3.25],
  ]);
  assert.equal(JSON.parse(`[${sliceRows(rows, 1, 3).toString()}]`), [
    ['b', null],
    ['c', -2],
  ]);
  assert.equal(JSON.parse(`[${sliceRows(rows, 3, 4).toString()}]`), [['d', 3.25]]);
  assert.is(sliceRows(rows, 2, 2).length, 0);
  const partial = serializeRows([{ kind: 'number', values: nums }], 2, 4);
  assert.equal(JSON.parse(`[${partial.bytes.toString()}]`), [[-2], [3.25]]);
});

test.run();
