/**
 * level2_quote_history over HTTP against `tickvault serve` on replayed generated data
 * (2025-01-02, -03, -06; server clock 2025-01-06 16:30 Beijing). Expected rows come from
 * DuckDB reading the sealed files, or from the generated feed itself.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { decompress } from '@mongodb-js/zstd';
import { SCHEMAS } from '../../../shared/schema.js';
import { openServiceDb } from '../../../serve/access/serviceDb.js';
import { Limits } from '../../../serve/access/limits.js';
import { duckRows, sqlString } from '../../support/duckdb.js';
import { isEnvelopeError, pagesByCursor, type DetailedPage } from '../../support/pages.js';
import { runCli } from '../../support/cli.js';
import {
  addAccount,
  addKey,
  DEFAULT_SERVER_NOW,
  httpRequest,
  postApi,
  preparedData,
  startServer,
  type ApiResponse,
  type ServerHandle,
} from '../../support/server.js';

type Level2Data = DetailedPage;

const API = 'level2_quote_history';
const NAMES = SCHEMAS.level2.fieldNames;
let server: ServerHandle;
let dataDir: string;
let feedFile: string;
let flagship: string;

const query = (params: Record<string, unknown>, more: Record<string, unknown> = {}, key = flagship): Promise<ApiResponse<Level2Data>> =>
  postApi<Level2Data>(server, { apiname: API, apikey: key, params, ...more });

const duckCache = new Map<string, unknown[][]>();
/** The stored day as rows of every field in spec order, read by DuckDB. */
async function expectedRows(symbol: string, date: string): Promise<unknown[][]> {
  const k = `${symbol}/${date}`;
  if (!duckCache.has(k)) {
    const path = join(dataDir, 'level2', `date=${date}`, `${symbol}.parquet`);
    const rows = await duckRows(`SELECT * FROM read_parquet(${sqlString(path)}, hive_partitioning = false) ORDER BY time`);
    duckCache.set(
      k,
      rows.map((r) => NAMES.map((n) => r[n])),
    );
  }
  return duckCache.get(k)!;
}

/** Pages through a query with next_cursor; returns every page's data. */
const allPages = (params: Record<string, unknown>, more: Record<string, unknown> = {}): Promise<Level2Data[]> =>
  pagesByCursor((p) => query(p, more), params, 100);

const setup = async () => {
  if (server) return;
  ({ dataDir, feedFile } = await preparedData());
  server = await startServer(dataDir, { env: { TICKVAULT_RATE_LIMIT: '1000' } });
  flagship = addAccount(dataDir, 'flagship').key;
};
const teardown = async () => {
  await server?.stop();
};

// ---------------------------------------------------------------------------------------

const json = suite('level2 JSON pages');
json.before(setup);

json('default: the latest trading day, every field in spec order, the whole day on one page', async () => {
  const r = await query({ symbol: '600000' });
  assert.is(r.status, 200);
  assert.is(r.json.code, 200);
  assert.is(r.json.message, 'success');
  const d = r.json.data!;
  assert.equal(Object.keys(r.json), ['code', 'message', 'data']);
  assert.equal(Object.keys(d), ['fields', 'items', 'tradedate', 'page_size', 'next_cursor', 'has_more', 'version']);
  assert.is(d.version, 1, 'a day never restated is version 1');
  assert.equal(d.fields, [...NAMES]);
  assert.is(d.tradedate, '20250106');
  assert.is(d.page_size, 10000);
  assert.is(d.next_cursor, null);
  assert.is(d.has_more, false);
  assert.equal(d.items, await expectedRows('600000.SH', '20250106'));
});

