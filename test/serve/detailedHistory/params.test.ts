import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertApiError } from '../../support/apiErrors.js';
import { ApiError } from '../../../serve/http/apiError.js';
import { parseApiRequest, type ApiRequest } from '../../../serve/http/apiRequest.js';
import { CursorCodec } from '../../../serve/detailedHistory/cursor.js';
import { parseLevel2Query, type Level2Query } from '../../../serve/detailedHistory/params.js';
import { SCHEMAS } from '../../../shared/schema.js';

const codec = new CursorCodec(Buffer.alloc(32, 1));
const API = new Set(['level2_quote_history', 'tick_history']);

function req(params: Record<string, unknown>, fields?: string | null): ApiRequest {
  return { apiname: 'level2_quote_history', apikey: 'k', fields, params };
}
const parse = (params: Record<string, unknown>, fields?: string | null): Level2Query => parseLevel2Query(req(params, fields), codec);

/** Asserts a 400 whose message matches (names the parameter). */
function rejects(params: Record<string, unknown>, message: RegExp, fields?: string | null): void {
  assertApiError(() => parse(params, fields), 400, message, JSON.stringify(params));
}

const ok = suite('level2 params: accepted');

ok('defaults: json, every field in spec order, page size 10000, first page, latest day', () => {
  const q = parse({ symbol: '600000' });
  assert.equal(q, {
    symbol: '600000.SH',
    tradedate: null,
    format: 'json',
    startMs: null,
    endMs: null,
    pageSize: 10000,
    start: { kind: 'first' },
    fields: SCHEMAS.level2.fieldNames.map((_, i) => i),
  });
});

ok('symbol forms of api-contract: Symbols all become NNNNNN.XX', () => {
  const forms: [string, string][] = [
    ['600000', '600000.SH'],
    ['600000.SH', '600000.SH'],
    ['600000.sh', '600000.SH'],
    ['SH600000', '600000.SH'],
    ['sh600000', '600000.SH'],
    ['600000.XSHG', '600000.SH'],
    ['000001', '000001.SZ'],
    ['000001.XSHE', '000001.SZ'],
    ['sz300001', '300001.SZ'],
    ['830799', '830799.BJ'],
    ['920001', '920001.BJ'],
    ['430001.BJ', '430001.BJ'],
  ];
  for (const [input, canonical] of forms) assert.is(parse({ symbol: input }).symbol, canonical, input);
});

ok('the four time formats; short forms mean the start of the minute/second', () => {
  const ms = (h: number, m: number, s = 0, f = 0) => ((h * 60 + m) * 60 + s) * 1000 + f;
  assert.is(parse({ symbol: '600000', start_time: '09:30' }).startMs, ms(9, 30));
  assert.is(parse({ symbol: '600000', start_time: '09:30:15' }).startMs, ms(9, 30, 15));
  assert.is(parse({ symbol: '600000', start_time: '093015' }).startMs, ms(9, 30, 15));
  assert.is(parse({ symbol: '600000', start_time: '093015250' }).startMs, ms(9, 30, 15, 250));
  assert.is(parse({ symbol: '600000', end_time: '14:57' }).endMs, ms(14, 57));
  // Equal bounds are allowed (both are inclusive).
  const q = parse({ symbol: '600000', start_time: '10:00', end_time: '100000000' });
  assert.is(q.startMs, q.endMs);
});

ok('page_size above 10000 is served as 10000', () => {
  assert.is(parse({ symbol: '600000', page_size: 1 }).pageSize, 1);
  assert.is(parse({ symbol: '600000', page_size: 10000 }).pageSize, 10000);
  assert.is(parse({ symbol: '600000', page_size: 50000 }).pageSize, 10000);
});

ok('fields: named order, duplicates removed; empty or null means all', () => {
  assert.equal(parse({ symbol: '600000' }, 'close,time,close, bid1').fields, [6, 2, 10]);
  assert.is(parse({ symbol: '600000' }, '').fields.length, 50);
  assert.is(parse({ symbol: '600000' }, null).fields.length, 50);
});

ok('null members count as omitted', () => {
  const q = parse({ symbol: '600000', tradedate: null, format: null, cursor: null, page_size: null, start_time: null });
  assert.is(q.format, 'json');
  assert.is(q.tradedate, null);
  assert.equal(q.start, { kind: 'first' });
});

