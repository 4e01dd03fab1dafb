/**
 * One JSON log line per request from a started `tickvault serve` at log level info: apiname,
 * account id, code, rows, bytes, ms — and never an API key, valid or not.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { countItems } from '../../../serve/http/requestLog.js';
import { readCatalog } from '../../support/catalog.js';
import { addAccount, httpRequest, postApi, preparedData, startServer, type ServerHandle } from '../../support/server.js';

const t = suite('request log');

/** Two trading days (20250102, 20250103), stocks 600000.SH and 000001.SZ, indexes 000001 and 000300: quick to replay. */
const SMALL_DATA = { days: 2, stocks: 2, indexes: 2 } as const;

interface LogLine {
  msg: string;
  ns?: string;
  method?: string;
  path?: string;
  apiname?: string | null;
  account?: number | null;
  code?: number;
  rows?: number | null;
  bytes?: number | null;
  ms?: number;
  aborted?: boolean;
  error?: string;
  reason?: string;
}

function requestLines(stderr: string): LogLine[] {
  return stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine)
    .filter((l) => l.msg === 'request');
}

t('countItems counts rows of real envelopes without parsing them', async () => {
  assert.is(countItems('{"code":200,"message":"no data","data":{"fields":["a","b"],"items":[],"tradedate":"20250102"}}'), 0);
  assert.is(countItems('{"data":{"fields":["time"],"items":[["09:30:00"]],"has_more":false}}'), 1);
  assert.is(countItems('{"data":{"fields":["a","b"],"items":[[1,null],["x",2.5],[3,4]],"limit":6000,"offset":0}}'), 3);
  assert.is(countItems('{"code":400,"message":"bad","data":null}'), null);
  assert.is(countItems(Buffer.from('{"data":{"fields":["a"],"items":[[1],[2]],"has_more":true}}')), 2, 'bytes as well as text');
  assert.is(countItems(Buffer.from('{"data":{"fields":["a"],"items":[]}}')), 0);
});

t('API requests are logged once each with account, code, rows, bytes and ms; keys never appear', async () => {
  const { dataDir } = await preparedData(SMALL_DATA);
  const flagship = addAccount(dataDir, 'flagship');
  const free = addAccount(dataDir, 'free');
  const bogusKey = 'tv_this-key-does-not-exist-0123456789';
  const server: ServerHandle = await startServer(dataDir, { env: { TICKVAULT_LOG_LEVEL: 'info' } });
  const bodies: { text: string; rows: number }[] = [];
  try {
    const page = await postApi(server, {
      apiname: 'level2_quote_history',
      apikey: flagship.key,
      params: { symbol: '600000.SH', tradedate: '20250102', page_size: 7 },
    });
    assert.is(page.status, 200);
    const file = await httpRequest(`${server.url}/api`, {
      body: JSON.stringify({
        apiname: 'level2_quote_history',
        apikey: flagship.key,
        params: { symbol: '600000.SH', tradedate: '20250102', format: 'parquet' },
      }),
      headers: { 'content-type': 'application/json' },
    });
    assert.is(file.status, 200);
    const boundary = await postApi(server, {
      apiname: 'tick_history',
      apikey: flagship.key,
      params: { tradedate: '20250102', trademin: '1000', side: 'after' },
    });
    const enhanced = await postApi(server, {
      apiname: 'tick_history',
      apikey: flagship.key,
      params: { symbols: '000001,000300', tradedate: '20250102', limit: 50 },
    });
    for (const r of [page, boundary, enhanced]) bodies.push({ text: r.text, rows: (r.json.data as { items: unknown[] }).items.length });
    assert.is((await postApi(server, { apiname: 'tick_history', apikey: bogusKey, params: {} })).status, 401);
    assert.is((await postApi(server, { apiname: 'tick_history', apikey: free.key, params: { symbol: '000001' } })).status, 403);
    assert.is((await postApi(server, { apiname: 'level2_quote_history', apikey: flagship.key, params: { symbol: 'x' } })).status, 400);
    await httpRequest(`${server.url}/healthz`, { method: 'GET' });
  } finally {
    await server.stop();
  }
  const logs = server.logs();
  assert.not.ok(logs.includes(flagship.key), 'the valid key is never logged');
  assert.not.ok(logs.includes(free.key));
  assert.not.ok(logs.includes(bogusKey), 'nor an unknown one');

  const lines = requestLines(logs);
  assert.is(lines.length, 7, 'one line per API request; /healthz logs at debug only');
  for (const l of lines) {
    assert.is(l.method, 'POST');
    assert.is(l.path, '/api');
    assert.ok(typeof l.ms === 'number' && l.ms >= 0);
    assert.ok(typeof l.bytes === 'number' && l.bytes > 0);
    assert.is(l.aborted, undefined, 'aborted only appears when true');
  }
  const [page, file, boundary, enhanced, unauth, forbidden, bad] = lines;
  assert.equal([page.apiname, page.account, page.code, page.rows], ['level2_quote_history', flagship.id, 200, 7]);
  const stored = statSync(join(dataDir, 'level2', 'date=20250102', '600000.SH.parquet')).size;
  const fileRows = readCatalog(dataDir, (c) => c.file('level2', '20250102', '600000.SH')?.rows, undefined);
  assert.equal([file.code, file.rows, file.bytes], [200, fileRows, stored], 'a Parquet download logs the rows of the file');
  assert.equal([boundary.apiname, boundary.rows], ['tick_history', bodies[1].rows]);
  assert.equal([enhanced.rows, enhanced.account], [bodies[2].rows, flagship.id]);
  assert.equal([unauth.code, unauth.account, unauth.rows, unauth.reason], [401, null, null, 'key']);
  assert.match(String(unauth.error), /apikey/);
  assert.equal([forbidden.code, forbidden.account, forbidden.reason], [403, free.id, 'plan']);
  assert.equal([bad.code, bad.apiname, bad.reason], [400, 'level2_quote_history', 'param']);
  assert.is(page.reason, undefined, 'a 200 carries no reason');
  assert.match(String(bad.error), /params\.symbol/);

  // The row count read off the text agrees with parsing it.
  for (const b of bodies) assert.is(countItems(b.text), b.rows);
});

