/**
 * A live day (api-contract: The live day) on the detailed interfaces, against a real server:
 * a generated day staged (with corrected duplicates), not sealed, answered from staging; the
 * same staging copied and sealed by `tickvault seal`, answered from its files. Every interface's
 * rows, windows and field lists equal the sealed answers; live answers say `live: true` and no
 * version; paging by cursor gathers exactly the sealed rows, also when the day is sealed in the
 * middle of the paging; a row committed to staging later is in the next answer; a Parquet
 * download of a live day is no data with the reason, and no quota is counted.
 */
import { cpSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { generateIntoStaging } from '../../../ingest/feed/generateIntoStaging.js';
import { openIngestStores } from '../../../ingest/staging/stores.js';
import { SCHEMAS, type Dataset } from '../../../shared/schema.js';
import { runCli } from '../../support/cli.js';
import { addAccount, postApi, startServer, type ServerHandle } from '../../support/server.js';
import { tempDir } from '../../support/tempDir.js';

const test = suite('serve/detailedHistory/liveDay');

const DAY = '20250102';
const DURING = '2025-01-02T14:00:00+08:00';
const AFTER_CLOSE = '2025-01-02T18:00:00+08:00';
const SYMBOL = '600000.SH';
const API: Readonly<Record<string, Dataset>> = { level2_quote_history: 'level2', level2_trade_history: 'trade', level2_order_history: 'order' };

interface Page {
  readonly code: number;
  readonly message: string;
  readonly data: { fields: string[]; items: unknown[][]; next_cursor: string | null; has_more: boolean; live?: boolean; version?: number };
}

const live = tempDir('tickvault-live-');
const sealed = tempDir('tickvault-live-sealed-');
let liveServer: ServerHandle;
let sealedServer: ServerHandle;
let key = '';
let sealedKey = '';

/** A trade of SYMBOL on DAY. */
function tradeRow(id: number, price: number, timeMs: number) {
  const values = new Array<number | null>(SCHEMAS.trade.valueFields.length).fill(null);
  const at = (name: string) => SCHEMAS.trade.valueFields.findIndex((f) => f.name === name);
  values[at('trade_id')] = id;
  values[at('price')] = price;
  values[at('volume')] = 100;
  values[at('amount')] = Math.round(price * 100 * 100) / 100;
  values[at('bs_flag')] = 'B'.charCodeAt(0);
  values[at('trade_code')] = 'F'.charCodeAt(0);
  values[at('buy_order_id')] = 1;
  values[at('sell_order_id')] = 2;
  return { dataset: 'trade' as const, symbol: SYMBOL, tradedate: DAY, timeMs, values };
}

async function ask(server: ServerHandle, apiname: string, params: Record<string, unknown>, fields?: string): Promise<Page> {
  const r = await postApi(server, { apiname, apikey: server === liveServer ? key : sealedKey, params, ...(fields ? { fields } : {}) });
  return r.json as unknown as Page;
}

test.before(async () => {
  const stores = openIngestStores(live, () => Date.parse(DURING));
  try {
    await generateIntoStaging({ days: [DAY], stocks: 3, indexes: 1, seed: 'live', faults: 0, ticks: 0.3 }, stores.staging);
    // Corrected duplicates, the later arrival winning: a snapshot's time and a trade's id twice.
    const l2 = (close: number) => {
      const v = new Array<number | null>(SCHEMAS.level2.valueFields.length).fill(null);
      v[SCHEMAS.level2.valueFields.findIndex((f) => f.name === 'close')] = close;
      return { dataset: 'level2' as const, symbol: SYMBOL, tradedate: DAY, timeMs: (11 * 3600 + 29 * 60 + 59) * 1000 + 999, values: v };
    };
    stores.staging.stage([l2(11.11)], []);
    stores.staging.stage([l2(12.12)], []);
    stores.staging.stage([tradeRow(8_888_888_888, 10.1, (10 * 3600 + 15 * 60) * 1000)], []);
    stores.staging.stage([tradeRow(8_888_888_888, 10.2, (10 * 3600 + 15 * 60) * 1000 + 1)], []);
    await stores.staging.flush();
  } finally {
    stores.close();
  }
  cpSync(live, sealed, { recursive: true });
  const seal = await runCli(['seal', '--date', DAY, '--data-dir', sealed], { env: { TICKVAULT_NOW: AFTER_CLOSE } });
  assert.is(seal.code, 0, seal.stderr);
  key = addAccount(live, 'flagship').key;
  sealedKey = addAccount(sealed, 'flagship').key;
  // Paging a day page by page asks faster than the default 20 a second.
  const opts = { now: DURING, args: ['--rate-limit', '1000'] };
  [liveServer, sealedServer] = await Promise.all([startServer(live, opts), startServer(sealed, opts)]);
});

test.after(async () => {
  await Promise.all([liveServer?.stop(), sealedServer?.stop()]);
});

test('every interface answers the live day with the rows the seal writes, marked live, with no version', async () => {
  for (const [apiname, dataset] of Object.entries(API)) {
    const a = await ask(liveServer, apiname, { symbol: SYMBOL });
    const b = await ask(sealedServer, apiname, { symbol: SYMBOL });
    assert.is(a.code, 200, `${apiname}: ${a.message}`);
    assert.is(b.code, 200, `${apiname}: ${b.message}`);
    assert.ok(b.data.items.length > 100, `${apiname}: ${b.data.items.length} sealed rows`);
    assert.is(a.data.live, true, apiname);
    assert.is(b.data.live, undefined, `${apiname}: a sealed answer does not say live`);
    assert.is(a.data.version, undefined, apiname);
    assert.equal(a.data.fields, SCHEMAS[dataset].fieldNames, apiname);
    assert.equal(a.data.items, b.data.items, `${apiname}: the same rows, values and order`);
    assert.is(a.data.has_more, b.data.has_more);
  }
  // The duplicates resolved as the seal resolves them: the later arrival.
  const l2 = (await ask(liveServer, 'level2_quote_history', { symbol: SYMBOL, start_time: '11:29:59.999', end_time: '11:29:59.999' }, 'time,close')).data.items;
  assert.equal(l2, [['112959999', 12.12]]); // level 2's time form, HHMMSSmmm
  const trade = (await ask(liveServer, 'level2_trade_history', { symbol: SYMBOL, start_time: '10:15', end_time: '10:15:00.001' }, 'trade_id,price')).data.items;
  assert.equal(
    trade.filter((r) => r[0] === 8_888_888_888),
    [[8_888_888_888, 10.2]],
  );
});

test('a window and a field list give the sealed rows too', async () => {
  for (const apiname of Object.keys(API)) {
    const fields = apiname === 'level2_quote_history' ? 'time,close,volume' : 'time,price,volume';
    const params = { symbol: SYMBOL, start_time: '10:00', end_time: '10:30:00.500' };
    const a = await ask(liveServer, apiname, params, fields);
    const b = await ask(sealedServer, apiname, params, fields);
    assert.ok(b.data.items.length > 10, `${apiname}: ${b.data.items.length} rows in the window`);
    assert.equal(a.data.fields, fields.split(','));
    assert.equal(a.data.items, b.data.items, apiname);
  }
});

/** Every page of a query, following next_cursor. */
async function allPages(server: ServerHandle, apiname: string, pageSize: number, first?: Page): Promise<{ items: unknown[][]; pages: number }> {
  const items: unknown[][] = [];
  let page = first ?? (await ask(server, apiname, { symbol: SYMBOL, page_size: pageSize }));
  let pages = 1;
  items.push(...page.data.items);
  while (page.data.next_cursor !== null) {
    page = await ask(server, apiname, { symbol: SYMBOL, page_size: pageSize, cursor: page.data.next_cursor });
    assert.is(page.code, 200, page.message);
    items.push(...page.data.items);
    pages++;
  }
  return { items, pages };
}

test('paging a live day by cursor gathers exactly the sealed rows', async () => {
  for (const apiname of Object.keys(API)) {
    const whole = (await ask(sealedServer, apiname, { symbol: SYMBOL })).data.items;
    const paged = await allPages(liveServer, apiname, 333);
    assert.ok(paged.pages >= 3, `${apiname}: ${paged.pages} pages`);
    assert.equal(paged.items, whole, apiname);
  }
});

test('a Parquet download of a live day is no data with the reason, and counts no quota', async () => {
  const r = await ask(liveServer, 'level2_quote_history', { symbol: SYMBOL, format: 'parquet' });
  assert.is(r.code, 200);
  assert.is(r.message, 'no data; the day is live: its file exists once it is sealed; JSON pages serve its rows now');
  assert.is(r.data.live, true);
  const acc = await fetch(`${liveServer.url}/account`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apikey: key }),
  });
  const used = ((await acc.json()) as { data: { operations: Record<string, { parquet_files: { used: number } | null }> } }).data.operations
    .level2_quote_history!.parquet_files!.used;
  assert.is(used, 0);
});

