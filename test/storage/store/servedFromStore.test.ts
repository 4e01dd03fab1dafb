/**
 * Offloaded days served from a real S3 store (Swift s3api, started here): a server with
 * `--store` answers an offloaded day's level-2 pages, Parquet downloads, tick_history and
 * minute bars byte for byte as the same lake answered with every file local, reading ranges
 * through its block cache, whose disk stays under --store-cache-mb. A byte changed in the
 * bucket is a 503 `damaged` naming the file, never a wrong row; the store down is a 503
 * `store` with Retry-After for offloaded days while local days answer as ever.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { runCli } from '../../support/cli.js';
import { addAccount, httpRequest, postApi, REPLAY_NOW, startServer, type ServerHandle } from '../../support/server.js';
import { s3ClientFor, swiftForTests, type TestSwift } from '../../support/swift.js';
import { tempDir } from '../../support/tempDir.js';

const BUCKET = 'tvserve';
const OFF = '20250102';
const LOCAL = '20250103';
const NOW = '2025-01-06T16:30:00+08:00';

let swift: TestSwift | null = null;
let s3: S3Client;
let dataDir = '';
let key = '';

/** The requests compared, and their answers from the lake with every file local. */
const requests = [
  { apiname: 'level2_quote_history', params: { symbol: '600000.SH', tradedate: OFF, page_size: 1000 } },
  { apiname: 'level2_quote_history', params: { symbol: '000001.SZ', tradedate: OFF, page_size: 3 }, fields: 'close,time,bid_vol10,symbol' },
  { apiname: 'level2_quote_history', params: { symbol: '600000.SH', tradedate: OFF, format: 'parquet' } },
  { apiname: 'level2_trade_history', params: { symbol: '600000.SH', tradedate: OFF, page_size: 500 } },
  { apiname: 'tick_history', params: { symbol: '000001', tradedate: OFF } },
  { apiname: 'minute', params: { symbols: '600000.SH', tradedate: OFF, period: '5m' } },
  { apiname: 'daily', params: { symbols: '600000.SH', startdate: OFF, enddate: LOCAL } },
] as const;
const localAnswers: Buffer[] = [];

async function ask(
  server: ServerHandle,
  r: (typeof requests)[number],
): Promise<{ status: number; body: Buffer; text: string; headers: Record<string, unknown> }> {
  const res = await httpRequest(`${server.url}/api`, {
    body: JSON.stringify({ ...r, apikey: key }),
    headers: { 'content-type': 'application/json' },
  });
  return { status: res.status, body: res.body, text: res.text, headers: res.headers };
}

function store(extra: string[] = []) {
  return startServer(dataDir, { now: NOW, env: swift!.env, args: ['--store', `s3://${BUCKET}/lake`, '--json-threads', '2', ...extra] });
}

function dirBytes(dir: string): number {
  if (!existsSync(dir)) return 0;
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) n += e.isDirectory() ? dirBytes(join(dir, e.name)) : statSync(join(dir, e.name)).size;
  return n;
}

const test = suite('serving offloaded days from a real S3 store (Swift s3api)');

test.before(async () => {
  // uvu reports a failed hook only as tests not passed: say why.
  await prepare().catch((e: unknown) => {
    console.error(`before: ${(e as Error).stack ?? String(e)}`);
    throw e;
  });
});

async function prepare(): Promise<void> {
  swift = await swiftForTests('serving from the store');
  if (!swift) return;
  await swift.createBucket(BUCKET);
  s3 = s3ClientFor(swift);
  const dir = tempDir('tickvault-served-');
  const feed = join(dir, 'feed.jsonl');
  dataDir = join(dir, 'data');
  const env = { TICKVAULT_NOW: REPLAY_NOW };
  const gen = await runCli(['generate', '--out', feed, '--from', OFF, '--days', '2', '--stocks', '3', '--indexes', '1', '--ticks', '2'], { env });
  assert.is(gen.code, 0, gen.stderr);
  const rep = await runCli(['replay', feed, '--data-dir', dataDir], { env });
  assert.is(rep.code, 0, rep.stderr);
  key = addAccount(dataDir, 'flagship').key;
  // Every answer with every file local: what the offloaded day must answer, byte for byte.
  const local = await startServer(dataDir, { now: NOW });
  try {
    for (const r of requests) {
      const res = await ask(local, r);
      assert.is(res.status, 200, `${r.apiname}: ${res.text.slice(0, 200)}`);
      localAnswers.push(res.body);
    }
  } finally {
    await local.stop();
  }
  const up = await runCli(['upload', '--store', `s3://${BUCKET}/lake`, '--data-dir', dataDir], { env: { ...env, ...swift.env } });
  assert.is(up.code, 0, up.stderr);
  const off = await runCli(['offload', '--before', LOCAL, '--store', `s3://${BUCKET}/lake`, '--data-dir', dataDir], { env: { ...env, ...swift.env } });
  assert.is(off.code, 0, off.stderr);
  assert.not.ok(existsSync(join(dataDir, 'level2', `date=${OFF}`, '600000.SH.parquet')), 'offloaded: no local copy');
  assert.ok(existsSync(join(dataDir, 'level2', `date=${LOCAL}`, '600000.SH.parquet')), 'the later day stays local');
}

