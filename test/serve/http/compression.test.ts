/**
 * Compressed answers: the coding chosen from Accept-Encoding, and a started `tickvault serve`
 * answering every interface, /openapi.json and the console's assets in gzip, brotli or zstd,
 * each decoded by real clients' decoders (Node's fetch, Python's httpx and requests) to the
 * very bytes of the uncompressed answer; never a Parquet download, never a small answer.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chooseCoding, MIN_BYTES } from '../../../serve/http/compression.js';
import { zstdDecompress } from '../../../storage/parquet/zstd.js';
import { addAccount, httpRequest, preparedData, startServer, type ServerHandle } from '../../support/server.js';
import { tempDir } from '../../support/tempDir.js';

const t = suite('compression');

t(
  'the coding: highest q among ours, ties to zstd, then br, then gzip (or gzip first when its bytes are stored); * and q=0 understood; none is identity',
  () => {
    assert.is(chooseCoding(undefined), 'identity');
    assert.is(chooseCoding(''), 'identity');
    assert.is(chooseCoding('identity'), 'identity');
    assert.is(chooseCoding('gzip, deflate'), 'gzip'); // requests and httpx without brotli
    assert.is(chooseCoding('gzip, deflate, br'), 'br'); // with brotli
    assert.is(chooseCoding('gzip, deflate, br, zstd'), 'zstd'); // Chromium
    assert.is(chooseCoding('br;q=0.5, gzip;q=0.9'), 'gzip');
    assert.is(chooseCoding('zstd;q=0, br;q=0, gzip'), 'gzip');
    assert.is(chooseCoding('gzip;q=0'), 'identity');
    assert.is(chooseCoding('*'), 'zstd');
    assert.is(chooseCoding('*;q=0.1, gzip'), 'gzip');
    assert.is(chooseCoding('GZIP ; Q=1'), 'gzip');
    assert.is(chooseCoding('deflate, compress'), 'identity');
    const storedGzip = ['gzip', 'zstd', 'br'] as const;
    assert.is(chooseCoding('gzip, deflate, br, zstd', storedGzip), 'gzip');
    assert.is(chooseCoding('br, gzip;q=0.9', storedGzip), 'br');
    assert.is(chooseCoding('zstd, br', storedGzip), 'zstd');
  },
);

const DATA = { days: 2, stocks: 2, indexes: 2, ticks: 0.1 } as const;
let server: ServerHandle;
let key = '';
let dataDir = '';

t.before(async () => {
  dataDir = (await preparedData(DATA)).dataDir;
  key = addAccount(dataDir, 'flagship').key;
  // Many requests in a row from one account: a per-second limit above them.
  server = await startServer(dataDir, { args: ['--rate-limit', '1000'] });
});
t.after(async () => {
  await server?.stop();
});

/**
 * Apiname, params, fields, and whether the page holds a row group whole from row text (then
 * gzip's bytes are stored, and gzip wins a tie): full days, a time window starting and ending
 * inside row groups, a page past a row group's end; a field subset, trades, orders and
 * tick_history never.
 */
const BODIES: readonly [string, Record<string, unknown>, string | undefined, boolean][] = [
  ['level2_quote_history', { symbol: '600000.SH', tradedate: '20250103' }, undefined, true],
  ['level2_quote_history', { symbol: '600000.SH', tradedate: '20250103', start_time: '09:40:01', end_time: '14:30:00' }, undefined, true],
  ['level2_quote_history', { symbol: '600000.SH', tradedate: '20250103' }, 'time,close,volume,bid1', false],
  // Trades and orders have no row text (level 2 only, issue 52): compressed at request time.
  ['level2_trade_history', { symbol: '600000.SH', tradedate: '20250103', page_size: 5000 }, undefined, false],
  ['level2_order_history', { symbol: '000001.SZ', tradedate: '20250102' }, undefined, false],
  ['tick_history', { symbol: '000300', tradedate: '20250103' }, undefined, false],
  ['tick_history', { symbols: '000001,000300', startdate: '20250102', enddate: '20250103', limit: 6000 }, undefined, false],
  ['tick_history', { asset: 'stock', symbols: '600000', tradedate: '20250103', start_time: '10:00', end_time: '10:10' }, 'symbol,time,close,vol', false],
];

