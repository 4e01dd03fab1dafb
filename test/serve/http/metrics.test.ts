/**
 * GET /metrics of a started `tickvault serve`: after a known mix of answers (200, 400, 401,
 * each kind of limit), the counters say exactly that. The limits are provoked for real:
 * per-second by a burst, the daily ones and the slot by pre-filling service.db the way
 * another server process would have.
 */
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { beijingDate, parseInstant } from '../../../shared/clock.js';
import { rejectionReason } from '../../../serve/http/metrics.js';
import { openServiceDb } from '../../../serve/access/serviceDb.js';
import { addAccount, DEFAULT_SERVER_NOW, httpRequest, postApi, preparedData, startServer, type ServerHandle } from '../../support/server.js';

const t = suite('metrics');

/** Two trading days (20250102, 20250103), stocks 600000.SH and 000001.SZ, indexes 000001 and 000300: quick to replay. */
const SMALL_DATA = { days: 2, stocks: 2, indexes: 2 } as const;

const RATE = 10; // above what any one account here sends per second, except the burst
const TODAY = beijingDate(parseInstant(DEFAULT_SERVER_NOW)!);
let server: ServerHandle;
let dataDir: string;

/** `name{labels} value` lines → value by `name{sorted labels}`. */
function parseMetrics(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels = m[2]
      ? m[2]
          .split(/,(?=\w+=")/)
          .sort()
          .join(',')
      : '';
    out.set(labels ? `${m[1]}{${labels}}` : m[1], Number(m[3]));
  }
  return out;
}

const key = (name: string, labels: Record<string, string> = {}) => {
  const l = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort()
    .join(',');
  return l ? `${name}{${l}}` : name;
};

async function metrics(): Promise<Map<string, number>> {
  const res = await httpRequest(`${server.url}/metrics`, { method: 'GET' });
  assert.is(res.status, 200);
  assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  return parseMetrics(res.text);
}

function prefill(sql: string, ...args: (string | number)[]): void {
  const db = openServiceDb(join(dataDir, 'service.db'), { durable: true });
  try {
    db.prepare(sql).run(...args);
  } finally {
    db.close();
  }
}

t.before(async () => {
  ({ dataDir } = await preparedData(SMALL_DATA));
  server = await startServer(dataDir, { args: ['--rate-limit', String(RATE)] });
});

t.after(async () => {
  await server?.stop();
});

t('rejectionReason: each limit reason of ApiError maps to its label; other refusals are not rejections', () => {
  assert.is(rejectionReason('rate'), 'rate_limit');
  assert.is(rejectionReason('trial'), 'trial_calls');
  assert.is(rejectionReason('quota'), 'parquet_quota');
  assert.is(rejectionReason('slot'), 'slot_busy');
  assert.is(rejectionReason('disk'), 'state_disk');
  for (const r of ['param', 'body', 'key', 'plan', 'internal', undefined] as const) assert.is(rejectionReason(r), null, String(r));
});

t('requests by apiname and code, latency, bytes and every kind of quota rejection', async () => {
  const flagship = addAccount(dataDir, 'flagship');
  const trial = addAccount(dataDir, 'trial');
  const pro = addAccount(dataDir, 'professional');
  const busy = addAccount(dataDir, 'flagship');
  const burst = addAccount(dataDir, 'flagship');
  const l2 = (apikey: string, params: Record<string, unknown>) => postApi(server, { apiname: 'level2_quote_history', apikey, params });

  const before = await metrics();
  const delta = (m: Map<string, number>, k: string) => (m.get(k) ?? 0) - (before.get(k) ?? 0);

  // 200s: two level2 pages (JSON), one Parquet file, one tick_history
  assert.is((await l2(flagship.key, { symbol: '600000.SH', tradedate: '20250102', page_size: 5 })).status, 200);
  assert.is((await l2(flagship.key, { symbol: '600000.SH', tradedate: '20250103', page_size: 5 })).status, 200);
  const file = await l2(flagship.key, { symbol: '600000.SH', tradedate: '20250103', format: 'parquet' }).catch(() => null);
  assert.ok(file === null, 'a Parquet body is not JSON (postApi throws)');
  const tick = await postApi(server, { apiname: 'tick_history', apikey: flagship.key, params: { symbol: '000001', tradedate: '20250102' } });
  assert.is(tick.status, 200);
  // 400 unknown apiname, 400 bad param, 401 unknown key
  assert.is((await postApi(server, { apiname: 'nope', apikey: flagship.key, params: {} })).status, 400);
  assert.is((await l2(flagship.key, { symbol: '600000.SH', page_size: 0 })).status, 400);
  assert.is((await l2('tv_not-a-key-at-all', { symbol: '600000.SH' })).status, 401);

  // trial calls used up (as if another process had counted them)
  prefill('INSERT INTO daily_counts (account_id, apiname, kind, day, n) VALUES (?, ?, ?, ?, ?)', trial.id, 'tick_history', 'calls', TODAY, 100);
  const t429 = await postApi(server, { apiname: 'tick_history', apikey: trial.key, params: { symbol: '000001', tradedate: '20250102' } });
  assert.is(t429.status, 429, t429.text);
  // Parquet quota used up
  prefill('INSERT INTO daily_counts (account_id, apiname, kind, day, n) VALUES (?, ?, ?, ?, ?)', pro.id, 'level2_quote_history', 'parquet', TODAY, 30);
  const p429 = await l2(pro.key, { symbol: '600000.SH', tradedate: '20250103', format: 'parquet' });
  assert.is(p429.status, 429, p429.text);
  // the account's slot held elsewhere
  prefill(
    'INSERT INTO slots (account_id, apiname, holder, expires_at_ms) VALUES (?, ?, ?, ?)',
    busy.id,
    'level2_quote_history',
    'other-process',
    Date.now() + 60_000,
  );
  const b503 = await l2(busy.key, { symbol: '600000.SH', tradedate: '20250103', page_size: 1 });
  assert.is(b503.status, 503, b503.text);
  // per-second limit: a burst well above it within one or two seconds
  const t0 = Date.now();
  const codes = await Promise.all(
    Array.from({ length: 3 * RATE }, () => postApi(server, { apiname: 'tick_history', apikey: burst.key, params: { symbol: 'bad' } }).then((r) => r.status)),
  );
  // At most RATE pass in each wall-clock second the burst touched (more than two on a loaded machine).
  const windows = Math.floor(Date.now() / 1000) - Math.floor(t0 / 1000) + 1;
  const limited = codes.filter((c) => c === 429).length;
  assert.ok(limited >= codes.length - RATE * windows, `burst of ${codes.length} at ${RATE}/s over ${windows} s: ${limited} limited`);

  const after = await metrics();
  const req = (apiname: string, code: number) => delta(after, key('tickvault_api_requests_total', { apiname, code: String(code) }));
  assert.is(req('level2_quote_history', 200), 3);
  assert.is(req('tick_history', 200), 1);
  assert.is(req('unknown', 400), 1);
  assert.is(req('level2_quote_history', 400), 1);
  assert.is(req('level2_quote_history', 401), 1);
  assert.is(req('level2_quote_history', 429), 1);
  assert.is(req('level2_quote_history', 503), 1);
  assert.is(req('tick_history', 429), 1 + limited);
  assert.is(req('tick_history', 400), codes.length - limited);

  const rej = (apiname: string, reason: string) => delta(after, key('tickvault_quota_rejections_total', { apiname, reason }));
  assert.is(rej('tick_history', 'trial_calls'), 1);
  assert.is(rej('level2_quote_history', 'parquet_quota'), 1);
  assert.is(rej('level2_quote_history', 'slot_busy'), 1);
  assert.is(rej('tick_history', 'rate_limit'), limited);

  // latency histogram: one observation per answer, in the +Inf bucket and the count alike
  const count = delta(after, key('tickvault_api_request_duration_seconds_count', { apiname: 'level2_quote_history', code: '200' }));
  assert.is(count, 3);
  assert.is(delta(after, key('tickvault_api_request_duration_seconds_bucket', { apiname: 'level2_quote_history', code: '200', le: '+Inf' })), 3);
  assert.ok(delta(after, key('tickvault_api_request_duration_seconds_sum', { apiname: 'level2_quote_history', code: '200' })) > 0);
  // bytes include the whole Parquet file
  const stored = (await import('node:fs')).statSync(join(dataDir, 'level2', 'date=20250103', '600000.SH.parquet')).size;
  assert.ok(delta(after, key('tickvault_api_response_bytes_total', { apiname: 'level2_quote_history' })) > stored);
  // nothing in flight or held once every answer is in
  assert.is(after.get('tickvault_api_requests_in_flight'), 0);
  assert.is(after.get('tickvault_api_slots_held'), 0);
  // process metrics come along
  assert.ok((after.get('tickvault_process_cpu_user_seconds_total') ?? 0) > 0);
  assert.ok(after.has('tickvault_nodejs_eventloop_lag_seconds'));
});

t('GET /metrics itself, /healthz and /openapi.json are not API requests', async () => {
  const before = await metrics();
  await httpRequest(`${server.url}/healthz`, { method: 'GET' });
  await httpRequest(`${server.url}/openapi.json`, { method: 'GET' });
  const after = await metrics();
  const total = (m: Map<string, number>) => [...m].filter(([k]) => k.startsWith('tickvault_api_requests_total')).reduce((a, [, v]) => a + v, 0);
  assert.is(total(after), total(before));
});

t.run();