test.after(async () => {
  s3?.destroy();
  await swift?.stop();
});

test('every answer of an offloaded day is byte for byte the local one; the cache stays in its bound; warm answers fetch nothing', async () => {
  if (!swift) return;
  const server = await store(['--store-cache-mb', '1']);
  try {
    for (const [i, r] of requests.entries()) {
      const res = await ask(server, r);
      assert.is(res.status, 200, `${r.apiname}: ${res.text.slice(0, 300)}`);
      assert.ok(res.body.equals(localAnswers[i]), `${r.apiname} ${JSON.stringify(r.params)}: the same bytes as local`);
    }
    const metrics = (await httpRequest(`${server.url}/metrics`, { method: 'GET' })).text;
    const figure = (name: string) => Number(new RegExp(`^${name} (\\d+)`, 'm').exec(metrics)?.[1] ?? NaN);
    assert.ok(figure('tickvault_store_ranged_gets') > 0, 'ranged GETs were sent');
    assert.ok(figure('tickvault_store_blocks_fetched') > 0);
    assert.ok(figure('tickvault_store_cache_bytes') <= 1024 * 1024, `cache ${figure('tickvault_store_cache_bytes')} within 1 MiB`);
    assert.ok(dirBytes(join(dataDir, 'store-cache')) <= 1024 * 1024, 'the cache folder within 1 MiB');
    // Again: pages come from the server's memory; the first request's page again needs no GET.
    const gets = figure('tickvault_store_ranged_gets');
    const again = await ask(server, requests[0]);
    assert.ok(again.body.equals(localAnswers[0]));
    const after = (await httpRequest(`${server.url}/metrics`, { method: 'GET' })).text;
    assert.is(Number(/^tickvault_store_ranged_gets (\d+)/m.exec(after)?.[1]), gets, 'a warm page sends no GET');
  } finally {
    await server.stop();
  }
});

test('a byte changed in the bucket is a 503 damaged naming the file, never other rows', async () => {
  if (!swift) return;
  // A stock of the day no other test here asks for: its first touch is after the change.
  const db = new Database(join(dataDir, 'catalog.db'), { readonly: true });
  const victim = db
    .prepare("SELECT symbol FROM files WHERE dataset = 'level2' AND tradedate = ? AND symbol NOT IN ('600000.SH', '000001.SZ') ORDER BY symbol")
    .pluck()
    .get(OFF) as string;
  db.close();
  const path = `level2/date=${OFF}/${victim}.parquet`;
  const got = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: `lake/${path}` }));
  const bytes = Buffer.from(await got.Body!.transformToByteArray());
  const meta = got.Metadata;
  // In the footer's block, which every read of the file takes (a byte elsewhere fails only the
  // reads whose blocks hold it: the others' rows are still the catalog's).
  bytes[bytes.length - 200] ^= 0x01;
  await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `lake/${path}`, Body: bytes, Metadata: meta }));
  const server = await store();
  try {
    // Rows read from the Parquet file's columns, and the file itself (a full page would come
    // from its row text, made from the catalog's bytes and checked on its own).
    for (const [params, fields] of [
      [{ symbol: victim, tradedate: OFF, page_size: 1000 }, 'time,close,volume'],
      [{ symbol: victim, tradedate: OFF, format: 'parquet' }, undefined],
    ] as const) {
      const res = await postApi(server, { apiname: 'level2_quote_history', apikey: key, params, ...(fields ? { fields } : {}) });
      assert.is(res.status, 503, res.text.slice(0, 300));
      assert.is(res.headers['x-tickvault-reason'], 'damaged');
      assert.match(res.json.message, new RegExp(`stored file ${path.replace(/\./g, '\\.')} is damaged: the store's copy differs from the catalog's`));
    }
    // Another symbol of the same day is sound.
    const other = await ask(server, requests[0]);
    assert.ok(other.body.equals(localAnswers[0]));
  } finally {
    await server.stop();
  }
});

test('the store down: offloaded days answer 503 store with Retry-After, local days 200; back up, answered again', async () => {
  if (!swift) return;
  const server = await store();
  try {
    await swift.stopProxy();
    try {
      const res = await ask(server, requests[3]);
      assert.is(res.status, 503, res.text.slice(0, 300));
      assert.is(res.headers['x-tickvault-reason'], 'store');
      assert.is(res.headers['retry-after'], '30');
      assert.match(res.text, /kept in the store, which cannot be reached just now .*ECONNREFUSED.*days on this server's disk are served as usual/);
      const local = await postApi(server, { apiname: 'level2_quote_history', apikey: key, params: { symbol: '600000.SH', tradedate: LOCAL, page_size: 10 } });
      assert.is(local.status, 200, local.text.slice(0, 200));
    } finally {
      await swift.startProxy();
    }
    const back = await ask(server, requests[3]);
    assert.is(back.status, 200, back.text.slice(0, 300));
    assert.ok(back.body.equals(localAnswers[3]));
  } finally {
    await server.stop();
  }
});

test.run();
