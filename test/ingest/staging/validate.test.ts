import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { validateFeedLine, validateSnapshot, type ValidationResult } from '../../../ingest/staging/validate.js';
import { canonicalFeedLine } from '../../../ingest/staging/canonicalLine.js';

// Numeric fields of each dataset in the order of the spec's field tables, written out by hand
// (not taken from shared/schema.ts), so a slip in the schema is caught here.
const lv = (p: string, n: number) => Array.from({ length: n }, (_, i) => `${p}${i + 1}`);
const L2_NUMERIC = [
  'open',
  'high',
  'low',
  'close',
  'pre_close',
  'volume',
  'amount',
  ...lv('bid', 10),
  ...lv('ask', 10),
  ...lv('bid_vol', 10),
  ...lv('ask_vol', 10),
];
const IDX_NUMERIC = [
  'open',
  'high',
  'low',
  'close',
  'pre_close',
  'pct_chg',
  'vol',
  'amount',
  'transaction_num',
  ...lv('bid', 5),
  ...lv('ask', 5),
  ...lv('bid_vol', 5),
  ...lv('ask_vol', 5),
];

/** A complete, valid level-2 feed object with distinct values per field. */
function level2Obj(extra: Record<string, unknown> = {}): Record<string, unknown> {
  const o: Record<string, unknown> = { kind: 'level2', symbol: '600000.SH', tradedate: '20250102', time: '093003120' };
  L2_NUMERIC.forEach((f, i) => (o[f] = 10 + i / 100));
  return { ...o, ...extra };
}

function indexObj(extra: Record<string, unknown> = {}): Record<string, unknown> {
  const o: Record<string, unknown> = { kind: 'index', tradedate: '20250102', symbol: '000300', time: '2025-01-02 09:30:03.120' };
  IDX_NUMERIC.forEach((f, i) => (o[f] = 3000 + i * 1.25));
  o.transaction_num = 123456;
  return { ...o, ...extra };
}

const line = (o: unknown) => JSON.stringify(o);

function expectReject(r: ValidationResult, pattern: RegExp, what: string): void {
  assert.not.ok(r.ok, `${what}: expected a rejection, got ${JSON.stringify(r)}`);
  if (!r.ok) assert.match(r.reason, pattern, `${what}: reason "${r.reason}"`);
}

function expectRow(r: ValidationResult, what: string) {
  if (!r.ok) assert.unreachable(`${what}: rejected with "${r.reason}"`);
  return (r as Extract<ValidationResult, { ok: true }>).row;
}

const T_0930_03_120 = ((9 * 60 + 30) * 60 + 3) * 1000 + 120;

/** The key of a row made from level2Obj or indexObj: its dataset and symbol, 2 Jan 2025, 09:30:03.120. */
function assertRowKey(row: ReturnType<typeof expectRow>, dataset: string, symbol: string): void {
  assert.is(row.dataset, dataset);
  assert.is(row.symbol, symbol);
  assert.is(row.tradedate, '20250102');
  assert.is(row.timeMs, T_0930_03_120);
}

// ---------------------------------------------------------------------------------------------
const good = suite('validateFeedLine: good lines');

good('a level-2 line becomes a row with values in spec order', () => {
  const obj = level2Obj();
  const row = expectRow(validateFeedLine(line(obj)), 'level2');
  assertRowKey(row, 'level2', '600000.SH');
  assert.equal(
    [...row.values],
    L2_NUMERIC.map((f) => obj[f]),
  );
});

good('an index line becomes a row; pre_close and pct_chg are forced null', () => {
  const obj = indexObj();
  const row = expectRow(validateFeedLine(line(obj)), 'index');
  assertRowKey(row, 'index', '000300');
  const expected = IDX_NUMERIC.map((f) => (f === 'pre_close' || f === 'pct_chg' ? null : obj[f]));
  assert.equal([...row.values], expected);
  assert.is(row.values[IDX_NUMERIC.indexOf('pre_close')], null);
  assert.is(row.values[IDX_NUMERIC.indexOf('pct_chg')], null);
  assert.is(row.values[IDX_NUMERIC.indexOf('transaction_num')], 123456);
});

good('explicit nulls and missing numerics become null', () => {
  const obj = level2Obj({ open: null, high: null, low: null, close: null });
  for (const f of [...lv('bid', 10).slice(1), ...lv('ask', 10).slice(1), ...lv('bid_vol', 10).slice(1), ...lv('ask_vol', 10).slice(1)]) delete obj[f];
  const row = expectRow(validateFeedLine(line(obj)), 'auction row');
  L2_NUMERIC.forEach((f, i) => {
    const want = f in obj ? obj[f] : null;
    assert.is(row.values[i], want, f);
  });
  const bare = expectRow(validateFeedLine(line({ kind: 'index', symbol: '000001', tradedate: '20250102', time: '2025-01-02 09:30:00.000' })), 'bare index');
  assert.equal(
    [...bare.values],
    IDX_NUMERIC.map(() => null),
  );
});

