import { availableParallelism } from 'node:os';
import { createHash } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { CatalogReader, openCatalog } from '../../../storage/catalog.js';
import { join } from 'node:path';
import { ConfigError } from '../../../shared/config.js';
import { loadServeConfig } from '../../../serve/http/serveConfig.js';
import { runCli } from '../../support/cli.js';
import { addAccount, postApi, preparedData, sealSyntheticFile, startServer, startServers } from '../../support/server.js';
import { tempDir } from '../../support/tempDir.js';

const API = 'level2_quote_history';

const server = suite('serve: limits, faults and the clock');

/** Wall-clock seconds (the rate limiter's windows) touched between two instants. */
const secondsSpanned = (fromMs: number, toMs: number): number => Math.floor(toMs / 1000) - Math.floor(fromMs / 1000) + 1;

server('per-second limit per account: beyond it 429 with Retry-After 1, other accounts unaffected', async () => {
  const { dataDir } = await preparedData();
  const s = await startServer(dataDir, { env: { TICKVAULT_RATE_LIMIT: '3' } });
  try {
    const { key } = addAccount(dataDir, 'flagship');
    const other = addAccount(dataDir, 'flagship').key;
    // Invalid params: every request reaches the limiter (which comes before validation) and
    // none takes the account's request slot.
    const t0 = Date.now();
    const burst = await Promise.all(Array.from({ length: 12 }, () => postApi(s, { apiname: API, apikey: key, params: {} })));
    const windows = secondsSpanned(t0, Date.now());
    const limited = burst.filter((r) => r.status === 429);
    const passed = burst.filter((r) => r.status === 400);
    assert.is(limited.length + passed.length, 12);
    // Windows are wall-clock seconds: at most 3 pass in each second the burst touched (on a
    // loaded machine a burst can take more than one).
    assert.ok(passed.length >= 3 && passed.length <= 3 * windows, `${passed.length} passed in ${windows} one-second windows`);
    assert.ok(limited.length > 0 || windows >= 4, 'the limit refused part of the burst');
    for (const r of limited) {
      assert.equal(r.json, { code: 429, message: 'more than 3 requests per second for this account', data: null });
      assert.is(r.headers['retry-after'], '1');
    }
    assert.is((await postApi(s, { apiname: API, apikey: other, params: {} })).status, 400);
  } finally {
    await s.stop();
  }
});

server('the rate limit is shared by two server processes', async () => {
  const { dataDir } = await preparedData();
  const env = { TICKVAULT_RATE_LIMIT: '4' };
  const [s1, s2] = await startServers([
    { dataDir, opts: { env } },
    { dataDir, opts: { env } },
  ]);
  try {
    const { key } = addAccount(dataDir, 'flagship');
    const t0 = Date.now();
    const burst = await Promise.all(Array.from({ length: 16 }, (_, i) => postApi(i % 2 ? s1 : s2, { apiname: API, apikey: key, params: {} })));
    const windows = secondsSpanned(t0, Date.now());
    const passed = burst.filter((r) => r.status === 400).length;
    // Two processes with separate counters would let up to 2 × 4 through in every second.
    assert.ok(passed <= 4 * windows, `${passed} passed across both processes in ${windows} one-second windows (limit 4/s)`);
    assert.ok(burst.some((r) => r.status === 429) || windows >= 4);
  } finally {
    await Promise.all([s1.stop(), s2.stop()]);
  }
});

server('tradedate omitted: the latest trading day by the calendar, no fallback when it is not stored', async () => {
  const { dataDir } = await preparedData();
  // 2025-01-07 10:00 Beijing: the latest trading day is 20250107, not stored (data ends 0106).
  const s = await startServer(dataDir, { now: '2025-01-07T10:00:00+08:00' });
  // 2025-01-05T16:30Z is Monday 00:30 in Beijing but still Sunday in UTC: the latest trading
  // day must already be Monday 20250106 (a UTC calendar would say Friday 20250103).
  const monday = await startServer(dataDir, { now: '2025-01-05T16:30:00Z' });
  try {
    const { key } = addAccount(dataDir, 'flagship');
    const r = await postApi(s, { apiname: API, apikey: key, params: { symbol: '600000' } });
    assert.is(r.status, 200);
    assert.is(r.json.message, 'no data; 600000.SH is not stored for 20250107');
    assert.is((r.json.data as { tradedate: string }).tradedate, '20250107');
    const m = await postApi(monday, { apiname: API, apikey: key, params: { symbol: '600000', page_size: 1 } });
    assert.is((m.json.data as { tradedate: string }).tradedate, '20250106');
    // A cursor keeps its date even when "latest" has moved on.
    const s0106 = await startServer(dataDir);
    try {
      const first = await postApi(s0106, { apiname: API, apikey: key, params: { symbol: '600000', page_size: 10 } });
      const cursor = (first.json.data as { next_cursor: string }).next_cursor;
      const next = await postApi(s, { apiname: API, apikey: key, params: { symbol: '600000', page_size: 10, cursor } });
      assert.is((next.json.data as { tradedate: string }).tradedate, '20250106');
      assert.is((next.json.data as { items: unknown[] }).items.length, 10);
    } finally {
      await s0106.stop();
    }
  } finally {
    await Promise.all([s.stop(), monday.stop()]);
  }
});