const bodyOf = (apiname: string, params: Record<string, unknown>, fields?: string) =>
  JSON.stringify({ apiname, apikey: key, params, ...(fields ? { fields } : {}) });

async function raw(path: string, acceptEncoding: string | null, body?: string) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (acceptEncoding !== null) headers['accept-encoding'] = acceptEncoding;
  return httpRequest(`${server.url}${path}`, { method: body === undefined ? 'GET' : 'POST', headers, body });
}

async function decode(coding: string | undefined, bytes: Buffer): Promise<Buffer> {
  if (coding === undefined) return bytes;
  if (coding === 'gzip') return gunzipSync(bytes);
  if (coding === 'br') return brotliDecompressSync(bytes);
  if (coding === 'zstd') return zstdDecompress(bytes);
  throw new Error(`unexpected coding ${coding}`);
}

/** Each Accept-Encoding asked, and the coding expected for a page with stored gzip bytes and for any other body. */
const ASKED: readonly [string, string | undefined, string | undefined][] = [
  ['gzip, deflate', 'gzip', 'gzip'],
  ['gzip, deflate, br', 'gzip', 'br'],
  ['gzip, deflate, br, zstd', 'gzip', 'zstd'],
  ['br', 'br', 'br'],
  ['zstd, gzip;q=0.5', 'zstd', 'zstd'],
  ['identity', undefined, undefined],
];

/** Every coding of one body: decoded, the uncompressed answer's bytes. */
async function checkCodings(apiname: string, params: Record<string, unknown>, body: string, stored: boolean): Promise<void> {
  const plain = await raw('/api', null, body);
  assert.is(plain.status, 200, plain.text.slice(0, 300));
  assert.is(plain.headers['content-encoding'], undefined, 'no Accept-Encoding: identity');
  assert.match(String(plain.headers.vary), /Accept-Encoding/i);
  assert.ok(plain.body.length > MIN_BYTES, `${apiname}: a body worth compressing (${plain.body.length} bytes)`);
  for (const [accept, ifStored, otherwise] of ASKED) {
    const coding = stored ? ifStored : otherwise;
    const r = await raw('/api', accept, body);
    assert.is(r.status, 200, r.text.slice(0, 200));
    assert.is(r.headers['content-encoding'], coding, `${apiname} ${JSON.stringify(params)} ${accept}`);
    assert.match(String(r.headers.vary), /Accept-Encoding/i);
    assert.is(Number(r.headers['content-length']), r.body.length);
    const decoded = await decode(coding, r.body);
    assert.ok(decoded.equals(plain.body), `${apiname} ${JSON.stringify(params)} in ${coding ?? 'identity'}: decoded bytes differ`);
    if (coding !== undefined) assert.ok(r.body.length * 3 < plain.body.length, `${apiname} ${coding}: ${r.body.length} of ${plain.body.length} bytes`);
  }
}

