/**
 * level2_trade_history and level2_order_history (api-contract: Trades and orders) over HTTP against `tickvault
 * serve` on a replayed generated market with trades and orders (2025-01-02 and -03, four
 * stocks; server clock 2025-01-06 16:30 Beijing). Every page is compared with DuckDB reading
 * the sealed file; counts, quotas and slots are checked per interface.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openServiceDb } from '../../../serve/access/serviceDb.js';
import { Limits } from '../../../serve/access/limits.js';
import type { ApiName } from '../../../serve/access/plans.js';
import { duckRows, sqlString } from '../../support/duckdb.js';
import { isEnvelopeError, pagesByCursor, type DetailedPage } from '../../support/pages.js';
import { tempDir } from '../../support/tempDir.js';
import { TickvaultClient } from '../../../client/index.js';
import {
  addAccount,
  DEFAULT_SERVER_NOW,
  httpRequest,
  pausedDownload,
  postApi,
  preparedData,
  sealSyntheticFile,
  startServer,
  type ApiResponse,
  type HttpResponse,
  type ServerHandle,
} from '../../support/server.js';

type Page = DetailedPage;

const TRADE = 'level2_trade_history';
const ORDER = 'level2_order_history';
// api-contract: Trades and orders, written out here rather than taken from shared/schema.ts
const FIELDS: Readonly<Record<string, readonly string[]>> = {
  [TRADE]: ['symbol', 'tradedate', 'time', 'trade_id', 'price', 'volume', 'amount', 'bs_flag', 'trade_code', 'buy_order_id', 'sell_order_id'],
  [ORDER]: ['symbol', 'tradedate', 'time', 'order_id', 'price', 'volume', 'amount', 'side', 'order_type', 'order_no'],
};
const DATASET: Readonly<Record<string, string>> = { [TRADE]: 'trade', [ORDER]: 'order' };
const DAY = '20250103';
const STOCKS = ['600000.SH', '000001.SZ', '300001.SZ', '688001.SH'];
/** A trade file far larger than the socket buffers, so a paused download stays in flight. */
const BIG = { symbol: '601988.SH', tradedate: DAY };

let server: ServerHandle;
let dataDir: string;
let flagship: string;

const call = (apiname: string, params: Record<string, unknown>, key = flagship, more: Record<string, unknown> = {}): Promise<ApiResponse<Page>> =>
  postApi<Page>(server, { apiname, apikey: key, params, ...more });

/** A Parquet download: the raw response (the body is the file, not an envelope). */
const download = (apiname: string, params: Record<string, unknown>, key = flagship): Promise<HttpResponse> =>
  httpRequest(`${server.url}/api`, {
    body: JSON.stringify({ apiname, apikey: key, params: { ...params, format: 'parquet' } }),
    headers: { 'content-type': 'application/json' },
  });

const plain = (v: unknown) => (typeof v === 'bigint' ? Number(v) : v);

/** The stored file's rows in stored order (time, then id), every field, read by DuckDB. */
async function stored(apiname: string, symbol: string, date = DAY, where = ''): Promise<unknown[][]> {
  const path = join(dataDir, DATASET[apiname], `date=${date}`, `${symbol}.parquet`);
  const rows = await duckRows(
    `SELECT * FROM read_parquet(${sqlString(path)}, hive_partitioning = false, file_row_number = true) ${where} ORDER BY file_row_number`,
  );
  return rows.map((r) => FIELDS[apiname].map((f) => plain(r[f])));
}

const allPages = (apiname: string, params: Record<string, unknown>, more: Record<string, unknown> = {}): Promise<Page[]> =>
  pagesByCursor((p) => call(apiname, p, flagship, more), params);

function limits<T>(fn: (l: Limits) => T): T {
  const db = openServiceDb(join(dataDir, 'service.db'));
  try {
    return fn(new Limits(db));
  } finally {
    db.close();
  }
}
const NOW = Date.parse(DEFAULT_SERVER_NOW);

const setup = async () => {
  if (server) return;
  ({ dataDir } = await preparedData({ days: 2, stocks: 4, indexes: 1, ticks: 1, seed: 'detailed' }));
  await sealSyntheticFile(dataDir, BIG.symbol, BIG.tradedate, 400_000, 'trade');
  server = await startServer(dataDir, { env: { TICKVAULT_RATE_LIMIT: '1000' } });
  flagship = addAccount(dataDir, 'flagship').key;
};