test('a row committed to staging later is in the next answer; a live cursor continues on the file once the day is sealed', async () => {
  // The first page of trades, taken while live.
  const first = await ask(liveServer, 'level2_trade_history', { symbol: SYMBOL, page_size: 500 });
  assert.ok(first.data.next_cursor !== null);

  // A late trade, committed to staging by the ingest writer while the server runs.
  const before = (await ask(liveServer, 'level2_trade_history', { symbol: SYMBOL, start_time: '14:59:59' })).data.items.length;
  const stores = openIngestStores(live, () => Date.parse(DURING));
  try {
    stores.staging.stage([tradeRow(9_999_999_999, 10.5, (14 * 3600 + 59 * 60 + 59) * 1000 + 900)], []);
    await stores.staging.flush();
  } finally {
    stores.close();
  }
  const after = (await ask(liveServer, 'level2_trade_history', { symbol: SYMBOL, start_time: '14:59:59' })).data.items;
  assert.is(after.length, before + 1, 'the committed row is visible at once');
  const late = after.find((r) => r.includes(9_999_999_999));
  assert.ok(late, 'the late trade is among the rows');
  assert.ok(late.includes(10.5) && late.includes('B'), JSON.stringify(late));

  // Now the day is sealed under the running server; the live cursor pages on in the file.
  const seal = await runCli(['seal', '--date', DAY, '--data-dir', live], { env: { TICKVAULT_NOW: AFTER_CLOSE } });
  assert.is(seal.code, 0, seal.stderr);
  const rest = await allPages(
    liveServer,
    'level2_trade_history',
    500,
    await ask(liveServer, 'level2_trade_history', { symbol: SYMBOL, page_size: 500, cursor: first.data.next_cursor }),
  );
  const sealedNow = await ask(liveServer, 'level2_trade_history', { symbol: SYMBOL });
  assert.is(sealedNow.data.live, undefined, 'sealed now: no longer live');
  assert.equal([...first.data.items, ...rest.items], sealedNow.data.items, 'live first page + pages after the seal = the sealed day');
});

test.run();
