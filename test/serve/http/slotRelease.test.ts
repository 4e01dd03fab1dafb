/**
 * A request that took its account's level-2 slot and then fails (here: the Parquet quota is
 * used up, found after the slot is taken) must have released the slot in the shared state
 * before its error's last byte goes out, as a success does (api-contract: Plans and limits): its client may
 * send the next request at once, to another site. The state store here is the real SQLite
 * one with every release held back 300 ms, as a round trip to a distant PostgreSQL can be,
 * so a response written before its release completes is caught every time, not by chance.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../../serve/http/app.js';
import { createOperations } from '../../../serve/operations.js';
import { SqliteStateStore } from '../../../serve/access/sqliteState.js';
import { CatalogReader, openCatalog } from '../../../storage/catalog.js';
import { layoutFor } from '../../../storage/layout.js';
import { offsetClock, parseInstant } from '../../../shared/clock.js';
import { createLogger } from '../../../shared/logger.js';
import type { Db } from '../../../shared/sqlite.js';
import { addAccount, DEFAULT_SERVER_NOW, postApi, preparedData } from '../../support/server.js';

const RELEASE_DELAY_MS = 300;
const API = 'level2_quote_history';
const FILE = { symbol: '600000.SH', tradedate: '20250106' };
const PAGE = { ...FILE, page_size: 1 };

class SlowReleaseState extends SqliteStateStore {
  override async releaseSlot(accountId: number, api: string, holder: string): Promise<void> {
    await new Promise((r) => setTimeout(r, RELEASE_DELAY_MS));
    return super.releaseSlot(accountId, api, holder);
  }
}

const test = suite('slot release before the last byte, with a slow state store');
let server: Server;
let url: string;
let state: SlowReleaseState;
let catalogDb: Db;
let dataDir: string;
const nowMs = parseInstant(DEFAULT_SERVER_NOW)!;

test.before(async () => {
  dataDir = (await preparedData()).dataDir;
  const layout = layoutFor(dataDir);
  catalogDb = openCatalog(layout.catalogDb, true);
  state = new SlowReleaseState({ path: layout.serviceDb, cursorKeyFile: layout.cursorKeyFile });
  const catalog = new CatalogReader(catalogDb);
  const { operations } = createOperations({
    dataDir,
    catalog,
    cursorKey: await state.cursorKey(),
    cacheBytes: 64 << 20,
    jsonThreads: 0,
    log: createLogger('warn', 'test'),
  });
  const app = createApp({
    catalog,
    state,
    clock: offsetClock(nowMs),
    log: createLogger('warn', 'test'),
    operations,
    config: { rateLimitPerSec: 1000, leaseMs: 30_000 },
  });
  server = createServer(app.koa.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

test.after(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await state.close();
  catalogDb.close();
});

test('a page answered, then the next request at once: the slot is already free', async () => {
  const { key } = addAccount(dataDir, 'flagship');
  for (let i = 0; i < 3; i++) {
    const r = await postApi({ url }, { apiname: API, apikey: key, params: PAGE });
    assert.is(r.status, 200, r.text.slice(0, 200));
  }
});

test('a download refused after the slot was taken (quota used up): the next request at once finds the slot free', async () => {
  const { id, key } = addAccount(dataDir, 'professional');
  // The day's 30 Parquet files taken through the state store itself, as 30 downloads would.
  for (let i = 0; i < 30; i++) assert.ok((await state.takeDaily(id, API, 'parquet', 30, nowMs)).ok);
  for (let i = 0; i < 3; i++) {
    const refused = await postApi({ url }, { apiname: API, apikey: key, params: { ...FILE, format: 'parquet' } });
    assert.is(refused.status, 429, refused.text.slice(0, 200));
    assert.match(refused.json.message, /30 Parquet files per Beijing day on level2_quote_history are used up/);
    const next = await postApi({ url }, { apiname: API, apikey: key, params: PAGE });
    assert.is(next.status, 200, `the request after the refusal: ${next.text.slice(0, 200)}`);
  }
});

test.run();
