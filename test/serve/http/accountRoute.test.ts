/**
 * POST /account against a started server: what a key's plan allows and what is left today.
 * Expected values are worked out by hand from the plan table (api-contract: Plans and limits) and the exchange
 * calendar, not from the code under test.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { hashKey } from '../../../serve/access/accounts.js';
import { SqliteStateStore } from '../../../serve/access/sqliteState.js';
import { addAccount, httpRequest, postApi, preparedData, startServer, type ServerHandle } from '../../support/server.js';

let dataDir: string;
let server: ServerHandle;

const account = (body: unknown) =>
  httpRequest(`${server.url}/account`, { body: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': 'application/json' } });

const t = suite('POST /account');

t.before(async () => {
  ({ dataDir } = await preparedData());
  // Server clock 2025-01-06 16:30 Beijing (the default); two requests per second at most.
  server = await startServer(dataDir, { env: { TICKVAULT_RATE_LIMIT: '2' } });
});

t.after(async () => {
  await server?.stop();
});

t('a trial account: both interfaces, all history, 100 calls a day each, counted as used; no Parquet files', async () => {
  const { key } = addAccount(dataDir, 'trial');
  for (let i = 0; i < 2; i++) {
    assert.is(
      (await postApi(server, { apiname: 'level2_quote_history', apikey: key, params: { symbol: '600000.SH', tradedate: '20250106', page_size: 1 } })).status,
      200,
    );
  }
  await new Promise((r) => setTimeout(r, 1100)); // the per-second window
  assert.is((await postApi(server, { apiname: 'tick_history', apikey: key, params: { symbol: '000001', tradedate: '20250106' } })).status, 200);
  const r = await account({ apikey: key });
  assert.is(r.status, 200, r.text);
  const env = JSON.parse(r.text);
  assert.is(env.code, 200);
  const d = env.data;
  assert.is(d.plan, 'trial');
  assert.is(d.latest_trading_day, '20250106');
  assert.match(d.now, /^2025-01-06T16:3\d:\d\d\+08:00$/);
  assert.is(d.counters_reset_at, '2025-01-07T00:00:00+08:00');
  assert.is(d.rate_limit_per_second, 2);
  assert.equal(d.operations.level2_quote_history, {
    allowed: true,
    history: { from: null, to: '20250106', trading_days: null },
    daily_calls: { limit: 100, used: 2, left: 98 },
    parquet_files: { limit: 0, used: 0, left: 0 },
    in_flight: false,
  });
  assert.equal(d.operations.tick_history, {
    allowed: true,
    history: { from: null, to: '20250106', trading_days: null },
    daily_calls: { limit: 100, used: 1, left: 99 },
    parquet_files: null,
    in_flight: null,
  });
  assert.not.ok(r.text.includes(key) || r.text.includes(hashKey(key)), 'never the key, nor its hash');
});

t('a professional account: the latest 30 trading days as dates (20241125 to 20250106), 30 Parquet files; the slot shown while held', async () => {
  const { id, key } = addAccount(dataDir, 'professional');
  const store = new SqliteStateStore({ path: join(dataDir, 'service.db'), cursorKeyFile: join(dataDir, 'cursor.key') });
  try {
    assert.ok((await store.takeDaily(id, 'level2_quote_history', 'parquet', 30, Date.parse('2025-01-06T16:30:00+08:00'))).ok);
    assert.ok(await store.acquireSlot(id, 'level2_quote_history', 'test-holder', 60_000));
    const d = JSON.parse((await account({ apikey: key })).text).data;
    // Jan 6, 3, 2 (Jan 1 closed), 22 December trading days, then Nov 29, 28, 27, 26, 25.
    assert.equal(d.operations.level2_quote_history.history, { from: '20241125', to: '20250106', trading_days: 30 });
    assert.equal(d.operations.level2_quote_history.parquet_files, { limit: 30, used: 1, left: 29 });
    assert.is(d.operations.level2_quote_history.daily_calls, null);
    assert.is(d.operations.level2_quote_history.in_flight, true);
    assert.equal(d.operations.tick_history.history, { from: null, to: '20250106', trading_days: null });
    await store.releaseSlot(id, 'level2_quote_history', 'test-holder');
    assert.is(JSON.parse((await account({ apikey: key })).text).data.operations.level2_quote_history.in_flight, false);
  } finally {
    await store.close();
  }
});

t('a free account sees that it has no access', async () => {
  const { key } = addAccount(dataDir, 'free');
  const d = JSON.parse((await account({ apikey: key })).text).data;
  assert.is(d.operations.level2_quote_history.allowed, false);
  assert.is(d.operations.level2_quote_history.history.from, null);
  assert.is(d.operations.tick_history.allowed, false);
});

t('counts against no limit: many /account calls in one second, then /api is still admitted', async () => {
  const { key } = addAccount(dataDir, 'flagship');
  await new Promise((r) => setTimeout(r, 1100));
  const many = await Promise.all(Array.from({ length: 8 }, () => account({ apikey: key })));
  assert.equal(
    many.map((r) => r.status),
    Array(8).fill(200),
  );
  assert.is((await postApi(server, { apiname: 'tick_history', apikey: key, params: { symbol: '000001', tradedate: '20250106' } })).status, 200);
});

t('401 for a missing, unknown or revoked key; 400 for a body that is not {"apikey": "…"}; 405 for GET', async () => {
  const { key } = addAccount(dataDir, 'flagship');
  const store = new SqliteStateStore({ path: join(dataDir, 'service.db'), cursorKeyFile: join(dataDir, 'cursor.key') });
  await store.revokeKey(key, Date.now());
  await store.close();
  const cases: [unknown, number, string][] = [
    [{}, 401, 'apikey is required'],
    [{ apikey: '' }, 401, 'apikey is required'],
    [{ apikey: 'tv_unknown-key' }, 401, 'apikey is unknown or revoked'],
    [{ apikey: key }, 401, 'apikey is unknown or revoked'],
    [[], 400, 'the body must be a JSON object {"apikey": "…"}'],
    [{ apikey: 'x', other: 1 }, 400, 'unknown body member "other"; /account takes only apikey'],
    [{ apikey: 7 }, 400, 'apikey must be a string'],
  ];
  for (const [body, code, message] of cases) {
    const r = await account(body);
    assert.is(r.status, code, JSON.stringify(body));
    assert.equal(JSON.parse(r.text), { code, message, data: null });
  }
  const get = await httpRequest(`${server.url}/account`, { method: 'GET' });
  assert.is(get.status, 405);
  assert.is(get.headers.allow, 'POST');
});

t.run();