// ---------------------------------------------------------------------------------------------
const pages = suite('trade and order pages equal the stored files');
pages.before(setup);

pages('every page of both interfaces, every stock, 1,000 rows a page: the rows DuckDB reads, in stored order', async () => {
  for (const apiname of [TRADE, ORDER]) {
    for (const symbol of STOCKS) {
      const want = await stored(apiname, symbol);
      assert.ok(want.length > 2000, `${apiname} ${symbol}: ${want.length} rows`);
      const got = await allPages(apiname, { symbol, tradedate: DAY, page_size: 1000 });
      assert.is(got.length, Math.ceil(want.length / 1000), `${apiname} ${symbol}: pages`);
      for (const [i, p] of got.entries()) {
        assert.equal(p.fields, [...FIELDS[apiname]]);
        assert.is(p.tradedate, DAY);
        assert.is(p.page_size, 1000);
        assert.is(p.has_more, i < got.length - 1);
        assert.equal(p.items, want.slice(i * 1000, (i + 1) * 1000), `${apiname} ${symbol} page ${i}`);
      }
    }
  }
});

pages('default page: the whole stock-day of trades (≤ 10,000 rows) on one page; codes as letters, ids as integers, nulls as null', async () => {
  const r = await call(TRADE, { symbol: '000001.SZ', tradedate: DAY });
  assert.is(r.json.message, 'success');
  const d = r.json.data!;
  assert.is(d.has_more, false);
  assert.equal(d.items, await stored(TRADE, '000001.SZ'));
  const bs = new Set(d.items.map((row) => row[7]));
  const codes = new Set(d.items.map((row) => row[8]));
  assert.equal([...bs].sort(), ['B', 'N', 'S', null].sort(), 'bs_flag: B, S, N (auction), null (cancellations)');
  assert.equal([...codes].sort(), ['C', 'F'], 'trade_code: Shenzhen reports cancellations as trades');
  assert.ok(
    d.items.every((row) => Number.isInteger(row[3])),
    'trade_id an integer',
  );
  // The raw bytes write a letter as a JSON string and an absent one as null.
  assert.match(r.text, /,"(?:B|S|N)","F",\d+,\d+\]/);
  assert.match(r.text, /,null,"C",(?:\d+,null|null,\d+)\]/);
});

pages('fields and an inclusive time window, paged, equal DuckDB filtering the file', async () => {
  const fields = ['time', 'order_id', 'side', 'order_type', 'price'];
  const want = (await stored(ORDER, '600000.SH', DAY, "WHERE time BETWEEN '100000000' AND '103000000'")).map((row) =>
    fields.map((f) => row[FIELDS[ORDER].indexOf(f)]),
  );
  assert.ok(want.length > 300);
  const got = await allPages(
    ORDER,
    { symbol: 'sh600000', tradedate: DAY, start_time: '10:00', end_time: '10:30', page_size: 200 },
    { fields: fields.join(',') },
  );
  assert.equal(
    got.flatMap((p) => p.items),
    want,
  );
  assert.ok(got.every((p) => p.fields.join() === fields.join()));
});

pages('the older cursor (a row position) pages to the same rows as the token', async () => {
  const want = await stored(TRADE, '300001.SZ');
  const r = await call(TRADE, { symbol: '300001', tradedate: DAY, cursor: '1500', page_size: 700 });
  assert.equal(r.json.data!.items, want.slice(1500, 2200));
});

pages('format=parquet: the stored file itself, named for the stock and day', async () => {
  for (const apiname of [TRADE, ORDER]) {
    const r = await download(apiname, { symbol: '688001', tradedate: DAY });
    assert.is(r.status, 200);
    assert.is(r.headers['content-type'], 'application/vnd.apache.parquet');
    assert.is(r.headers['content-disposition'], `attachment; filename="688001.SH_${DAY}.parquet"`);
    const file = readFileSync(join(dataDir, DATASET[apiname], `date=${DAY}`, '688001.SH.parquet'));
    assert.is(createHash('sha256').update(r.body).digest('hex'), createHash('sha256').update(file).digest('hex'), apiname);
  }
});

