/**
 * tick_history with asset=stock (api-contract: tick_history): level-2 snapshots in tick_history's shape, in
 * all three modes. Expected rows come from DuckDB reading the level-2 files directly and
 * reshaping them in SQL (first five levels, vol = volume, the time rewritten, six-digit
 * symbols, null pre_close / pct_chg / transaction_num), independently of the server's code.
 * Data: the shared fixture of 3 trading days from 20250102 with 5 stocks; clock 2025-01-06.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { Limits } from '../../../serve/access/limits.js';
import { openServiceDb } from '../../../serve/access/serviceDb.js';
import { SCHEMAS } from '../../../shared/schema.js';
import { duckRows, sqlString } from '../../support/duckdb.js';
import { addAccount, DEFAULT_SERVER_NOW, postApi, serveDuringSuite } from '../../support/server.js';
import type { TickDetailData } from './support.js';

const test = suite('tick_history asset=stock');

const s = serveDuringSuite(test, { env: { TICKVAULT_RATE_LIMIT: '1000' } }, 'flagship');

const tick = (params: Record<string, unknown>, apikey = s.key, fields?: string) =>
  postApi<TickDetailData>(s.server, { apiname: 'tick_history', apikey, params: { asset: 'stock', ...params }, ...(fields ? { fields } : {}) });

/** One level-2 row as a tick row, in SQL: the columns of SCHEMAS.index, in its order. */
const TICK_SELECT = SCHEMAS.index.fieldNames
  .map((f) => {
    if (f === 'symbol') return 'substr(symbol, 1, 6) AS symbol';
    if (f === 'time') {
      return `substr(tradedate, 1, 4) || '-' || substr(tradedate, 5, 2) || '-' || substr(tradedate, 7, 2) || ' ' || substr(time, 1, 2) || ':' || substr(time, 3, 2) || ':' || substr(time, 5, 2) || '.' || substr(time, 7, 3) AS time`;
    }
    if (f === 'vol') return 'volume AS vol';
    if (f === 'pre_close' || f === 'pct_chg' || f === 'transaction_num') return `NULL AS ${f}`;
    return f;
  })
  .join(', ');

async function expected(where: string, order: string, page = ''): Promise<unknown[][]> {
  const glob = sqlString(join(s.dataDir, 'level2', '*', '*.parquet'));
  const rows = await duckRows(
    `SELECT * FROM (SELECT ${TICK_SELECT} FROM read_parquet(${glob}, hive_partitioning = false)) WHERE ${where} ORDER BY ${order}${page}`,
  );
  return rows.map((r) => SCHEMAS.index.fieldNames.map((f) => (typeof r[f] === 'bigint' ? Number(r[f]) : r[f])));
}

test('compatible: one stock, one day, every row in tick_history shape; any stock form', async () => {
  const want = await expected("symbol = '600000' AND tradedate = '20250103'", 'time');
  assert.ok(want.length > 1000, `${want.length} rows`);
  for (const symbol of ['600000', '600000.SH', 'sh600000', '600000.XSHG']) {
    const r = await tick({ symbol, tradedate: '20250103' });
    assert.is(r.status, 200, r.text.slice(0, 200));
    assert.is(r.json.message, 'success');
    assert.equal(r.json.data!.fields, [...SCHEMAS.index.fieldNames]);
    assert.equal(r.json.data!.items, want, symbol);
  }
});

test('enhanced: several stocks over a range, a time window, limit and offset', async () => {
  const params = { symbols: ['000001.SZ', '600000'], startdate: '20250102', enddate: '20250106', start_time: '10:00', end_time: '10:05' };
  const where = "symbol IN ('000001', '600000') AND substr(time, 12) >= '10:00:00.000' AND substr(time, 12) < '10:05:00.000'";
  const all = await expected(where, 'tradedate, time, symbol');
  assert.ok(all.length > 300, `${all.length} rows`);
  const page = await tick({ ...params, limit: 100, offset: 150 });
  assert.is(page.json.message, 'success; requested 20250102-20250106, effective 20250102-20250106');
  assert.equal(page.json.data!.items, all.slice(150, 250));
  assert.equal([page.json.data!.limit, page.json.data!.offset, page.json.data!.has_more], [100, 150, true]);
  const desc = await tick({ ...params, order_dir: 'desc', limit: 50 }, s.key, 'tradedate,symbol,time,close,vol');
  const pick = (r: unknown[]) => [r[0], r[1], r[2], r[6], r[9]];
  assert.equal(desc.json.data!.items, all.slice().reverse().slice(0, 50).map(pick));
});