json('rows equal the generated feed, field by field, in chronological order', async () => {
  const text = (await decompress(readFileSync(feedFile))).toString('utf8');
  const feed = text
    .split('\n')
    .filter((l) => l.includes('"600000.SH"') && l.includes('"20250103"'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((o) => o.kind === 'level2' && o.symbol === '600000.SH' && o.tradedate === '20250103')
    .sort((a, b) => String(a.time).localeCompare(String(b.time)));
  const r = await query({ symbol: '600000.SH', tradedate: '20250103' });
  const items = r.json.data!.items;
  assert.is(items.length, feed.length);
  items.forEach((row, i) =>
    assert.equal(
      row,
      NAMES.map((n) => feed[i][n] ?? null),
      `row ${i}`,
    ),
  );
  const times = items.map((row) => row[2] as string);
  assert.equal(times, [...times].sort(), 'chronological');
});

json('every accepted symbol form names the same stock', async () => {
  const expected = (await expectedRows('600000.SH', '20250102')).slice(0, 5);
  for (const symbol of ['600000', '600000.SH', '600000.sh', 'SH600000', 'sh600000', '600000.XSHG']) {
    const r = await query({ symbol, tradedate: '20250102', page_size: 5 });
    assert.equal(r.json.data!.items, expected, symbol);
  }
  const sz = await query({ symbol: '000001', tradedate: '20250102', page_size: 1 });
  assert.is(sz.json.data!.items[0][0], '000001.SZ', 'six digits alone: 0 → SZ (the stock, not the index)');
});

json('fields: exactly those columns in the order named, duplicates removed; empty means all', async () => {
  const all = await expectedRows('300001.SZ', '20250102');
  const r = await query({ symbol: '300001.SZ', tradedate: '20250102' }, { fields: 'close,time,close,bid_vol10,symbol' });
  const pick = ['close', 'time', 'bid_vol10', 'symbol'].map((n) => NAMES.indexOf(n));
  assert.equal(r.json.data!.fields, ['close', 'time', 'bid_vol10', 'symbol']);
  assert.equal(
    r.json.data!.items,
    all.map((row) => pick.map((i) => row[i])),
  );
  const empty = await query({ symbol: '300001.SZ', tradedate: '20250102', page_size: 3 }, { fields: '' });
  assert.equal(empty.json.data!.fields, [...NAMES]);
  const unknown = await query({ symbol: '300001.SZ' }, { fields: 'time,volume,vol' });
  isEnvelopeError(unknown, 400, /fields names unknown field "vol"/);
});

json('paging by next_cursor returns every row exactly once, in order', async () => {
  const expected = await expectedRows('688001.SH', '20250103');
  const pages = await allPages({ symbol: '688001.SH', tradedate: '20250103', page_size: 1234 });
  assert.is(pages.length, Math.ceil(expected.length / 1234));
  pages.forEach((p, i) => {
    const last = i === pages.length - 1;
    assert.is(p.page_size, 1234);
    assert.is(p.tradedate, '20250103');
    assert.is(p.has_more, !last);
    assert.is(p.next_cursor === null, last);
    assert.ok(p.items.length <= 1234);
  });
  assert.equal(
    pages.flatMap((p) => p.items),
    expected,
  );
});

json('page_size above 10000 is served as 10000; 0 or a fraction is a 400', async () => {
  const r = await query({ symbol: '600000', tradedate: '20250102', page_size: 20000, end_time: '09:20' });
  assert.is(r.json.data!.page_size, 10000);
  isEnvelopeError(await query({ symbol: '600000', page_size: 0 }), 400, /params\.page_size must be a positive integer/);
  isEnvelopeError(await query({ symbol: '600000', page_size: 2.5 }), 400, /params\.page_size/);
});

json('start_time and end_time are inclusive, in all four formats', async () => {
  const all = await expectedRows('002001.SZ', '20250106');
  const between = (lo: string, hi: string) => all.filter((r) => (r[2] as string) >= lo && (r[2] as string) <= hi);
  const t = all[1500][2] as string; // an exact snapshot time, HHMMSSmmm
  const exact = await query({ symbol: '002001.SZ', tradedate: '20250106', start_time: t, end_time: t });
  assert.equal(exact.json.data!.items, between(t, t));
  assert.is(exact.json.data!.items.length, 1, 'a row exactly at both bounds is included');
  const cases: [string, string, string, string][] = [
    ['10:15', '10:16', '101500000', '101600000'],
    ['10:15:03', '10:16:30', '101503000', '101630000'],
    ['101503', '101630', '101503000', '101630000'],
    [t, '135959999', t, '135959999'],
  ];
  for (const [start, end, lo, hi] of cases) {
    const r = await query({ symbol: '002001.SZ', tradedate: '20250106', start_time: start, end_time: end });
    const expected = between(lo, hi);
    assert.ok(expected.length > 0);
    assert.equal(r.json.data!.items, expected, `${start}..${end}`);
  }
  const onlyStart = await query({ symbol: '002001.SZ', tradedate: '20250106', start_time: '14:59' });
  assert.equal(onlyStart.json.data!.items, between('145900000', '999999999'));
  const onlyEnd = await query({ symbol: '002001.SZ', tradedate: '20250106', end_time: '09:15:30' });
  assert.equal(onlyEnd.json.data!.items, between('000000000', '091530000'));
  // tick_history's forms mean the same here (both bounds included for level 2).
  const withMs = await query({ symbol: '002001.SZ', tradedate: '20250106', start_time: '10:00:00.500', end_time: '10:01:30.250' });
  assert.equal(withMs.json.data!.items, between('100000500', '100130250'));
  const sameAs = await query({ symbol: '002001.SZ', tradedate: '20250106', start_time: '100000500', end_time: '100130250' });
  assert.equal(sameAs.json.data!.items, withMs.json.data!.items);
  const none = await query({ symbol: '002001.SZ', tradedate: '20250106', start_time: '12:00', end_time: '12:30' });
  assert.is(none.json.message, 'no data; 002001.SZ has no rows between params.start_time and params.end_time on 20250106');
  assert.equal(none.json.data!.items, []);
  isEnvelopeError(await query({ symbol: '600000', start_time: '11:00', end_time: '10:59:59' }), 400, /params\.start_time must not be after params\.end_time/);
});

json('both cursor kinds page to the same rows; the older kind counts after the time filters', async () => {
  const base = { symbol: '000001.SZ', tradedate: '20250102', start_time: '10:00', end_time: '14:00:00', page_size: 700 };
  const byToken = await allPages(base);
  const all = await expectedRows('000001.SZ', '20250102');
  const filtered = all.filter((r) => (r[2] as string) >= '100000000' && (r[2] as string) <= '140000000');
  assert.equal(
    byToken.flatMap((p) => p.items),
    filtered,
  );
  for (let i = 0; i < byToken.length; i++) {
    const r = await query({ ...base, cursor: String(i * 700) });
    assert.equal(r.json.data!.items, byToken[i].items, `page ${i}`);
    assert.is(r.json.data!.has_more, byToken[i].has_more);
  }
  // The older kind without tradedate is a 400; past the end it is an empty last page.
  isEnvelopeError(await query({ symbol: '000001.SZ', cursor: '700' }), 400, /older kind .* needs params\.tradedate/);
  const beyond = await query({ ...base, cursor: '999999' });
  assert.equal([beyond.json.data!.items, beyond.json.data!.has_more, beyond.json.data!.next_cursor], [[], false, null]);
});

json('a cursor is bound to its symbol and date and cannot be altered', async () => {
  const first = await query({ symbol: '600000', tradedate: '20250103', page_size: 100 });
  const cursor = first.json.data!.next_cursor!;
  assert.match(cursor, /^[A-Za-z0-9_-]+$/);
  isEnvelopeError(await query({ symbol: '000001', cursor }), 400, /params\.cursor belongs to symbol 600000\.SH/);
  isEnvelopeError(await query({ symbol: '600000', cursor, tradedate: '20250106' }), 400, /differs from the cursor's date 20250103/);
  const altered = cursor.slice(0, 10) + (cursor[10] === 'A' ? 'B' : 'A') + cursor.slice(11);
  isEnvelopeError(await query({ symbol: '600000', cursor: altered }), 400, /params\.cursor is not a cursor issued by this service/);
  // Without tradedate the cursor's date is used; with the same tradedate it is accepted.
  const next = await query({ symbol: '600000', cursor, page_size: 100 });
  const same = await query({ symbol: 'SH600000', cursor, tradedate: '20250103', page_size: 100 });
  const expected = (await expectedRows('600000.SH', '20250103')).slice(100, 200);
  assert.equal(next.json.data!.items, expected);
  assert.equal(same.json.data!.items, expected);
  assert.is(next.json.data!.tradedate, '20250103');
});

json('no data: a non-trading day, a trading day not stored, a stock not stored, an index sent as a stock', async () => {
  const hint = (six: string) =>
    `no data; ${six}.SZ is not stored for 20250102 (${six} was read as the stock ${six}.SZ; the index ${six} is served by tick_history)`;
  for (const [symbol, tradedate, message] of [
    ['600000', '20250104', 'no data; 20250104 is not a trading day'],
    ['600000', '20241231', 'no data; 600000.SH is not stored for 20241231'],
    ['600001', '20250102', 'no data; 600001.SH is not stored for 20250102'],
    ['600000', '20250107', 'no data; 20250107 is after the latest trading day 20250106'],
    // 000300 is stored as an index that day; 399xxx is Shenzhen's index range, never a stock.
    ['000300', '20250102', hint('000300')],
    ['399001', '20250102', hint('399001')],
    ['399006', '20250102', hint('399006')],
    // With a suffix the stock was meant: no hint.
    ['000300.SZ', '20250102', 'no data; 000300.SZ is not stored for 20250102'],
  ]) {
    const r = await query({ symbol, tradedate });
    assert.is(r.status, 200);
    assert.is(r.json.code, 200);
    assert.is(r.json.message, message);
    assert.equal(r.json.data, {
      fields: [...NAMES],
      items: [],
      tradedate,
      page_size: 10000,
      next_cursor: null,
      has_more: false,
    });
  }
});

// ---------------------------------------------------------------------------------------

const parquet = suite('level2 Parquet downloads');
parquet.before(setup);

function parquetCount(accountId: number): number {
  const db = openServiceDb(join(dataDir, 'service.db'));
  try {
    return new Limits(db).daily(accountId, API, 'parquet', Date.parse(DEFAULT_SERVER_NOW));
  } finally {
    db.close();
  }
}

const post = (body: unknown, headers: Record<string, string> = {}) =>
  httpRequest(`${server.url}/api`, { body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } });

parquet('the response is the stored file itself, as an attachment, Range ignored, one unit deducted', async () => {
  const pro = addAccount(dataDir, 'professional');
  const r = await post({ apiname: API, apikey: pro.key, params: { symbol: 'sz300001', tradedate: '20250103', format: 'parquet' } }, { range: 'bytes=0-99' });
  assert.is(r.status, 200);
  assert.is(r.headers['content-type'], 'application/vnd.apache.parquet');
  assert.is(r.headers['content-disposition'], 'attachment; filename="300001.SZ_20250103.parquet"');
  assert.is(r.headers['accept-ranges'], undefined);
  assert.is(r.headers['content-range'], undefined);
  const stored = readFileSync(join(dataDir, 'level2', 'date=20250103', '300001.SZ.parquet'));
  assert.ok(r.body.equals(stored), 'byte-identical to the sealed file');
  assert.is(Number(r.headers['content-length']), stored.length);
  assert.is(parquetCount(pro.id), 1);
});

parquet('unsupported parameters are a 400 and cost nothing; no stored file is JSON no data and costs nothing', async () => {
  const pro = addAccount(dataDir, 'professional');
  for (const extra of [{ cursor: '10' }, { page_size: 10 }, { limit: 10 }, { start_time: '09:30' }, { end_time: '10:00' }]) {
    const r = await query({ symbol: '600000', tradedate: '20250102', format: 'parquet', ...extra }, {}, pro.key);
    isEnvelopeError(r, 400, new RegExp(`params\\.${Object.keys(extra)[0]} is not supported with format=parquet`));
  }
  const none = await query({ symbol: '600000', tradedate: '20250104', format: 'parquet' }, {}, pro.key);
  assert.is(none.json.message, 'no data; 20250104 is not a trading day');
  assert.equal(none.json.data!.items, []);
  assert.is(parquetCount(pro.id), 0);
});

parquet('quota: professional 30 per Beijing day, then 429 with Retry-After; trial has none', async () => {
  const pro = addAccount(dataDir, 'professional');
  const body = { apiname: API, apikey: pro.key, params: { symbol: '600000', tradedate: '20250102', format: 'parquet' } };
  for (let i = 0; i < 30; i++) assert.is((await post(body)).status, 200, `download ${i + 1}`);
  const over = await postApi(server, body);
  isEnvelopeError(over, 429, /professional plan's 30 Parquet files per Beijing day on level2_quote_history are used up/);
  // 16:30 Beijing: 7.5 hours to midnight.
  const retry = Number(over.headers['retry-after']);
  assert.ok(retry > 7 * 3600 && retry <= 7.5 * 3600, `Retry-After ${retry}`);
  assert.is(parquetCount(pro.id), 30);
});

parquet('a plan with no downloads at all is a 403 naming the plan, and costs no trial call', async () => {
  const body = { apiname: API, params: { symbol: '600000', tradedate: '20250102', format: 'parquet' } };
  const trial = addAccount(dataDir, 'trial');
  for (let i = 0; i < 3; i++) {
    const r = await postApi(server, { ...body, apikey: trial.key });
    isEnvelopeError(
      r,
      403,
      /^the trial plan has no Parquet downloads of level2_quote_history; use format=json or a plan with downloads \(professional, weekly-card, flagship\)$/,
    );
    assert.is(r.headers['retry-after'], undefined);
  }
  const db = openServiceDb(join(dataDir, 'service.db'));
  try {
    assert.is(new Limits(db).daily(trial.id, API, 'calls', Date.parse(DEFAULT_SERVER_NOW)), 0);
  } finally {
    db.close();
  }
  // The same account's JSON query is served (and counted).
  assert.is((await postApi(server, { apiname: API, apikey: trial.key, params: { symbol: '600000', tradedate: '20250102', page_size: 1 } })).status, 200);
  // Plans without access keep their access message.
  const free = addAccount(dataDir, 'free');
  isEnvelopeError(await postApi(server, { ...body, apikey: free.key }), 403, /^the free plan has no access to level2_quote_history$/);
});

parquet('an interrupted download still costs its unit', async () => {
  const pro = addAccount(dataDir, 'weekly-card');
  await new Promise<void>((resolve, reject) => {
    const req = request(`${server.url}/api`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      assert.is(res.statusCode, 200);
      res.once('data', () => {
        req.destroy();
        resolve();
      });
    });
    req.on('error', () => undefined);
    req.end(JSON.stringify({ apiname: API, apikey: pro.key, params: { symbol: '600000', tradedate: '20250102', format: 'parquet' } }));
    setTimeout(() => reject(new Error('no response')), 10_000).unref();
  });
  assert.is(parquetCount(pro.id), 1);
});

// ---------------------------------------------------------------------------------------

const access = suite('level2 access, plans and errors');
access.before(setup);

access('free and standard plans have no access (403)', async () => {
  for (const plan of ['free', 'standard'] as const) {
    const { key } = addAccount(dataDir, plan);
    isEnvelopeError(await query({ symbol: '600000' }, {}, key), 403, new RegExp(`the ${plan} plan has no access to level2_quote_history`));
  }
});

access('professional and weekly-card: the latest 30 trading days, the 30th included', async () => {
  // Clock 2025-01-06 (a trading day): the 30th trading day back is 2024-11-25.
  for (const plan of ['professional', 'weekly-card'] as const) {
    const { key } = addAccount(dataDir, plan);
    const inside = await query({ symbol: '600000', tradedate: '20241125' }, {}, key);
    assert.is(inside.status, 200);
    assert.is(inside.json.message, 'no data; 600000.SH is not stored for 20241125');
    isEnvelopeError(
      await query({ symbol: '600000', tradedate: '20241122' }, {}, key),
      403,
      /tradedate 20241122 is outside the .* plan's history depth \(the latest 30 trading days, from 20241125\)/,
    );
    assert.is((await query({ symbol: '600000', tradedate: '20250102', page_size: 1 }, {}, key)).status, 200);
  }
  const flag = await query({ symbol: '600000', tradedate: '20150105' });
  assert.is(flag.status, 200, 'flagship: all history');
});

access('trial: 100 calls per Beijing day on the interface, counted after validation and access', async () => {
  const { key } = addAccount(dataDir, 'trial');
  // Rejected requests never count.
  for (let i = 0; i < 5; i++) assert.is((await query({ symbol: 'bad' }, {}, key)).status, 400);
  for (let i = 0; i < 100; i++) {
    // Data and no data both count.
    const r = await query({ symbol: '600000', tradedate: i % 2 ? '20250102' : '20250104', page_size: 1 }, {}, key);
    assert.is(r.status, 200, `call ${i + 1}: ${r.text.slice(0, 200)}`);
  }
  const over = await query({ symbol: '600000', page_size: 1 }, {}, key);
  isEnvelopeError(over, 429, /trial plan's 100 calls per Beijing day on level2_quote_history are used up/);
  assert.ok(Number(over.headers['retry-after']) > 0);
});

access('apikey missing, unknown or revoked: 401', async () => {
  isEnvelopeError(await postApi(server, { apiname: API, params: { symbol: '600000' } }), 401, /apikey is required/);
  isEnvelopeError(await query({ symbol: '600000' }, {}, 'tv_not-a-key'), 401, /apikey is unknown or revoked/);
  const { id, key } = addAccount(dataDir, 'flagship');
  const second = addKey(dataDir, id);
  assert.is((await query({ symbol: '600000', page_size: 1 }, {}, key)).status, 200);
  const revoke = await runCli(['accounts', 'revoke', '--key', key, '--data-dir', dataDir]);
  assert.is(revoke.code, 0, revoke.stderr);
  isEnvelopeError(await query({ symbol: '600000' }, {}, key), 401, /apikey is unknown or revoked/);
  assert.is((await query({ symbol: '600000', page_size: 1 }, {}, second)).status, 200, "the account's other key still works");
});

access('malformed bodies and unknown members: 400; oversized bodies: 413; every error is the envelope', async () => {
  const raw = (body: string) => postApi(server, body);
  isEnvelopeError(await raw('{"apiname": '), 400, /request body must be a JSON object/);
  isEnvelopeError(await raw('"text"'), 400, /request body must be a JSON object/);
  isEnvelopeError(await raw('[]'), 400, /request body must be a JSON object/);
  isEnvelopeError(await postApi(server, { apiname: 'level3', apikey: flagship, params: {} }), 400, /apiname must be one of/);
  isEnvelopeError(await postApi(server, { apiname: API, apikey: flagship, params: {}, extra: 1 }), 400, /unknown body member "extra"/);
  isEnvelopeError(await query({ symbol: '600000', page: 2 }), 400, /unknown parameter params\.page/);
  isEnvelopeError(await query({ symbol: '600000', tradedate: '2025-01-02' }), 400, /params\.tradedate must be a date YYYYMMDD/);
  isEnvelopeError(await query({ symbol: '600000', format: 'csv' }), 400, /params\.format/);
  isEnvelopeError(await query({ symbol: '600000', start_time: '9:30' }), 400, /params\.start_time must be a time/);
  isEnvelopeError(await query({ symbol: '600000,000001' }), 400, /params\.symbol takes one stock code/);
  const big = JSON.stringify({ apiname: API, apikey: flagship, params: { symbol: '600000' }, fields: 'x'.repeat(1024 * 1024) });
  isEnvelopeError(await raw(big), 413, /request body exceeds 1048576 bytes \(1 MiB\)/);
  // A body without a JSON content type (curl -d) is still read as JSON.
  const form = await httpRequest(`${server.url}/api`, {
    body: JSON.stringify({ apiname: API, apikey: flagship, params: { symbol: '600000', page_size: 1 } }),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  assert.is(form.status, 200);
});

access('the order of checks: 400 before 401 only for the body itself; 401 before params; 400 params before 403', async () => {
  const { key: free } = addAccount(dataDir, 'free');
  isEnvelopeError(await postApi(server, { apiname: API, params: { symbol: 'bad' } }), 401, /apikey/);
  isEnvelopeError(await query({ symbol: 'bad' }, {}, free), 400, /params\.symbol/);
  isEnvelopeError(await query({ symbol: '600000' }, {}, free), 403, /no access/);
});

access('other paths and methods answer with the envelope too; /healthz is 200', async () => {
  const health = await httpRequest(`${server.url}/healthz`, { method: 'GET' });
  assert.is(health.status, 200);
  const notFound = await httpRequest(`${server.url}/nope`, { method: 'GET' });
  assert.is(notFound.status, 404);
  assert.equal(JSON.parse(notFound.text), { code: 404, message: 'no such endpoint; queries go to POST /api', data: null });
  const wrongMethod = await httpRequest(`${server.url}/api`, { method: 'GET' });
  assert.is(wrongMethod.status, 405);
  assert.is(wrongMethod.headers.allow, 'POST');
});

access.after(teardown);

json.run();
parquet.run();
access.run();