good('transaction_num null or missing is null', () => {
  const a = expectRow(validateFeedLine(line(indexObj({ transaction_num: null }))), 'null');
  assert.is(a.values[IDX_NUMERIC.indexOf('transaction_num')], null);
  const o = indexObj();
  delete o.transaction_num;
  const b = expectRow(validateFeedLine(line(o)), 'missing');
  assert.is(b.values[IDX_NUMERIC.indexOf('transaction_num')], null);
});

good('pre_close/pct_chg of an index are null even when the feed sends null or nothing', () => {
  const o = indexObj({ pre_close: null });
  delete o.pct_chg;
  const row = expectRow(validateFeedLine(line(o)), 'index');
  assert.is(row.values[IDX_NUMERIC.indexOf('pre_close')], null);
  assert.is(row.values[IDX_NUMERIC.indexOf('pct_chg')], null);
});

good('the level-2 symbol is canonicalised from every accepted form', () => {
  const forms: [string, string][] = [
    ['600000', '600000.SH'],
    ['sh600000', '600000.SH'],
    ['SH600000', '600000.SH'],
    ['600000.sh', '600000.SH'],
    ['600000.XSHG', '600000.SH'],
    ['000001', '000001.SZ'],
    ['000001.XSHE', '000001.SZ'],
    ['sz000001', '000001.SZ'],
    ['830799', '830799.BJ'],
    ['bj920000', '920000.BJ'],
    ['430047.BJ', '430047.BJ'],
  ];
  for (const [given, canonical] of forms) {
    const row = expectRow(validateFeedLine(line(level2Obj({ symbol: given }))), given);
    assert.is(row.symbol, canonical, given);
  }
});

good('zero, negatives, integers and extra members are kept or ignored, not rejected', () => {
  const row = expectRow(validateFeedLine(line(level2Obj({ volume: 0, amount: 0, open: -1.5, note: 'x', transaction_num: 'n/a' }))), 'l2');
  assert.is(row.values[L2_NUMERIC.indexOf('volume')], 0);
  assert.is(row.values[L2_NUMERIC.indexOf('open')], -1.5);
  assert.is(row.values.length, L2_NUMERIC.length);
});

good('CR, leading and trailing blanks around the JSON do not matter', () => {
  expectRow(validateFeedLine('  ' + line(level2Obj()) + ' \r'), 'padded');
});

// ---------------------------------------------------------------------------------------------
const bad = suite('validateFeedLine: every bad-input kind with its reason');

bad('not JSON', () => {
  for (const text of ['{"kind":"level2","symbol":"600000.SH", truncated', '{', 'hello', '{"a":1}}', "{'kind':'level2'}", '']) {
    expectReject(validateFeedLine(text), /JSON/i, JSON.stringify(text));
  }
});

bad('JSON that is not an object', () => {
  for (const text of ['[1,2]', 'null', '42', '"level2"', 'true', '[]']) expectReject(validateFeedLine(text), /object/i, text);
});

bad('missing or unknown kind', () => {
  const o = level2Obj();
  delete o.kind;
  expectReject(validateFeedLine(line(o)), /kind/, 'missing kind');
  expectReject(validateFeedLine('{}'), /kind/, 'empty object');
  for (const k of ['futures', 'Level2', 'INDEX', '', 1, null, true, ['level2']]) {
    expectReject(validateFeedLine(line(level2Obj({ kind: k }))), /kind/, `kind ${JSON.stringify(k)}`);
  }
});

bad('missing symbol', () => {
  const o = level2Obj();
  delete o.symbol;
  expectReject(validateFeedLine(line(o)), /symbol/, 'level2');
  const i = indexObj();
  delete i.symbol;
  expectReject(validateFeedLine(line(i)), /symbol/, 'index');
});

bad('malformed stock symbols', () => {
  for (const s of [
    'ABC123',
    '600000.SS',
    '600000.',
    ' 600000',
    '../600000',
    '600000.SH/..',
    'XSHG600000',
    '60000',
    '6000000',
    '100000',
    '',
    600000,
    null,
    true,
    ['600000.SH'],
    { code: '600000' },
  ]) {
    expectReject(validateFeedLine(line(level2Obj({ symbol: s }))), /symbol/, `symbol ${JSON.stringify(s)}`);
  }
});

