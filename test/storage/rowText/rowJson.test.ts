/**
 * The seal's columns serialised without a string per row (rowColumnsOf + serializeColumns)
 * give the very bytes of the reader-shaped path (columnsAsRead + serializeRows) and of
 * JSON.stringify over the same rows: random and edge-case times, codes, numbers and keys, on
 * every dataset, with a buffer made to grow mid-row; and the row text made from a day's
 * columns is the one made from its Parquet file.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SCHEMAS, type Dataset } from '../../../shared/schema.js';
import { MS_PER_DAY } from '../../../shared/timeFormat.js';
import { encodeParquet, timeFormatOf, type SymbolDayColumns } from '../../../storage/parquet/writer.js';
import { serializeColumns, serializeRows } from '../../../storage/rowText/rowJson.js';
import { columnsAsRead, rowColumnsOf, rowTextOf, rowTextOfColumns } from '../../../storage/rowText/rowTextBuild.js';
import { generatedStockDay } from '../../../bench/rowText.bench.js';

const test = suite('storage/rowText/rowJson');

function rng(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}

const EDGE_TIMES = [0, 1, 9, 10, 99, 100, 999, 1000, 59_999, 60_000, 3_599_999, 3_600_000, 34_200_000, 34_203_007, 54_000_000, MS_PER_DAY - 1];
/** Codes as ingestion carries them: letters, none (NaN), and ones JSON must escape or that are not ASCII. */
const EDGE_CODES = [NaN, 66, 83, 78, 70, 67, 76, 77, 85, 68, 32, 126, 34, 92, 0x1f, 0, 0x7f, 0xe9, 0x4e2d, 65.5, -1];
const EDGE_NUMBERS = [
  NaN,
  0,
  -0,
  1,
  -1,
  10.23,
  0.01,
  71.96,
  1e21,
  5e-324,
  2 ** 31 - 1,
  2 ** 31,
  -(2 ** 31),
  2 ** 32,
  2 ** 53,
  123456789012.34,
  1 / 3,
  3.1416,
  Infinity,
  -Infinity,
];

function randomDay(
  dataset: Dataset,
  rows: number,
  seed: number,
  symbol = '600000.SH',
  times = (r: number, rnd: () => number) => Math.floor(rnd() * MS_PER_DAY),
): SymbolDayColumns {
  const rnd = rng(seed);
  const schema = SCHEMAS[dataset];
  const values = schema.valueFields.map((f) =>
    Float64Array.from({ length: rows }, (_, r) => {
      if (f.type === 'code') return r < EDGE_CODES.length ? EDGE_CODES[r]! : rnd() < 0.2 ? NaN : f.codes!.charCodeAt(Math.floor(rnd() * f.codes!.length));
      if (r < EDGE_NUMBERS.length) return EDGE_NUMBERS[(r + f.name.length) % EDGE_NUMBERS.length]!;
      const k = rnd();
      return k < 0.1 ? NaN : k < 0.5 ? Math.round(rnd() * 1e6) / 100 : k < 0.8 ? Math.floor(rnd() * 1e9) : (rnd() - 0.5) * 10 ** Math.floor(rnd() * 30 - 10);
    }),
  );
  const timesMs = Int32Array.from({ length: rows }, (_, r) => (r < EDGE_TIMES.length ? EDGE_TIMES[r]! : times(r, rnd)));
  return { dataset, symbol, tradedate: '20240102', rows, timesMs, values };
}

/** The rows as JSON.stringify writes them, from the reader-shaped columns. */
function stringified(cols: SymbolDayColumns, from: number, to: number): string {
  const asRead = columnsAsRead(cols);
  const rows: unknown[] = [];
  for (let r = from; r < to; r++) rows.push(JSON.stringify(asRead.map((c) => c.values[r])));
  return rows.join(',');
}

function assertSame(cols: SymbolDayColumns, from: number, to: number, sizeHint: number): void {
  const fast = serializeColumns(rowColumnsOf(cols), from, to, sizeHint);
  const read = serializeRows(columnsAsRead(cols), from, to, sizeHint);
  assert.ok(fast.bytes.equals(read.bytes), `${cols.dataset} rows ${from}–${to}: the same bytes as the reader-shaped columns give`);
  assert.equal([...fast.offsets], [...read.offsets], 'the same row offsets');
  assert.is(fast.bytes.toString('utf8'), stringified(cols, from, to), 'the bytes JSON.stringify writes');
}

