/**
 * The one-request-in-progress rule across two server processes on one data directory
 * (api-contract: Plans and limits). A request is held in flight by a Parquet download the client stops
 * reading: the fixture file (~15 MB) is far larger than what the kernel's socket buffers
 * absorb, so the server cannot write its last byte until the client reads again.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addAccount,
  addKey,
  pausedDownload,
  postApi,
  sealSyntheticFile,
  startServer,
  startServers,
  type ApiResponse,
  type ServerHandle,
} from '../../support/server.js';
import { tempDir } from '../../support/tempDir.js';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { openServiceDb } from '../../../serve/access/serviceDb.js';
import { unreadExchange, watchHeldSlot, whenHeld, type ApiCall, type SlotRow } from '../../support/heldSlot.js';

const API = 'level2_quote_history';
const BIG = { symbol: '600999.SH', tradedate: '20250106' };
/** Small enough to sit whole in the stream and response buffers: only the hold keeps it. */
const SMALL = { symbol: '600998.SH', tradedate: '20250106' };
const LEASE_SECONDS = 2;
let dataDir: string;
let a: ServerHandle;
let b: ServerHandle;

const q = (server: ServerHandle, key: string, params: Record<string, unknown> = { ...BIG, page_size: 1 }): Promise<ApiResponse> =>
  postApi(server, { apiname: API, apikey: key, params });