pages('no data: a stock without trades stored, a non-trading day; never an error', async () => {
  const none = await call(ORDER, { symbol: '600999', tradedate: DAY });
  assert.is(none.status, 200);
  assert.is(none.json.message, `no data; 600999.SH is not stored for ${DAY}`);
  assert.equal(none.json.data!.fields, [...FIELDS[ORDER]]);
  assert.equal(none.json.data!.items, []);
  const weekend = await call(TRADE, { symbol: '600000', tradedate: '20250104' });
  assert.match(weekend.json.message, /^no data; 20250104 is not a trading day/);
});

pages('tickvault/client: trade and order pages by its iterators, and the trade file by its download', async () => {
  const client = new TickvaultClient({ baseUrl: server.url, apikey: flagship });
  const trades: unknown[][] = [];
  for await (const p of client.level2TradeHistoryPages({ symbol: '000001', tradedate: DAY, page_size: 2500 })) trades.push(...p.items);
  assert.equal(trades, await stored(TRADE, '000001.SZ'));
  const orders: unknown[][] = [];
  for await (const p of client.level2OrderHistoryPages({ symbol: '000001', tradedate: DAY, page_size: 4000 })) orders.push(...p.items);
  assert.equal(orders, await stored(ORDER, '000001.SZ'));
  const target = join(tempDir('tickvault-client-trades-'), 'trades.parquet');
  const r = await client.downloadTradeParquet({ symbol: '000001', tradedate: DAY }, target);
  assert.ok(r.written);
  assert.equal(readFileSync(target), readFileSync(join(dataDir, 'trade', `date=${DAY}`, '000001.SZ.parquet')));
  const none = await client.downloadOrderParquet({ symbol: '600999', tradedate: DAY }, join(tempDir('tickvault-client-none-'), 'x.parquet'));
  assert.not.ok(none.written);
});

// ---------------------------------------------------------------------------------------------
const cursors = suite('cursors are bound to their interface');
cursors.before(setup);

cursors("a trade cursor sent to the order interface, or level 2's to trades, is a 400; a forged one too", async () => {
  const first = await call(TRADE, { symbol: '600000', tradedate: DAY, page_size: 100 });
  const cursor = first.json.data!.next_cursor!;
  isEnvelopeError(
    await call(ORDER, { symbol: '600000', cursor }),
    400,
    /^params\.cursor was issued by level2_trade_history; it pages only that interface, not level2_order_history$/,
  );
  const l2 = await call('level2_quote_history', { symbol: '600000', tradedate: DAY, page_size: 100 });
  isEnvelopeError(
    await call(TRADE, { symbol: '600000', cursor: l2.json.data!.next_cursor }),
    400,
    /issued by level2_quote_history; it pages only that interface, not level2_trade_history/,
  );
  const forged = cursor.slice(0, -2) + (cursor.endsWith('A') ? 'BB' : 'AA');
  isEnvelopeError(await call(TRADE, { symbol: '600000', cursor: forged }), 400, /params\.cursor is not a cursor issued by this service/);
  // The genuine one still pages on.
  const next = await call(TRADE, { symbol: '600000', cursor });
  assert.equal(next.json.data!.items, (await stored(TRADE, '600000.SH')).slice(100, 10_100));
});

// ---------------------------------------------------------------------------------------------
const limitsSuite = suite('plans, trial calls, Parquet quota and slot: each interface on its own');
limitsSuite.before(setup);