test('every dataset, random and edge-case values, the whole group and a part of it, a buffer that grows', () => {
  for (const dataset of ['level2', 'trade', 'order', 'index'] as const) {
    for (const seed of [1, 2]) {
      const cols = randomDay(dataset, 3000, seed);
      assertSame(cols, 0, cols.rows, 0);
      assertSame(cols, 17, 1234, 100_000);
    }
  }
});

test('keys JSON must escape, and times outside the day as formatLevel2Time writes them', () => {
  const outside = [-1, -1000, MS_PER_DAY, MS_PER_DAY + 12_345, 2 ** 31 - 1, -(2 ** 31)];
  for (const symbol of ['a"b\\c', 'ünï中文😀', '\u0001\n', '']) {
    const cols = randomDay('trade', 200, 3, symbol, (r) => outside[r % outside.length]!);
    assertSame(cols, 0, cols.rows, 0);
  }
});

test('columnsAsRead: times as the writer formats them, codes as String.fromCharCode gives them, keys on every row', () => {
  const outside = [-1, -1000, MS_PER_DAY, MS_PER_DAY + 12_345];
  for (const dataset of ['level2', 'trade', 'order', 'index'] as const) {
    const cols = randomDay(dataset, 2000, 5, '600000.SH', (r, rnd) => (r % 97 === 0 ? outside[r % outside.length]! : Math.floor(rnd() * MS_PER_DAY)));
    const asRead = columnsAsRead(cols);
    const format = timeFormatOf(cols);
    SCHEMAS[dataset].fields.forEach((f, i) => {
      const got = asRead[i]!.values;
      assert.is(got.length, cols.rows, f.name);
      for (let r = 0; r < cols.rows; r++) {
        const want =
          f.name === 'symbol'
            ? cols.symbol
            : f.name === 'tradedate'
              ? cols.tradedate
              : f.name === 'time'
                ? format(cols.timesMs[r]!)
                : f.type === 'code'
                  ? Number.isNaN(cols.values[SCHEMAS[dataset].valueFields.indexOf(f)]![r]!)
                    ? null
                    : String.fromCharCode(cols.values[SCHEMAS[dataset].valueFields.indexOf(f)]![r]!)
                  : cols.values[SCHEMAS[dataset].valueFields.indexOf(f)]![r]!;
        if (!Object.is(got[r], want)) assert.unreachable(`${dataset} ${f.name} row ${r}: ${String(got[r])}, expected ${String(want)}`);
      }
    });
    assert.is(format(34_203_007), dataset === 'index' ? '2024-01-02 09:30:03.007' : '093003007');
  }
});

test("row text from the seal's columns is byte for byte the row text made from their Parquet file", async () => {
  const day = generatedStockDay(1);
  for (const dataset of ['level2', 'trade', 'order'] as const) {
    const cols = day[dataset];
    const { rowGroupSize } = SCHEMAS[dataset];
    const file = await encodeParquet(cols, { rowGroupSize });
    const sha = 'ab'.repeat(32);
    const fromColumns = await rowTextOfColumns(cols, rowGroupSize, sha);
    assert.ok(fromColumns.equals(await rowTextOf(file, dataset, sha, dataset)), `${dataset}: ${cols.rows} rows`);
    assert.ok(cols.rows > rowGroupSize, `${dataset}: more than one row group`);
  }
});

test('a long string column makes room for the rest of its row', () => {
  const long = Array.from({ length: 50 }, (_, r) => 'x'.repeat(3000 + r) + (r % 2 ? 'é' : ''));
  const nums = Float64Array.from({ length: 50 }, (_, r) => r * 1.25);
  const rows = serializeColumns(
    [
      { kind: 'string', values: long },
      { kind: 'level2-time', ms: Int32Array.from({ length: 50 }, (_, r) => r * 1001) },
      { kind: 'number', values: nums },
      { kind: 'code', values: nums.map((v) => 65 + v) },
      { kind: 'constant', json: Buffer.from('"K"') },
    ],
    0,
    50,
  );
  const expected = long.map((s, r) =>
    JSON.stringify([s, `000000${String(r * 1001).padStart(3, '0')}`.slice(-9), r * 1.25, String.fromCharCode(65 + r * 1.25), 'K']),
  );
  assert.is(rows.bytes.toString('utf8'), expected.join(','));
});

test.run();