server('a clock past the calendar known range: answers carry a Warning, no-data says so, far dates are a 400', async () => {
  const { dataDir } = await preparedData();
  // Tuesday 5 January 2027 in Beijing: the shipped calendar knows closures through 2026 only.
  const s = await startServer(dataDir, { now: '2027-01-05T10:00:00+08:00' });
  const inRange = await startServer(dataDir);
  try {
    const { key } = addAccount(dataDir, 'flagship');
    const warning =
      /^299 tickvault "the latest trading day 20270105 is past the trading calendar's known range \(through 20261231\); closures after it are unknown"$/;
    const r = await postApi(s, { apiname: API, apikey: key, params: { symbol: '600000' } });
    assert.is(r.status, 200);
    assert.match(String(r.headers.warning), warning);
    assert.is(
      r.json.message,
      "no data; 600000.SH is not stored for 20270105 (the trading calendar's known range ends 20261231; closures after it are unknown)",
    );
    const tick = await postApi(s, { apiname: 'tick_history', apikey: key, params: { symbol: '000300', tradedate: '20270106' } });
    assert.is(tick.status, 400);
    assert.match(String(tick.headers.warning), warning);
    assert.match(
      tick.json.message,
      /^params\.tradedate 20270106 is outside 20150101-20270105 \(the trading calendar's known range 20150101-20261231, then weekdays up to the latest trading day\)$/,
    );
    assert.match(s.logs(), /"msg":"the latest trading day 20270105 is past the trading calendar's known range/);
    // Inside the known range no answer carries the warning.
    const plain = await postApi(inRange, { apiname: API, apikey: key, params: { symbol: '600000', page_size: 1 } });
    assert.is(plain.status, 200);
    assert.is(plain.headers.warning, undefined);
  } finally {
    await Promise.all([s.stop(), inRange.stop()]);
  }
});

server(
  'a stored file that does not decode though its bytes are the catalog\'s is a 503 "damaged", logged once naming the file; the server keeps serving',
  async () => {
    const dataDir = tempDir();
    await sealSyntheticFile(dataDir, '600998.SH', '20250106', 3000);
    const rel = join('level2', 'date=20250106', '600998.SH.parquet');
    truncateSync(join(dataDir, rel), 500);
    // The catalog vouches for these bytes (as if sealed so): the SHA-256 check passes, the footer does not parse.
    const bytes = readFileSync(join(dataDir, rel));
    const db = openCatalog(join(dataDir, 'catalog.db'));
    db.prepare('UPDATE files SET bytes = ?, sha256 = ? WHERE path = ?').run(bytes.length, createHash('sha256').update(bytes).digest('hex'), rel);
    db.close();
    const s = await startServer(dataDir);
    try {
      const { key } = addAccount(dataDir, 'flagship');
      for (let i = 0; i < 3; i++) {
        const r = await postApi(s, { apiname: API, apikey: key, params: { symbol: '600998.SH' } });
        assert.is(r.status, 503, r.text);
        assert.is(r.headers['retry-after'], '60');
        assert.match(
          r.json.message,
          /^stored file level2\/date=20250106\/600998\.SH\.parquet is damaged: .+; its rows are not served until it is repaired on this site/,
        );
        assert.not.match(r.text, /\bat |Error/);
      }
      // Logged once, though asked three times (the slot was released with each refusal).
      const lines = s
        .logs()
        .split('\n')
        .filter((l) => l.includes('stored file damaged'));
      assert.is(lines.length, 1, s.logs());
      assert.match(lines[0], /"file":"level2\/date=20250106\/600998\.SH\.parquet"/);
      assert.is((await postApi(s, { apiname: API, apikey: key, params: { symbol: '600000' } })).status, 200);
    } finally {
      await s.stop();
    }
  },
);

server('a damaged boundary part: the same answer from the files, and an error line naming the part', async () => {
  const { dataDir: original } = await preparedData({ days: 1, stocks: 6, indexes: 9, seed: 'boundary-parts' });
  const dataDir = join(tempDir('tickvault-damaged-part-'), 'data');
  cpSync(original, dataDir, { recursive: true });
  const [part] = new CatalogReader(openCatalog(join(dataDir, 'catalog.db'), true)).boundaryParts('index', '20250102');
  const bytes = readFileSync(join(dataDir, part.path));
  for (let i = 4; i < bytes.length - 40; i++) bytes[i] ^= 0x5a;
  writeFileSync(join(dataDir, part.path), bytes);
  const [spoiled, whole] = await startServers([{ dataDir }, { dataDir: original }]);
  try {
    const body = (key: string) => ({ apiname: 'tick_history', apikey: key, params: { tradedate: '20250102', trademin: '10:01', side: 'before' } });
    const got = await postApi(spoiled, body(addAccount(dataDir, 'flagship').key));
    const want = await postApi(whole, body(addAccount(original, 'flagship').key));
    assert.is(got.status, 200, got.text.slice(0, 200));
    const rows = (want.json.data as { items: unknown[] }).items.length;
    assert.ok(rows >= 9, `${rows} rows`);
    assert.equal(got.json, want.json);
    const line =
      spoiled
        .logs()
        .split('\n')
        .find((l) => l.includes('boundary part damaged')) ?? '';
    assert.match(line, new RegExp(`"file":"${part.path.replace(/[.]/g, '\\.')}"`), spoiled.logs());
    assert.match(line, /"type":"DamagedFileError"/);
  } finally {
    await Promise.all([spoiled.stop(), whole.stop()]);
  }
});

server('serve rejects bad options with exit 2 and a one-line reason', async () => {
  const r = await runCli(['serve', '--port', 'eighty', '--data-dir', tempDir()]);
  assert.is(r.code, 2);
  assert.match(r.stderr, /--port must be a port number/);
  const env = await runCli(['serve', '--data-dir', tempDir()], { env: { TICKVAULT_RATE_LIMIT: '0' } });
  assert.is(env.code, 2);
  assert.match(env.stderr, /TICKVAULT_RATE_LIMIT must be a positive integer/);
});

const config = suite('serve configuration');

config('flags over TICKVAULT_* environment over defaults', () => {
  const threads = Math.min(4, availableParallelism());
  assert.equal(loadServeConfig({}, {}), {
    port: 8080,
    host: '127.0.0.1',
    rateLimitPerSec: 20,
    leaseMs: 30_000,
    cacheBytes: 768 * 1024 * 1024,
    jsonThreads: threads,
    store: null,
    storeCacheBytes: 1024 * 1024 * 1024,
  });
  const env = {
    TICKVAULT_PORT: '9000',
    TICKVAULT_HOST: '0.0.0.0',
    TICKVAULT_RATE_LIMIT: '50',
    TICKVAULT_LEASE_SECONDS: '5',
    TICKVAULT_CACHE_MB: '64',
    TICKVAULT_JSON_THREADS: '0',
    TICKVAULT_STORE: 's3://md-lake/tick/vault/',
    TICKVAULT_STORE_CACHE_MB: '16',
    AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
    AWS_ACCESS_KEY_ID: 'k',
    AWS_SECRET_ACCESS_KEY: 's',
  };
  assert.equal(loadServeConfig({}, env), {
    port: 9000,
    host: '0.0.0.0',
    rateLimitPerSec: 50,
    leaseMs: 5000,
    cacheBytes: 64 * 1024 * 1024,
    jsonThreads: 0,
    store: {
      bucket: 'md-lake',
      prefix: 'tick/vault/',
      url: 's3://md-lake/tick/vault',
      endpoint: 'http://127.0.0.1:9',
      region: 'us-east-1',
      credentials: { accessKeyId: 'k', secretAccessKey: 's' },
    },
    storeCacheBytes: 16 * 1024 * 1024,
  });
  assert.is(loadServeConfig({ store: 's3://other' }, env).store?.bucket, 'other', 'the flag over the environment');
  assert.throws(
    () => loadServeConfig({ store: 's3://x' }, {}),
    (e: unknown) => e instanceof ConfigError && /"x" is not a bucket name/.test(e.message),
  );
  assert.throws(
    () => loadServeConfig({ store: 'http://bucket/x' }, {}),
    (e: unknown) => e instanceof ConfigError && /--store must be an s3:\/\/BUCKET\/PREFIX URL/.test(e.message),
  );
  assert.throws(
    () => loadServeConfig({ store: 's3://bucket' }, { AWS_ACCESS_KEY_ID: 'k' }),
    (e: unknown) => e instanceof ConfigError && /must be set together/.test(e.message),
  );
  assert.is(loadServeConfig({ 'json-threads': '3' }, env).jsonThreads, 3);
  assert.throws(
    () => loadServeConfig({ 'json-threads': '-1' }, {}),
    (e: unknown) => e instanceof ConfigError && /whole number/.test(e.message),
  );
  assert.is(loadServeConfig({ port: '9100', 'rate-limit': '7' }, env).port, 9100);
  assert.is(loadServeConfig({ port: '9100', 'rate-limit': '7' }, env).rateLimitPerSec, 7);
  assert.throws(
    () => loadServeConfig({ 'lease-seconds': '-1' }, {}),
    (e: unknown) => e instanceof ConfigError,
  );
  assert.throws(
    () => loadServeConfig({}, { TICKVAULT_CACHE_MB: 'lots' }),
    (e: unknown) => e instanceof ConfigError,
  );
});

server.run();
config.run();