test('boundary: every stock of the day at the 09:25 boundary, sorted by six-digit symbol, paged', async () => {
  const glob = sqlString(join(s.dataDir, 'level2', '*', '*.parquet'));
  const last = await duckRows(
    `SELECT substr(symbol, 1, 6) AS symbol, max(time) AS time FROM read_parquet(${glob}, hive_partitioning = false) WHERE tradedate = '20250103' AND time < '092500000' GROUP BY 1`,
  );
  const want = await expected(
    `tradedate = '20250103' AND (symbol, substr(time, 12)) IN (${last.map((r) => `(${sqlString(String(r.symbol))}, ${sqlString(`${String(r.time).slice(0, 2)}:${String(r.time).slice(2, 4)}:${String(r.time).slice(4, 6)}.${String(r.time).slice(6, 9)}`)})`).join(',')})`,
    'symbol',
  );
  assert.is(want.length, 5, 'one row per stock');
  const r = await tick({ trademin: '09:25', side: 'before', tradedate: '20250103' });
  assert.is(r.json.message, 'success');
  assert.equal(r.json.data!.items, want);
  const listed = await tick({ symbols: '600000,000001', trademin: '0925', side: 'before', tradedate: '20250103', limit: 200 });
  assert.equal(
    listed.json.data!.items,
    want.filter((row) => row[1] === '000001' || row[1] === '600000'),
  );
  const second = await tick({ trademin: '09:25', side: 'before', tradedate: '20250103', limit: 2, offset: 2 });
  assert.equal(second.json.data!.items, want.slice(2, 4));
  assert.is(second.json.data!.has_more, true);
});

test('no data says stock; an index code sent as a stock is the stock of that code', async () => {
  const r = await tick({ symbol: '000300', tradedate: '20250103' });
  assert.equal([r.status, r.json.message, r.json.data!.items], [200, 'no data; stock 000300.SZ is not stored for 20250103', []]);
  const bad = await tick({ symbol: 'abc' });
  assert.is(bad.status, 400);
  assert.match(bad.json.message, /^params\.symbol must be a stock code/);
});

test('plans: level 2 access and depth, counted on tick_history; no in-flight slot', async () => {
  for (const plan of ['free', 'standard'] as const) {
    const r = await tick({ symbol: '600000', tradedate: '20250103' }, addAccount(s.dataDir, plan).key);
    assert.is(r.status, 403);
    assert.is(r.json.message, `the ${plan} plan has no access to level2_quote_history data (asked through tick_history)`);
  }
  // Index ticks stay open to standard.
  const std = addAccount(s.dataDir, 'standard').key;
  const index = await postApi(s.server, { apiname: 'tick_history', apikey: std, params: { symbol: '000300', tradedate: '20250103' } });
  assert.is(index.status, 200);
  // Professional: the latest 30 trading days of level 2 (clock 2025-01-06: from 20241125).
  const pro = addAccount(s.dataDir, 'professional').key;
  assert.is((await tick({ symbol: '600000', tradedate: '20250103' }, pro)).status, 200);
  const old = await tick({ symbol: '600000', tradedate: '20241122' }, pro);
  assert.is(old.status, 403);
  assert.match(
    old.json.message,
    /^tradedate 20241122 is outside the professional plan's history depth for level2_quote_history data \(the latest 30 trading days, from 20241125\)$/,
  );
  // Trial: counted on tick_history's counter, not level 2's.
  const trial = addAccount(s.dataDir, 'trial');
  for (let i = 0; i < 3; i++) assert.is((await tick({ symbol: '600000', tradedate: '20250103' }, trial.key)).status, 200);
  const db = openServiceDb(join(s.dataDir, 'service.db'));
  try {
    const limits = new Limits(db);
    const now = Date.parse(DEFAULT_SERVER_NOW);
    assert.equal([limits.daily(trial.id, 'tick_history', 'calls', now), limits.daily(trial.id, 'level2_quote_history', 'calls', now)], [3, 0]);
  } finally {
    db.close();
  }
  // No slot: concurrent stock queries of one account are all answered.
  const all = await Promise.all(Array.from({ length: 4 }, () => tick({ symbol: '600000', tradedate: '20250103' })));
  assert.equal(
    all.map((r) => r.status),
    [200, 200, 200, 200],
  );
});

test.run();
