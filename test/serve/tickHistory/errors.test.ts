/**
 * tick_history over HTTP: every rejected combination and value (400, naming the parameter),
 * the plan rules of api-contract: Plans and limits (free 403; trial 100 calls per Beijing day counted apart
 * from level2; standard/professional open), and the `asset` rule.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { postApi, type ServerHandle } from '../../support/server.js';
import { account, tick, tickData, tickServer, type TickData } from './support.js';

let server: ServerHandle;
let key: string;
let d: TickData;

const rejected = suite('tick_history rejected requests (400)');

rejected.before(async () => {
  d = await tickData();
  // A high per-second limit: the trial test below makes 100+ calls in a burst.
  server = await tickServer(['--rate-limit', '10000']);
  key = await account('flagship');
});

const S = '000300';

const CASES: readonly [string, Record<string, unknown>, RegExp, string?][] = [
  ['asset other than index or stock', { symbol: S, asset: 'bond' }, /^params\.asset must be "index" or "stock"$/],
  [
    'tradedate with startdate',
    { symbols: S, tradedate: '20250205', startdate: '20250201' },
    /^params\.tradedate cannot be combined with params\.startdate or params\.enddate$/,
  ],
  ['tradedate with enddate', { symbols: S, tradedate: '20250205', enddate: '20250206' }, /^params\.tradedate cannot be combined/],
  ['compatible tradedate with enddate', { symbol: S, tradedate: '20250205', enddate: '20250206' }, /^params\.tradedate cannot be combined/],
  [
    'recentdays with tradedate',
    { symbols: S, recentdays: 3, tradedate: '20250205' },
    /^params\.recentdays cannot be combined with params\.tradedate, params\.startdate or params\.enddate$/,
  ],
  ['recentdays with startdate', { symbols: S, recentdays: 3, startdate: '20250205' }, /^params\.recentdays cannot be combined/],
  ['recentdays with enddate', { symbols: S, recentdays: 3, enddate: '20250205' }, /^params\.recentdays cannot be combined/],
  ['tradedate_offset with tradedate', { symbols: S, tradedate_offset: -1, tradedate: '20250205' }, /^params\.tradedate_offset cannot be combined/],
  ['tradedate_offset with recentdays', { symbols: S, tradedate_offset: -1, recentdays: 2 }, /^params\.tradedate_offset cannot be combined/],
  ['tradedate_offset positive', { symbols: S, tradedate_offset: 1 }, /^params\.tradedate_offset must be an integer from -10000 to 0$/],
  ['recentdays zero', { symbols: S, recentdays: 0 }, /^params\.recentdays must be an integer from 1 to 10000$/],
  ['recentdays as text', { symbols: S, recentdays: '5' }, /^params\.recentdays must be an integer/],
  [
    'startdate after enddate',
    { symbols: S, startdate: '20250210', enddate: '20250205' },
    /^params\.startdate 20250210 must not be after params\.enddate 20250205$/,
  ],
  [
    'startdate alone after the latest trading day',
    { symbols: S, startdate: '20250217' },
    /^params\.startdate 20250217 must not be after the latest trading day 20250214$/,
  ],
  ['malformed tradedate', { symbol: S, tradedate: '2025-02-05' }, /^params\.tradedate must be a date written YYYYMMDD$/],
  [
    'trademin with start_time',
    { symbols: S, trademin: '1030', start_time: '10:30:00' },
    /^params\.trademin cannot be combined with params\.start_time or params\.end_time$/,
  ],
  ['trademin with end_time', { symbols: S, trademin: '1030', end_time: '10:31:00' }, /^params\.trademin cannot be combined/],
  ['side without trademin', { symbols: S, side: 'before', tradedate: '20250205' }, /^params\.side needs params\.trademin/],
  [
    'side over several days (startdate..enddate)',
    { trademin: '1030', side: 'after', startdate: '20250205', enddate: '20250207' },
    /^params\.side needs a single trading day, but the dates cover 20250205-20250207$/,
  ],
  [
    'side over several days (recentdays)',
    { trademin: '1030', side: 'after', recentdays: 2 },
    /^params\.side needs a single trading day, but the dates cover 20250213-20250214$/,
  ],
  ['side over several days (startdate alone)', { trademin: '1030', side: 'before', startdate: '20250212' }, /^params\.side needs a single trading day/],
  [
    'side with order_dir',
    { trademin: '1030', side: 'after', order_dir: 'desc' },
    /^params\.order_dir cannot be combined with params\.side: boundary rows are ordered by symbol$/,
  ],
  ['side with limit zero', { trademin: '1030', side: 'after', limit: 0 }, /^params\.limit must be a positive integer$/],
  ['side with offset negative', { trademin: '1030', side: 'after', offset: -1 }, /^params\.offset must be an integer of 0 or more$/],
  ['trademin with one-digit hour', { trademin: '9:30', side: 'after' }, /^params\.trademin must be a minute written HHMM or HH:MM/],
  ['side value', { trademin: '1030', side: 'around' }, /^params\.side must be "before" or "after"$/],
  ['trademin format', { symbols: S, trademin: '10.30' }, /^params\.trademin must be a minute written HHMM or HH:MM \(00-23, 00-59\)$/],
  ['trademin out of range', { symbols: S, trademin: '2460' }, /^params\.trademin must be a minute written HHMM/],
  [
    'start_time with one-digit hours',
    { symbols: S, start_time: '9:30:00' },
    /^params\.start_time must be a time HH:MM, HH:MM:SS, HH:MM:SS\.mmm, HHMMSS or HHMMSSmmm$/,
  ],
  ['end_time malformed', { symbols: S, end_time: '1030' }, /^params\.end_time must be a time HH:MM/],
  ['start_time not before end_time', { symbols: S, start_time: '10:30:00', end_time: '10:30:00' }, /^params\.start_time must be earlier than params\.end_time/],
  [
    'more than 200 symbols',
    { symbols: Array.from({ length: 201 }, (_, i) => String(i).padStart(6, '0')) },
    /^params\.symbols names 201 codes; at most 200 are allowed$/,
  ],
  ['a symbol with a suffix', { symbols: '000300,000905.SH' }, /^params\.symbols must be a six-digit index code without suffix, got "000905\.SH"$/],
  ['an empty symbol in the list', { symbols: '000300,,000905' }, /^params\.symbols contains an empty code$/],
  ['symbols of the wrong type', { symbols: 300 }, /^params\.symbols must be a comma-separated string or an array/],
  ['bad symbol', { symbol: 'SH000300' }, /^params\.symbol must be a six-digit index code/],
  ['enhanced without any symbol', { startdate: '20250205' }, /^params\.symbols \(or params\.symbol\) is required for enhanced detail$/],
  ['limit zero', { symbols: S, limit: 0 }, /^params\.limit must be a positive integer$/],
  ['limit fractional', { symbols: S, limit: 1.5 }, /^params\.limit must be a positive integer$/],
  ['offset negative', { symbols: S, offset: -1 }, /^params\.offset must be an integer of 0 or more$/],
  ['order_dir value', { symbols: S, order_dir: 'up' }, /^params\.order_dir must be "asc" or "desc"$/],
  ['unknown parameter', { symbol: S, page_size: 10 }, /^unknown parameter params\.page_size$/],
  ['misspelled parameter', { symbl: S }, /^unknown parameter params\.symbl$/],
  ['unknown field', { symbol: S }, /^fields names unknown field "volume"$/, 'time,volume'],
];

rejected('every rejected combination and value is a 400 naming the parameter', async () => {
  for (const [name, params, pattern, fields] of CASES) {
    const res = await tick(server, key, params, fields);
    assert.is(res.status, 400, name);
    assert.is(res.json.code, 400, name);
    assert.is(res.json.data, null, name);
    assert.match(res.json.message, pattern, name);
  }
});

rejected('a valid boundary of one day named by startdate = enddate is accepted', async () => {
  const res = await tick(server, key, { trademin: '1030', side: 'after', startdate: '20250205', enddate: '20250205', symbols: d.symbols[0] });
  assert.is(res.status, 200);
  assert.is(res.json.data!.items.length, 1);
});

rejected.run();

// ---------------------------------------------------------------------------------------
const plans = suite('tick_history plans (api-contract: Plans and limits)');

plans('free: 403; standard and professional: allowed', async () => {
  const free = await tick(server, await account('free'), { symbol: S, tradedate: '20250205' });
  assert.is(free.status, 403);
  assert.match(free.json.message, /free plan has no access to tick_history/);
  for (const plan of ['standard', 'professional', 'weekly-card'] as const) {
    const res = await tick(server, await account(plan), { symbol: d.symbols[0], tradedate: '20250121' });
    assert.is(res.status, 200, plan);
    assert.ok(res.json.data!.items.length > 0, plan);
  }
});

plans('a missing or unknown key is a 401', async () => {
  const res = await postApi(server, { apiname: 'tick_history', params: { symbol: S } });
  assert.is(res.status, 401);
  const bad = await tick(server, 'tv_not-a-key', { symbol: S });
  assert.is(bad.status, 401);
});

plans('trial: 100 calls per Beijing day on tick_history, data or no data, 400s not counted, level2 apart', async () => {
  const trial = await account('trial');
  // Rejected parameters never reach the plan checks, so they cost nothing.
  for (let i = 0; i < 3; i++) assert.is((await tick(server, trial, { symbols: S, limit: 0 })).status, 400);
  for (let i = 0; i < 100; i++) {
    // Alternate data and no-data calls: both count.
    const res = await tick(server, trial, i % 2 === 0 ? { symbol: d.symbols[0], tradedate: '20250205' } : { symbol: S, tradedate: '20250131' });
    assert.is(res.status, 200, `call ${i + 1}`);
  }
  const over = await tick(server, trial, { symbol: d.symbols[0], tradedate: '20250205' });
  assert.is(over.status, 429);
  assert.match(over.json.message, /100 calls per Beijing day on tick_history/);
  assert.ok(Number(over.headers['retry-after']) > 0, 'Retry-After on 429');
  // level2_quote_history keeps its own count.
  const l2 = await postApi(server, { apiname: 'level2_quote_history', apikey: trial, params: { symbol: '600000', tradedate: '20250205' } });
  assert.is(l2.status, 200);
});

plans.after(async () => {
  await server?.stop();
});

plans.run();