ok('an older cursor with tradedate; a new cursor supplies date and time filters', () => {
  assert.equal(parse({ symbol: '600000', tradedate: '20250102', cursor: '1200' }).start, { kind: 'offset', offset: 1200 });
  const token = codec.encode({
    apiname: 'level2_quote_history',
    symbol: '600000.SH',
    tradedate: '20250103',
    startMs: 1000,
    endMs: null,
    position: 77,
    version: 1,
  });
  const q = parse({ symbol: 'sh600000', cursor: token });
  assert.equal([q.tradedate, q.startMs, q.endMs, q.start], ['20250103', 1000, null, { kind: 'token', position: 77, version: 1 }]);
  // Restating the same date and filters is fine.
  assert.is(parse({ symbol: '600000', cursor: token, tradedate: '20250103', start_time: '000001000' }).tradedate, '20250103');
});

ok('parquet with only supported params', () => {
  const q = parse({ symbol: '600000', tradedate: '20250102', format: 'parquet' });
  assert.is(q.format, 'parquet');
});

const bad = suite('level2 params: every 400');

bad('symbol missing, wrong type, malformed, unknown exchange, several', () => {
  rejects({}, /params\.symbol is required/);
  rejects({ symbol: null }, /params\.symbol is required/);
  rejects({ symbol: 600000 }, /params\.symbol must be a string/);
  rejects({ symbol: '60000' }, /params\.symbol is not a stock code/);
  rejects({ symbol: '600000.HK' }, /params\.symbol unknown exchange suffix/);
  rejects({ symbol: '500000' }, /params\.symbol six-digit code 500000 belongs to no stock exchange/);
  rejects({ symbol: '600000,000001' }, /params\.symbol takes one stock code/);
  rejects({ symbol: '../../etc/passwd' }, /params\.symbol/);
});

bad('tradedate not a YYYYMMDD date', () => {
  for (const d of ['2025-01-02', '20251301', '20250230', 20250102, ''])
    rejects({ symbol: '600000', tradedate: d }, /params\.tradedate must be a date YYYYMMDD/);
});

bad('format other than json or parquet', () => {
  rejects({ symbol: '600000', format: 'csv' }, /params\.format must be "json" or "parquet"/);
  rejects({ symbol: '600000', format: 'JSON' }, /params\.format/);
});

bad('times in no accepted format, or out of range', () => {
  for (const t of ['9:30', '0930', '09:30:00.5', '930000000', '25:00', '09:61', '093060', 12, '']) {
    rejects({ symbol: '600000', start_time: t }, /params\.start_time must be a time HH:MM, HH:MM:SS, HH:MM:SS\.mmm, HHMMSS or HHMMSSmmm$/);
    rejects({ symbol: '600000', end_time: t }, /params\.end_time must be a time/);
  }
});

bad('start_time after end_time', () => {
  rejects({ symbol: '600000', start_time: '10:00:00', end_time: '095959999' }, /params\.start_time must not be after params\.end_time/);
});

bad('page_size 0, negative, fractional, non-number', () => {
  // eslint-disable-next-line no-loss-of-precision -- 1e400 is Infinity on purpose: JSON's largest overflow
  for (const n of [0, -5, 1.5, '100', true, 1e400]) rejects({ symbol: '600000', page_size: n }, /params\.page_size must be a positive integer/);
});

bad('cursor: wrong type, forged, older kind without tradedate', () => {
  rejects({ symbol: '600000', cursor: 5 }, /params\.cursor must be a string/);
  rejects({ symbol: '600000', cursor: 'c1abcdef' }, /params\.cursor is not a cursor issued by this service/);
  rejects({ symbol: '600000', cursor: 'hello' }, /params\.cursor is not a cursor issued/);
  rejects({ symbol: '600000', cursor: '1200' }, /params\.cursor of the older kind .* needs params\.tradedate/);
  const foreign = new CursorCodec(Buffer.alloc(32, 2)).encode({
    apiname: 'level2_quote_history',
    symbol: '600000.SH',
    tradedate: '20250102',
    startMs: null,
    endMs: null,
    position: 5,
    version: 1,
  });
  rejects({ symbol: '600000', cursor: foreign }, /params\.cursor is not a cursor issued/);
});