/** Polls until the request is answered 200 (the slot is free); returns how long it took. */
async function untilFree(server: ServerHandle, key: string, timeoutMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    const r = await q(server, key);
    if (r.status === 200) return Date.now() - started;
    assert.is(r.status, 503, r.text);
    if (Date.now() - started > timeoutMs) throw new Error(`slot still held after ${timeoutMs} ms`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

/**
 * Waits until the account's slot row is gone, failing if its lease lapses first: a slot that
 * was released is deleted while its lease still runs; one that was not only expires. No
 * wall-clock bound on the wait itself, so a loaded machine cannot fail it.
 */
async function releasedBeforeLapse(accountId: number, timeoutMs = 30_000): Promise<void> {
  const db = openServiceDb(join(dataDir, 'service.db'));
  try {
    const get = db.prepare('SELECT expires_at_ms FROM slots WHERE account_id = ? AND apiname = ?');
    const started = Date.now();
    for (;;) {
      const now = Date.now();
      const row = get.get(accountId, API) as { expires_at_ms: number } | undefined;
      if (!row) return;
      assert.ok(now < row.expires_at_ms, `the slot lapsed (expired ${row.expires_at_ms}, now ${now}) without being released`);
      if (now - started > timeoutMs) throw new Error(`slot still held after ${timeoutMs} ms`);
      await new Promise((res) => setTimeout(res, 10));
    }
  } finally {
    db.close();
  }
}

function isBusy(r: ApiResponse): void {
  assert.is(r.status, 503, r.text);
  assert.equal(r.json, { code: 503, message: `this account already has a ${API} request in progress; it is not queued`, data: null });
  assert.is(r.headers['retry-after'], '1');
}

const test = suite('one request in progress per account (two processes)');

test.before(async () => {
  dataDir = tempDir();
  await sealSyntheticFile(dataDir, BIG.symbol, BIG.tradedate, 70_000);
  await sealSyntheticFile(dataDir, SMALL.symbol, SMALL.tradedate, 300);
  // Started together on a fresh directory: both must end up with the one cursor key.
  const env = { TICKVAULT_LEASE_SECONDS: String(LEASE_SECONDS), TICKVAULT_RATE_LIMIT: '1000' };
  [a, b] = await startServers([
    { dataDir, opts: { env } },
    { dataDir, opts: { env } },
  ]);
});

test.after(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});

test('servers started together agree on the cursor key: a cursor from one pages on the other', async () => {
  const { key } = addAccount(dataDir, 'flagship');
  const first = await q(a, key, { ...BIG, page_size: 3000 });
  const cursor = (first.json.data as { next_cursor: string }).next_cursor;
  const onB = await q(b, key, { ...BIG, page_size: 3000, cursor });
  const onA = await q(a, key, { ...BIG, page_size: 3000, cursor });
  assert.is(onB.status, 200, onB.text.slice(0, 200));
  assert.equal(onB.json.data, onA.json.data);
});

test('a download in flight holds the slot for every key of the account on both servers; others are free', async () => {
  const { id, key } = addAccount(dataDir, 'flagship');
  const otherKey = addKey(dataDir, id);
  const stranger = addAccount(dataDir, 'flagship').key;
  const held = await pausedDownload(a, key, BIG);
  assert.match(held.head, /^HTTP\/1\.1 200/);
  // Parquet and JSON share the slot, across keys and processes; the duplicate is not queued.
  const started = Date.now();
  isBusy(await q(b, key));
  isBusy(await q(a, otherKey));
  isBusy(await q(b, otherKey, { ...BIG, format: 'parquet' }));
  // Queued behind the paused download, they would never be answered.
  assert.ok(Date.now() - started < 10_000, 'answered at once, not queued');
  assert.is((await q(b, stranger)).status, 200, 'another account is unaffected');
  // tick_history is not bound by the rule (api-contract: Plans and limits: the level2 interface only).
  const tick = await postApi(b, { apiname: 'tick_history', apikey: key, params: { symbol: '000001', tradedate: '20250106' } });
  assert.is.not(tick.status, 503, tick.text.slice(0, 200));
  // Finishing the download frees the slot.
  const bytes = await held.finish();
  assert.ok(bytes > 8_000_000, `fixture large enough (${bytes} bytes)`);
  // Released just before the last byte went out, so by now (the client has every byte).
  await releasedBeforeLapse(id, 0);
  assert.is((await q(b, otherKey)).status, 200);
  held.socket.destroy();
});

/** The account's slot row in service.db (the SQLite state both processes share). */
function slotRow(accountId: number): SlotRow | undefined {
  const db = openServiceDb(join(dataDir, 'service.db'));
  try {
    const row = db.prepare('SELECT holder, expires_at_ms FROM slots WHERE account_id = ? AND apiname = ?').get(accountId, API) as
      { holder: string; expires_at_ms: number } | undefined;
    return row && { holder: row.holder, expiresAtMs: row.expires_at_ms, nowMs: Date.now() };
  } finally {
    db.close();
  }
}

const fileBytes = (f: { symbol: string; tradedate: string }) => readFileSync(join(dataDir, `level2/date=${f.tradedate}/${f.symbol}.parquet`));

test('a small download pipelined behind four unread pages of another account holds the slot until it is read', async () => {
  const { id, key } = addAccount(dataDir, 'flagship');
  const otherKey = addKey(dataDir, id);
  // Four other accounts (one account's pipelined pages would meet its own slot): ~12 MB of
  // answers, more than an unread loopback connection absorbs (~4 MB here).
  const pages: ApiCall[] = Array.from({ length: 4 }, () => ({
    apiname: API,
    apikey: addAccount(dataDir, 'flagship').key,
    params: { ...BIG, page_size: 10000 },
  }));
  const download: ApiCall = { apiname: API, apikey: key, params: { ...SMALL, format: 'parquet' } };
  const small = fileBytes(SMALL);
  assert.ok(small.length < 64 * 1024, `the file fits the buffers (${small.length} bytes)`);
  const exchange = await unreadExchange(a.port, [...pages, download]);
  // Until the download's request is in, its slot row is not there yet.
  await whenHeld(() => slotRow(id));
  const probes = [() => q(b, key), () => q(a, otherKey), () => q(b, otherKey, { ...SMALL, format: 'parquet' })];
  const watch = await watchHeldSlot(
    () => slotRow(id),
    (i) => probes[i % probes.length]!(),
    LEASE_SECONDS * 1000 * 2.5,
  );
  assert.ok(watch.renewals >= 2, `the lease was renewed while held (${watch.renewals} renewals)`);
  const answers = await exchange.readAll();
  assert.equal(
    answers.map((r) => r.status),
    [200, 200, 200, 200, 200],
  );
  for (const r of answers.slice(0, 4)) assert.is((JSON.parse(r.body.toString()) as { data: { items: unknown[] } }).data.items.length, 10000);
  assert.ok(answers[4]!.body.equals(small), 'the download is the stored file, byte for byte');
  await releasedBeforeLapse(id, 0);
  assert.is((await q(b, otherKey)).status, 200);
  exchange.socket.destroy();
  console.log(`  held ${watch.statuses.length} requests at 503 over ${LEASE_SECONDS * 2.5} s, ${watch.renewals} renewals`);
});

test('a download larger than the socket buffers on a connection never read holds the slot until it is read', async () => {
  const { id, key } = addAccount(dataDir, 'flagship');
  const exchange = await unreadExchange(a.port, [{ apiname: API, apikey: key, params: { ...BIG, format: 'parquet' } }]);
  await whenHeld(() => slotRow(id));
  const watch = await watchHeldSlot(
    () => slotRow(id),
    (i) => q(i % 2 ? a : b, key),
    LEASE_SECONDS * 1000 * 2.5,
  );
  assert.ok(watch.renewals >= 2, `the lease was renewed while held (${watch.renewals} renewals)`);
  const [answer] = await exchange.readAll();
  assert.is(answer!.status, 200);
  assert.ok(answer!.body.equals(fileBytes(BIG)), 'the download is the stored file, byte for byte');
  await releasedBeforeLapse(id, 0);
  assert.is((await q(b, key)).status, 200);
  exchange.socket.destroy();
});

test('the lease is renewed while a download streams: held well past one lease', async () => {
  const { key } = addAccount(dataDir, 'flagship');
  const held = await pausedDownload(a, key, BIG);
  await new Promise((res) => setTimeout(res, LEASE_SECONDS * 1000 * 1.8));
  isBusy(await q(b, key));
  held.socket.destroy();
});

test('a client disconnecting mid-download releases the slot', async () => {
  const { id, key } = addAccount(dataDir, 'flagship');
  const held = await pausedDownload(a, key, BIG);
  isBusy(await q(b, key));
  held.socket.destroy();
  await releasedBeforeLapse(id);
  assert.is((await q(b, key)).status, 200);
});

test('a crashed holder blocks the account only until its lease lapses', async () => {
  const { key } = addAccount(dataDir, 'flagship');
  const held = await pausedDownload(a, key, BIG);
  isBusy(await q(b, key));
  await a.kill(); // SIGKILL: nothing is released
  held.socket.destroy();
  isBusy(await q(b, key));
  // Nothing releases it: it is free only once the lease lapses (within a few leases even on a
  // loaded machine; a slot never freed would time out here).
  await untilFree(b, key, LEASE_SECONDS * 1000 * 5);
  // The restarted server honours the same cursors (the key lives in the data directory).
  a = await startServer(dataDir, { env: { TICKVAULT_LEASE_SECONDS: String(LEASE_SECONDS), TICKVAULT_RATE_LIMIT: '1000' } });
  const page = await q(b, key, { ...BIG, page_size: 10 });
  const cursor = (page.json.data as { next_cursor: string }).next_cursor;
  assert.is((await q(a, key, { ...BIG, page_size: 10, cursor })).status, 200);
});

test.run();