limitsSuite('access follows level2_quote_history: standard and free are refused, professional only the latest 30 trading days', async () => {
  const standard = addAccount(dataDir, 'standard').key;
  isEnvelopeError(await call(TRADE, { symbol: '600000', tradedate: DAY }, standard), 403, /^the standard plan has no access to level2_trade_history$/);
  isEnvelopeError(await call(ORDER, { symbol: '600000', tradedate: DAY }, addAccount(dataDir, 'free').key), 403, /no access to level2_order_history/);
  const later = await startServer(dataDir, { now: '2025-03-03T16:30:00+08:00' });
  try {
    const pro = addAccount(dataDir, 'professional').key;
    const r = await postApi<Page>(later, { apiname: ORDER, apikey: pro, params: { symbol: '600000', tradedate: DAY } });
    isEnvelopeError(r, 403, /^tradedate 20250103 is outside the professional plan's history depth \(the latest 30 trading days, from \d{8}\)$/);
  } finally {
    await later.stop();
  }
});

limitsSuite('trial: 100 calls a day on each interface, counted apart', async () => {
  const trial = addAccount(dataDir, 'trial');
  limits((l) => {
    for (let i = 0; i < 100; i++) assert.ok(l.takeDaily(trial.id, TRADE as ApiName, 'calls', 100, NOW).ok);
  });
  const r = await call(TRADE, { symbol: '600000', tradedate: DAY, page_size: 5 }, trial.key);
  isEnvelopeError(r, 429, /^the trial plan's 100 calls per Beijing day on level2_trade_history are used up$/);
  assert.ok(Number(r.headers['retry-after']) > 0);
  const order = await call(ORDER, { symbol: '600000', tradedate: DAY, page_size: 5 }, trial.key);
  assert.is(order.status, 200);
  const l2 = await call('level2_quote_history', { symbol: '600000', tradedate: DAY, page_size: 5 }, trial.key);
  assert.is(l2.status, 200);
  limits((l) => {
    assert.is(l.daily(trial.id, TRADE as ApiName, 'calls', NOW), 100);
    assert.is(l.daily(trial.id, ORDER as ApiName, 'calls', NOW), 1);
    assert.is(l.daily(trial.id, 'level2_quote_history', 'calls', NOW), 1);
  });
});

limitsSuite('Parquet: 30 files a day per interface for professional; the 31st trade file is a 429, an order file still downloads', async () => {
  const pro = addAccount(dataDir, 'professional');
  for (let i = 0; i < 30; i++) {
    const r = await download(TRADE, { symbol: STOCKS[i % 4], tradedate: DAY }, pro.key);
    assert.is(r.status, 200, `download ${i + 1}: ${r.text.slice(0, 200)}`);
  }
  isEnvelopeError(
    await call(TRADE, { symbol: '600000', tradedate: DAY, format: 'parquet' }, pro.key),
    429,
    /30 Parquet files per Beijing day on level2_trade_history are used up/,
  );
  const order = await download(ORDER, { symbol: '600000', tradedate: DAY }, pro.key);
  assert.is(order.status, 200);
  assert.is(order.headers['content-type'], 'application/vnd.apache.parquet');
  limits((l) => {
    assert.is(l.daily(pro.id, TRADE as ApiName, 'parquet', NOW), 30);
    assert.is(l.daily(pro.id, ORDER as ApiName, 'parquet', NOW), 1);
  });
  // /account shows each interface's own count.
  const acct = (await (
    await fetch(`${server.url}/account`, { method: 'POST', body: JSON.stringify({ apikey: pro.key }), headers: { 'content-type': 'application/json' } })
  ).json()) as {
    data: { operations: Record<string, { parquet_files: { used: number; left: number } }> };
  };
  assert.equal(acct.data.operations[TRADE].parquet_files, { limit: 30, used: 30, left: 0 });
  assert.equal(acct.data.operations[ORDER].parquet_files, { limit: 30, used: 1, left: 29 });
});

limitsSuite('one request in flight per interface: a held trade download blocks trades (503), not orders or level 2', async () => {
  const held = await pausedDownload(server, flagship, BIG, TRADE);
  try {
    assert.match(held.head, /^HTTP\/1\.1 200/);
    const busy = await call(TRADE, { symbol: '600000', tradedate: DAY, page_size: 5 });
    isEnvelopeError(busy, 503, /^this account already has a level2_trade_history request in progress; it is not queued$/);
    assert.is(busy.headers['retry-after'], '1');
    assert.is((await call(ORDER, { symbol: '600000', tradedate: DAY, page_size: 5 })).status, 200);
    assert.is((await call('level2_quote_history', { symbol: '600000', tradedate: DAY, page_size: 5 })).status, 200);
    const size = readFileSync(join(dataDir, 'trade', `date=${DAY}`, `${BIG.symbol}.parquet`)).length;
    assert.is(await held.finish(), size);
  } finally {
    held.socket.destroy();
  }
  // Released with the last byte: the next trade request is served.
  assert.is((await call(TRADE, { symbol: '600000', tradedate: DAY, page_size: 5 })).status, 200);
});

limitsSuite.after(async () => {
  await server?.stop();
});

pages.run();
cursors.run();
limitsSuite.run();