bad("a cursor pages only the interface that issued it; fields are the interface's own", () => {
  const trade = codec.encode({
    apiname: 'level2_trade_history',
    symbol: '600000.SH',
    tradedate: '20250102',
    startMs: null,
    endMs: null,
    position: 10,
    version: 1,
  });
  rejects({ symbol: '600000', cursor: trade }, /params\.cursor was issued by level2_trade_history; it pages only that interface, not level2_quote_history/);
  const asOrder = () => parseLevel2Query(req({ symbol: '600000', cursor: trade }), codec, 'level2_order_history');
  assertApiError(asOrder, 400, /issued by level2_trade_history; it pages only that interface, not level2_order_history/, 'trade cursor on orders');
  assert.equal(parseLevel2Query(req({ symbol: '600000', cursor: trade }), codec, 'level2_trade_history').start, { kind: 'token', position: 10, version: 1 });
  // trade fields by name, in the order asked; a level-2 field is not a trade field
  assert.equal(parseLevel2Query(req({ symbol: '600000' }, 'bs_flag,trade_id,time'), codec, 'level2_trade_history').fields, [7, 3, 2]);
  assertApiError(() => parseLevel2Query(req({ symbol: '600000' }, 'close'), codec, 'level2_trade_history'), 400, /close/, 'close on trades');
  assert.is(parseLevel2Query(req({ symbol: '600000' }), codec, 'level2_order_history').fields.length, 10);
});

bad('a new cursor with another symbol, another date, other time filters', () => {
  const token = codec.encode({
    apiname: 'level2_quote_history',
    symbol: '600000.SH',
    tradedate: '20250102',
    startMs: 34_200_000,
    endMs: null,
    position: 10,
    version: 1,
  });
  rejects({ symbol: '000001', cursor: token }, /params\.cursor belongs to symbol 600000\.SH, not 000001\.SZ/);
  rejects({ symbol: '600000', cursor: token, tradedate: '20250103' }, /params\.tradedate 20250103 differs from the cursor's date 20250102/);
  rejects({ symbol: '600000', cursor: token, start_time: '09:31' }, /params\.start_time differs from the cursor's/);
  rejects({ symbol: '600000', cursor: token, end_time: '15:00' }, /params\.end_time differs from the cursor's/);
});

bad('parameters not supported with format=parquet', () => {
  for (const [k, v] of Object.entries({ cursor: '5', page_size: 10, limit: 10, start_time: '09:30', end_time: '10:00' })) {
    rejects({ symbol: '600000', format: 'parquet', [k]: v }, new RegExp(`params\\.${k} is not supported with format=parquet`));
  }
});

bad('unknown or misspelled parameters, including limit with json', () => {
  rejects({ symbol: '600000', pagesize: 10 }, /unknown parameter params\.pagesize/);
  rejects({ symbol: '600000', limit: 10 }, /unknown parameter params\.limit/);
  rejects({ symbol: '600000', symbols: '600000' }, /unknown parameter params\.symbols/);
});

bad('unknown field names', () => {
  rejects({ symbol: '600000' }, /fields names unknown field "vol"/, 'time,vol');
  rejects({ symbol: '600000' }, /fields names unknown field "transaction_num"/, 'transaction_num');
});

const body = suite('request body (shared parser)');

function bodyRejects(b: unknown, message: RegExp): void {
  try {
    parseApiRequest(b, API);
  } catch (e) {
    assert.is((e as ApiError).code, 400);
    assert.match((e as ApiError).message, message);
    return;
  }
  assert.unreachable('accepted');
}

body('the body must be an object with a known apiname, an object params, and no other members', () => {
  bodyRejects([], /request body must be a JSON object/);
  bodyRejects('x', /request body must be a JSON object/);
  bodyRejects({ params: {} }, /apiname is required/);
  bodyRejects({ apiname: 'level2', params: {} }, /apiname must be one of/);
  bodyRejects({ apiname: 'level2_quote_history' }, /params is required/);
  bodyRejects({ apiname: 'level2_quote_history', params: [] }, /params must be an object/);
  bodyRejects({ apiname: 'level2_quote_history', params: {}, apikey: 5 }, /apikey must be a string/);
  bodyRejects({ apiname: 'level2_quote_history', params: {}, fields: ['time'] }, /fields must be a comma-separated string/);
  bodyRejects({ apiname: 'level2_quote_history', params: {}, api_key: 'k' }, /unknown body member "api_key"/);
});

ok.run();
bad.run();
body.run();