bad('malformed index symbols', () => {
  for (const s of ['000300.SH', 'SH000300', '00300', '0003000', 'ABCDEF', '../000300', 300, null, '']) {
    expectReject(validateFeedLine(line(indexObj({ symbol: s }))), /symbol/, `symbol ${JSON.stringify(s)}`);
  }
});

bad('missing or malformed tradedate', () => {
  const o = level2Obj();
  delete o.tradedate;
  expectReject(validateFeedLine(line(o)), /tradedate/, 'missing');
  for (const d of ['20251340', '20250230', '2025-01-02', '2025010', '202501021', 20250102, null, '', ' 20250102']) {
    expectReject(validateFeedLine(line(level2Obj({ tradedate: d }))), /tradedate/, `level2 tradedate ${JSON.stringify(d)}`);
    expectReject(validateFeedLine(line(indexObj({ tradedate: d }))), /tradedate/, `index tradedate ${JSON.stringify(d)}`);
  }
});

bad('missing or malformed level-2 time', () => {
  const o = level2Obj();
  delete o.time;
  expectReject(validateFeedLine(line(o)), /time/, 'missing');
  for (const t of [
    '25:61:00',
    '250000000',
    '096000000',
    '093060000',
    '09300000',
    '0930000000',
    '093000',
    '09:30:00.000',
    '2025-01-02 09:30:00.000',
    93000000,
    null,
    '',
  ]) {
    expectReject(validateFeedLine(line(level2Obj({ time: t }))), /time/, `time ${JSON.stringify(t)}`);
  }
});

bad('missing or malformed index time', () => {
  const o = indexObj();
  delete o.time;
  expectReject(validateFeedLine(line(o)), /time/, 'missing');
  for (const t of ['25:61:00', '093003120', '2025-01-02 25:00:00.000', '2025-01-02 09:30:00', '2025-01-02T09:30:00.000', '2025-02-30 09:30:00.000', null, 1]) {
    expectReject(validateFeedLine(line(indexObj({ time: t }))), /time/, `time ${JSON.stringify(t)}`);
  }
});

bad('index time date differs from tradedate', () => {
  expectReject(validateFeedLine(line(indexObj({ time: '2025-01-03 09:30:00.000' }))), /tradedate/, 'next day');
  expectReject(validateFeedLine(line(indexObj({ time: '1999-01-01 10:00:00.000' }))), /tradedate/, '1999');
  expectReject(validateFeedLine(line(indexObj({ tradedate: '20250103' }))), /tradedate/, 'tradedate moved');
});

bad('non-numeric numbers: string, boolean, array, object — for every numeric field', () => {
  for (const [make, fields] of [
    [level2Obj, L2_NUMERIC],
    [indexObj, IDX_NUMERIC],
  ] as const) {
    for (const f of fields) {
      for (const v of ['12.5', 'n/a', true, false, [1], [], { v: 1 }]) {
        const r = validateFeedLine(line(make({ [f]: v })));
        expectReject(r, new RegExp(`\\b${f}\\b`), `${f} = ${JSON.stringify(v)}`);
      }
    }
  }
});

bad('a number that overflows to Infinity is rejected', () => {
  const text = line(level2Obj()).replace('"close":10.03', '"close":1e999');
  assert.ok(text.includes('1e999'));
  expectReject(validateFeedLine(text), /close/, 'close 1e999');
});

bad('non-integer transaction_num', () => {
  for (const v of [1.5, 100.01, -0.5]) {
    expectReject(validateFeedLine(line(indexObj({ transaction_num: v }))), /transaction_num/, `transaction_num ${v}`);
  }
});

// ---------------------------------------------------------------------------------------------
const direct = suite('validateSnapshot (Kafka values: kind given by the topic)');

direct('validates against the dataset given, not a kind member', () => {
  const o = level2Obj();
  delete o.kind;
  const row = expectRow(validateSnapshot(o, 'level2'), 'level2 without kind');
  assert.is(row.dataset, 'level2');
  const i = indexObj();
  delete i.kind;
  assert.is(expectRow(validateSnapshot(i, 'index'), 'index').dataset, 'index');
  // a stock row on the index topic fails on its symbol
  expectReject(validateSnapshot(level2Obj(), 'index'), /symbol/, 'stock on index topic');
});

direct('non-objects are rejected', () => {
  for (const v of [null, undefined, 42, 'x', [level2Obj()]]) {
    expectReject(validateSnapshot(v, 'level2'), /object/i, String(v));
  }
});

const ticks = suite('trades and orders (api-contract: Trades and orders)');

