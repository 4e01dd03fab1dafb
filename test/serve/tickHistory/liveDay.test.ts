/**
 * tick_history on a live day (api-contract: The live day), against real servers: a generated
 * day of indexes and stocks staged (with a corrected duplicate), not sealed, answered from
 * staging; the same staging copied and sealed by `tickvault seal`, answered from its files.
 * Every mode (compatible, enhanced over one day and over a range ending on the live day,
 * boundary with and without symbols), for indexes and `asset=stock`, gives the sealed rows,
 * marked `live`; stock-god's 09:25 poll is answered; a boundary `before` a minute still to come
 * is no data so far; a row staged later is in the next answer.
 */
import { cpSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { generateIntoStaging } from '../../../ingest/feed/generateIntoStaging.js';
import { openIngestStores } from '../../../ingest/staging/stores.js';
import { SCHEMAS } from '../../../shared/schema.js';
import { runCli } from '../../support/cli.js';
import { addAccount, postApi, startServer, type ServerHandle } from '../../support/server.js';
import { tempDir } from '../../support/tempDir.js';

const test = suite('serve/tickHistory/liveDay');

const DAY = '20250103';
const PREVIOUS = '20250102';
const DURING = '2025-01-03T14:00:00+08:00';
const AFTER_CLOSE = '2025-01-03T18:00:00+08:00';

interface Answer {
  readonly code: number;
  readonly message: string;
  readonly data: { fields: string[]; items: unknown[][]; has_more?: boolean; live?: boolean; limit?: number; offset?: number };
}

const live = tempDir('tickvault-tick-live-');
const sealed = tempDir('tickvault-tick-live-sealed-');
let liveServer: ServerHandle;
let sealedServer: ServerHandle;
const keys = new Map<ServerHandle, string>();

async function ask(server: ServerHandle, params: Record<string, unknown>, fields?: string): Promise<Answer> {
  const r = await postApi(server, { apiname: 'tick_history', apikey: keys.get(server)!, params, ...(fields ? { fields } : {}) });
  return r.json as unknown as Answer;
}

/** An index snapshot of `symbol` at `timeMs` on DAY with this close. */
function indexSnapshot(symbol: string, timeMs: number, close: number) {
  const values = new Array<number | null>(SCHEMAS.index.valueFields.length).fill(null);
  values[SCHEMAS.index.valueFields.findIndex((f) => f.name === 'close')] = close;
  return { dataset: 'index' as const, symbol, tradedate: DAY, timeMs, values };
}

/** Stages rows into the live data directory, committed as the ingestor commits them. */
async function stage(rows: ReturnType<typeof indexSnapshot>[]): Promise<void> {
  const stores = openIngestStores(live, () => Date.parse(DURING));
  try {
    stores.staging.stage(rows, []);
    await stores.staging.flush();
  } finally {
    stores.close();
  }
}

let indexes: string[] = [];
let stocks: string[] = [];

test.before(async () => {
  // The day before is sealed in both directories: a range ending today reads a sealed day and a live one.
  const stores = openIngestStores(live, () => Date.parse(DURING));
  try {
    await generateIntoStaging({ days: [PREVIOUS, DAY], stocks: 3, indexes: 3, seed: 'tick-live', faults: 0, ticks: 0 }, stores.staging);
  } finally {
    stores.close();
  }
  const previous = await runCli(['seal', '--date', PREVIOUS, '--data-dir', live], { env: { TICKVAULT_NOW: AFTER_CLOSE } });
  assert.is(previous.code, 0, previous.stderr);
  cpSync(live, sealed, { recursive: true });
  const seal = await runCli(['seal', '--date', DAY, '--data-dir', sealed], { env: { TICKVAULT_NOW: AFTER_CLOSE } });
  assert.is(seal.code, 0, seal.stderr);
  const opts = { now: DURING, args: ['--rate-limit', '1000'] };
  [liveServer, sealedServer] = await Promise.all([startServer(live, opts), startServer(sealed, opts)]);
  keys.set(liveServer, addAccount(live, 'flagship').key);
  keys.set(sealedServer, addAccount(sealed, 'flagship').key);
  // The symbols, from the sealed day: every index's and every stock's boundary row.
  const all = async (asset: string) => (await ask(sealedServer, { asset, side: 'after', trademin: '0930' }, 'symbol')).data.items.map((r) => String(r[0]));
  indexes = await all('index');
  stocks = await all('stock');
  assert.is(indexes.length, 3, indexes.join());
  assert.is(stocks.length, 3, stocks.join());
});

test.after(async () => {
  await Promise.all([liveServer?.stop(), sealedServer?.stop()]);
});

/** The same request to both servers: the live answer marked live, the sealed one not, the rest equal. */
async function same(params: Record<string, unknown>, fields?: string, minRows = 1): Promise<Answer> {
  const a = await ask(liveServer, params, fields);
  const b = await ask(sealedServer, params, fields);
  const what = JSON.stringify(params);
  assert.is(a.code, 200, `${what}: ${a.message}`);
  assert.is(b.code, 200, `${what}: ${b.message}`);
  assert.ok(b.data.items.length >= minRows, `${what}: ${b.data.items.length} sealed rows`);
  assert.is(a.data.live, true, `${what}: live`);
  assert.is(b.data.live, undefined, `${what}: a sealed answer does not say live`);
  assert.is(a.message, b.message, what);
  assert.equal(a.data, { ...b.data, live: true }, what);
  return a;
}

test('compatible mode answers the live day (the default day) with the sealed rows, for indexes and stocks', async () => {
  for (const symbol of indexes) await same({ symbol }, undefined, 4000);
  // The stock form of the compatible request, and a field list.
  for (const symbol of stocks) await same({ symbol, asset: 'stock' }, 'time,symbol,close,vol,bid1,ask5', 4000);
});

test('enhanced mode: one live day, a window, desc, deep offsets, and a range ending on the live day', async () => {
  await same({ symbols: indexes, tradedate: DAY, limit: 6000 }, undefined, 6000);
  await same({ symbols: indexes, start_time: '10:00:00', end_time: '10:30:01.500', order_dir: 'desc' }, 'time,symbol,close');
  await same({ symbols: indexes, offset: 9000, limit: 700 }, 'time,symbol,close', 700);
  await same({ symbols: stocks, asset: 'stock', trademin: '1101' }, 'time,symbol,close,vol');
  // The day before is sealed, today live: one answer over both, marked live.
  const range = await same({ symbols: indexes.slice(0, 2), startdate: PREVIOUS, offset: 9500, limit: 1000 }, 'time,symbol,close', 1000);
  assert.ok(range.message.startsWith(`success; requested ${PREVIOUS}-${DAY}`), range.message);
  await same({ symbols: indexes, recentdays: 2, order_dir: 'desc', limit: 50 }, 'time,symbol', 50);
});

test("boundary mode, and stock-god's 09:25 poll of its stocks on the live day", async () => {
  // The first auction snapshot of each stock: what stock-god's poll() asks at 09:25.
  const poll = await same({ asset: 'stock', symbols: stocks, side: 'after', trademin: '0925' }, 'symbol,time,close,vol,bid1', 3);
  for (const row of poll.data.items) assert.ok(String(row[1]).startsWith('2025-01-03 09:25:'), JSON.stringify(row));
  await same({ side: 'before', trademin: '1130' }, undefined, 3);
  await same({ side: 'after', trademin: '13:00', symbols: indexes.slice(1), limit: 1, offset: 1 }, undefined, 1);
  await same({ asset: 'stock', side: 'before', trademin: '1400' }, undefined, 3);
});

test('on the live day a boundary before a minute still to come is no data so far; after it is no data too', async () => {
  // 14:00 now: the last snapshot before 14:30 is not known yet. The sealed day (after the close) answers it.
  const a = await ask(liveServer, { side: 'before', trademin: '1430' });
  assert.is(a.code, 200);
  assert.equal(a.data.items, []);
  assert.is(a.data.live, true);
  assert.ok(a.message.startsWith('no data; no snapshot before 14:30 on 20250103 so far (the day is live)'), a.message);
  const s = await ask(sealedServer, { side: 'before', trademin: '1430' });
  assert.is(s.data.items.length, 3);
});

test('a snapshot staged later is in the next answer, a corrected one replaces it, and the day sealed answers the same', async () => {
  const symbol = indexes[0]!;
  const atMs = (14 * 3600 + 59 * 60 + 59) * 1000 + 999;
  const last = async () => (await ask(liveServer, { symbols: [symbol], start_time: '14:59:59.999' }, 'time,close')).data.items;
  const before = await last();
  await stage([indexSnapshot(symbol, atMs, 4321.5)]);
  await stage([indexSnapshot(symbol, atMs, 4321.75)]);
  const after = await last();
  // The generator's last snapshot of the day is at 15:00:00.000 or before: the new one is the latest or the one before it.
  assert.equal(
    after.filter((r) => r[0] === '2025-01-03 14:59:59.999'),
    [['2025-01-03 14:59:59.999', 4321.75]],
    'the later arrival of the two wins',
  );
  assert.is(after.length, before.filter((r) => r[0] !== '2025-01-03 14:59:59.999').length + 1);
  const lastLive = await ask(liveServer, { symbol });
  const seal = await runCli(['seal', '--date', DAY, '--data-dir', live], { env: { TICKVAULT_NOW: AFTER_CLOSE } });
  assert.is(seal.code, 0, seal.stderr);
  const sealedNow = await ask(liveServer, { symbol });
  assert.is(sealedNow.data.live, undefined, 'sealed now: no longer live');
  assert.equal({ ...sealedNow.data, live: true }, lastLive.data, 'the sealed answer equals the last live one');
});

test.run();