t('a compressed answer is logged with the rows of its text and the bytes sent', async () => {
  const { dataDir } = await preparedData(SMALL_DATA);
  const flagship = addAccount(dataDir, 'flagship');
  const server: ServerHandle = await startServer(dataDir, { env: { TICKVAULT_LOG_LEVEL: 'info' } });
  const body = JSON.stringify({ apiname: 'tick_history', apikey: flagship.key, params: { symbols: '000001,000300', tradedate: '20250102', limit: 80 } });
  let coded: Awaited<ReturnType<typeof httpRequest>>;
  let rows: number;
  let plainBytes: number;
  try {
    const plain = await postApi(server, JSON.parse(body) as never);
    rows = (plain.json.data as { items: unknown[] }).items.length;
    plainBytes = Buffer.byteLength(plain.text);
    assert.ok(plainBytes > 1024, 'large enough to be compressed');
    coded = await httpRequest(`${server.url}/api`, { body, headers: { 'content-type': 'application/json', 'accept-encoding': 'br' } });
    assert.is(coded.status, 200);
    assert.is(coded.headers['content-encoding'], 'br');
  } finally {
    await server.stop();
  }
  const [, line] = requestLines(server.logs());
  // Rows read off the text the coded bytes hold; bytes as sent, fewer than the text's.
  assert.equal([line!.code, line!.rows, line!.bytes], [200, rows, coded.body.length]);
  assert.ok(coded.body.length < plainBytes, `${coded.body.length} coded bytes of ${plainBytes}`);
});

t('a page spliced into gzip from its stored row text is logged with its rows and the bytes sent', async () => {
  const { dataDir } = await preparedData(SMALL_DATA);
  const flagship = addAccount(dataDir, 'flagship');
  const server: ServerHandle = await startServer(dataDir, { env: { TICKVAULT_LOG_LEVEL: 'info' } });
  const body = JSON.stringify({ apiname: 'level2_quote_history', apikey: flagship.key, params: { symbol: '600000.SH', tradedate: '20250102' } });
  let coded: Awaited<ReturnType<typeof httpRequest>>;
  let rows: number;
  try {
    const plain = await postApi(server, JSON.parse(body) as never);
    rows = (plain.json.data as { items: unknown[] }).items.length;
    assert.ok(rows > 100, `${rows} rows`);
    coded = await httpRequest(`${server.url}/api`, { body, headers: { 'content-type': 'application/json', 'accept-encoding': 'gzip' } });
    assert.is(coded.status, 200);
    assert.is(coded.headers['content-encoding'], 'gzip');
    assert.is(countItems(gunzipSync(coded.body).toString('utf8')), rows, 'the coded page holds the rows');
  } finally {
    await server.stop();
  }
  const [, line] = requestLines(server.logs());
  assert.equal([line!.code, line!.rows, line!.bytes], [200, rows, coded.body.length]);
});

t.run();