const tradeObj = (extra: Record<string, unknown> = {}) => ({
  kind: 'trade',
  symbol: 'sz000001',
  tradedate: '20250102',
  time: '093003120',
  trade_id: 4242,
  price: 11.52,
  volume: 300,
  amount: 3456,
  bs_flag: 'S',
  trade_code: 'F',
  buy_order_id: 17,
  sell_order_id: 4240,
  ...extra,
});
const orderObj = (extra: Record<string, unknown> = {}) => ({
  kind: 'order',
  symbol: '600000',
  tradedate: '20250102',
  time: '092000000',
  order_id: 9,
  price: null,
  volume: 1000,
  amount: null,
  side: 'B',
  order_type: 'M',
  order_no: 5_000_000_001,
  ...extra,
});

ticks('a trade: stock symbol canonical, ids as numbers, letters as their character codes, in §3b order', () => {
  const row = expectRow(validateFeedLine(line(tradeObj())), 'trade');
  assert.equal([row.dataset, row.symbol, row.timeMs], ['trade', '000001.SZ', T_0930_03_120]);
  // trade_id, price, volume, amount, bs_flag, trade_code, buy_order_id, sell_order_id
  assert.equal(row.values, [4242, 11.52, 300, 3456, 'S'.charCodeAt(0), 'F'.charCodeAt(0), 17, 4240]);
  const cancel = expectRow(validateFeedLine(line(tradeObj({ price: 0, amount: 0, bs_flag: null, trade_code: 'C', sell_order_id: null }))), 'cancel');
  assert.equal(cancel.values, [4242, 0, 300, 0, null, 'C'.charCodeAt(0), 17, null]);
});

ticks('an order: market order with null price and amount; every order type and side', () => {
  const row = expectRow(validateFeedLine(line(orderObj())), 'order');
  assert.equal([row.dataset, row.symbol], ['order', '600000.SH']);
  assert.equal(row.values, [9, null, 1000, null, 'B'.charCodeAt(0), 'M'.charCodeAt(0), 5_000_000_001]);
  for (const order_type of ['L', 'M', 'U', 'D'])
    for (const side of ['B', 'S']) expectRow(validateFeedLine(line(orderObj({ side, order_type }))), `${side} ${order_type}`);
});

ticks('bad trades and orders are rejected with the reason naming the member', () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [tradeObj({ trade_id: undefined }), /^trade_id is missing$/],
    [tradeObj({ trade_id: null }), /^trade_id is missing$/],
    [tradeObj({ trade_id: 1.5 }), /^trade_id is not an integer$/],
    [tradeObj({ trade_id: 2 ** 53 }), /^trade_id is not an integer$/],
    [tradeObj({ bs_flag: 'b' }), /^bs_flag must be B, S or N or null$/],
    [tradeObj({ bs_flag: 66 }), /^bs_flag must be/],
    [tradeObj({ trade_code: '' }), /^trade_code must be F or C or null$/],
    [tradeObj({ sell_order_id: '4240' }), /^sell_order_id is not a number$/],
    [tradeObj({ time: '93003120' }), /time is not HHMMSSmmm/],
    [tradeObj({ symbol: 'IF2501' }), /symbol/],
    [orderObj({ order_id: undefined }), /^order_id is missing$/],
    [orderObj({ side: undefined }), /^side is missing$/],
    [orderObj({ side: 'N' }), /^side must be B or S$/],
    [orderObj({ order_type: null }), /^order_type is missing$/],
    [orderObj({ order_type: 'LM' }), /^order_type must be L, M, U or D$/],
    [orderObj({ price: 'x' }), /^price is not a number$/],
  ];
  for (const [o, re] of cases) expectReject(validateFeedLine(line(o)), re, JSON.stringify(o));
  // a six-digit code is a stock here (000300 → 000300.SZ), never an index
  assert.is(expectRow(validateFeedLine(line(tradeObj({ symbol: '000300' }))), '000300').symbol, '000300.SZ');
});

ticks('the canonical feed line of a validated trade or order validates back to the same row', () => {
  for (const o of [tradeObj(), tradeObj({ bs_flag: null, trade_code: 'C', buy_order_id: null }), orderObj(), orderObj({ order_type: 'D', price: 10.5 })]) {
    const row = expectRow(validateFeedLine(line(o)), 'original');
    const text = canonicalFeedLine(row.dataset, row.tradedate, row.symbol, row.timeMs, row.values);
    const back = JSON.parse(text) as Record<string, unknown>;
    for (const k of ['bs_flag', 'trade_code', 'side', 'order_type']) if (k in o) assert.is(back[k], (o as Record<string, unknown>)[k], k);
    assert.equal(expectRow(validateFeedLine(text), 'canonical'), row);
  }
});

good.run();
bad.run();
direct.run();
ticks.run();