t('every interface, every coding: the decoded bytes are the uncompressed answer, with Vary; smaller on the wire', async () => {
  for (const [apiname, params, fields, stored] of BODIES) {
    const body = bodyOf(apiname, params, fields);
    await checkCodings(apiname, params, body, stored);
    const plain = await raw('/api', null, body);
    // Node's fetch asks for and decodes gzip, deflate and br by itself.
    const fetched = await fetch(`${server.url}/api`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    assert.ok(['br', 'gzip'].includes(fetched.headers.get('content-encoding') ?? ''), String(fetched.headers.get('content-encoding')));
    assert.ok(Buffer.from(await fetched.arrayBuffer()).equals(plain.body), `${apiname}: fetch decoded different bytes`);
  }
});

t('cursor pages that start and end inside row groups: every coding decodes to the uncompressed page', async () => {
  // 2,000-row pages of a 1,200-row-group file: the second starts at row 2,000 (inside group 1),
  // holds group 2 whole and ends inside group 3.
  const first = await raw('/api', null, bodyOf('level2_quote_history', { symbol: '600000.SH', tradedate: '20250103', page_size: 2000 }));
  const cursor = (JSON.parse(first.text) as { data: { next_cursor: string } }).data.next_cursor;
  assert.type(cursor, 'string');
  const params = { symbol: '600000.SH', tradedate: '20250103', page_size: 2000, cursor };
  await checkCodings('level2_quote_history', params, bodyOf('level2_quote_history', params), true);
});

t('/openapi.json and the console assets are compressed; a Parquet download and a small answer never are', async () => {
  for (const path of ['/openapi.json', '/console', '/console/console.js', '/console/console.css', '/console/vendor/lightweight-charts.js']) {
    const plain = await raw(path, null);
    assert.is(plain.status, 200, path);
    assert.ok(plain.body.length > MIN_BYTES, `${path}: ${plain.body.length} bytes`);
    const r = await raw(path, 'gzip');
    assert.is(r.headers['content-encoding'], 'gzip', path);
    assert.ok(gunzipSync(r.body).equals(plain.body), path);
  }
  const parquet = await raw(
    '/api',
    'gzip, deflate, br, zstd',
    bodyOf('level2_quote_history', { symbol: '600000.SH', tradedate: '20250103', format: 'parquet' }),
  );
  assert.is(parquet.status, 200);
  assert.is(parquet.headers['content-encoding'], undefined);
  assert.is(parquet.headers['content-type'], 'application/vnd.apache.parquet');
  const small = await raw('/api', 'gzip', bodyOf('level2_quote_history', { symbol: '600000.SH', tradedate: '20250103', page_size: 1 }, 'time'));
  assert.is(small.status, 200);
  assert.ok(small.body.length < MIN_BYTES);
  assert.is(small.headers['content-encoding'], undefined, 'a page of one row goes as it is');
  const error = await raw('/api', 'gzip', bodyOf('level2_quote_history', { symbol: 'nope' }));
  assert.is(error.status, 400);
  assert.is(error.headers['content-encoding'], undefined);
});

/** Python (Debian's, with httpx and requests) fetching with each library's default headers. */
const PYTHON = '/usr/bin/python3';
t('Python httpx and requests, default headers: their decoded bytes equal the uncompressed answer', async () => {
  const probe = spawnSync(PYTHON, ['-c', 'import httpx, requests'], { encoding: 'utf8' });
  if (probe.status !== 0) {
    if (process.env.CI === 'true') assert.unreachable(`python3 with httpx and requests is required under CI: ${probe.stderr}`);
    console.log(`  skipped: ${PYTHON} with httpx and requests not installed (apt-get install python3-httpx python3-requests)`);
    return;
  }
  const script = join(tempDir(), 'fetch.py');
  writeFileSync(
    script,
    [
      'import hashlib, json, sys, httpx, requests',
      'url, body = sys.argv[1], sys.argv[2]',
      'h = httpx.post(url, content=body, headers={"content-type": "application/json"})',
      'r = requests.post(url, data=body, headers={"content-type": "application/json"})',
      'print(json.dumps({"httpx": [h.headers.get("content-encoding"), hashlib.sha256(h.content).hexdigest()],',
      '                  "requests": [r.headers.get("content-encoding"), hashlib.sha256(r.content).hexdigest()]}))',
    ].join('\n'),
  );
  for (const [apiname, params, fields] of BODIES) {
    const body = bodyOf(apiname, params, fields);
    const plain = await raw('/api', null, body);
    const want = createHash('sha256').update(plain.body).digest('hex');
    const out = spawnSync(PYTHON, [script, `${server.url}/api`, body], { encoding: 'utf8' });
    assert.is(out.status, 0, out.stderr);
    const got = JSON.parse(out.stdout) as Record<'httpx' | 'requests', [string | null, string]>;
    for (const client of ['httpx', 'requests'] as const) {
      assert.ok(got[client][0] === 'gzip' || got[client][0] === 'br', `${client} ${apiname}: answered in ${got[client][0]}: ${out.stdout}`);
      assert.is(got[client][1], want, `${client} ${apiname} ${JSON.stringify(params)}: decoded bytes differ`);
    }
  }
  assert.ok(existsSync(script));
});

t.run();
