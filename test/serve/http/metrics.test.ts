/**
 * GET /metrics of a started `tickvault serve`: after a known mix of answers (200, 400, 401,
 * each kind of limit), the counters say exactly that. The limits are provoked for real:
 * per-second by a burst, the daily ones and the slot by pre-filling service.db the way
 * another server process would have. Live days' rows and freshness: rows staged through the
 * ingestor's own staging, not sealed, counted and aged by a server whose clock is in the session.
 */
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { beijingDate, beijingDayStartMs, parseInstant } from '../../../shared/clock.js';
import { openIngestStores } from '../../../ingest/staging/stores.js';
import { SCHEMAS, type Dataset, type SnapshotRow } from '../../../shared/schema.js';
import { tempDir } from '../../support/tempDir.js';
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

t('live rows and the age of the newest committed row, per dataset, by the server clock', async () => {
  const NOW = '2025-01-06T14:00:00+08:00';
  const dir = tempDir('tickvault-metrics-live-');
  const row = (dataset: Dataset, symbol: string, tradedate: string, hms: string, seq: number): SnapshotRow => {
    const [h, m, sec] = hms.split(':').map(Number);
    const values = new Array<number | null>(SCHEMAS[dataset].valueFields.length).fill(null);
    values[0] = seq; // an id for trades, a price-like value for snapshots: only the record count and times matter here
    return { dataset, symbol, tradedate, timeMs: ((h * 60 + m) * 60 + sec) * 1000, values };
  };
  // Each symbol's rows arrive in time order, as a feed sends them. The latest live day,
  // 20250106, ends at 13:59:30 (000001.SZ); an older live day, 20250103, has later times of
  // day, which must not count as fresher.
  const staged: SnapshotRow[] = [
    row('level2', '600000.SH', '20250106', '09:30:00', 1),
    row('level2', '600000.SH', '20250106', '09:30:03', 2),
    row('level2', '600000.SH', '20250106', '09:30:03', 3), // a corrected duplicate: counted, not resolved yet
    row('level2', '600000.SH', '20250106', '13:58:00', 4),
    row('level2', '000001.SZ', '20250106', '10:00:00', 5),
    row('level2', '000001.SZ', '20250106', '13:59:30', 6),
    row('level2', '600000.SH', '20250103', '14:56:00', 7),
    row('trade', '600000.SH', '20250106', '11:29:59', 8),
    row('trade', '600000.SH', '20250106', '13:00:01', 9),
  ];
  const stores = openIngestStores(dir, () => Date.parse(NOW));
  try {
    // One stage() per row: each is a commit of its own, in arrival order.
    for (const r of staged) stores.staging.stage([r], []);
    await stores.staging.flush();
  } finally {
    stores.close();
  }
  const count = (d: Dataset) => staged.filter((r) => r.dataset === d).length;
  const newest = (d: Dataset) =>
    Math.max(...staged.filter((r) => r.dataset === d && r.tradedate === '20250106').map((r) => beijingDayStartMs(r.tradedate) + r.timeMs));

  const startedAt = Date.now();
  const live = await startServer(dir, { now: NOW });
  try {
    const res = await httpRequest(`${live.url}/metrics`, { method: 'GET' });
    const elapsedS = (Date.now() - startedAt) / 1000;
    assert.is(res.status, 200);
    const m = parseMetrics(res.text);
    assert.is(m.get(key('tickvault_live_rows', { dataset: 'level2' })), 7);
    assert.is(m.get(key('tickvault_live_rows', { dataset: 'level2' })), count('level2'));
    assert.is(m.get(key('tickvault_live_rows', { dataset: 'trade' })), count('trade'));
    assert.is(m.get(key('tickvault_live_rows', { dataset: 'order' })), 0);
    // The server's clock starts at NOW and runs on: the age is at least NOW's and at most
    // the time since the server was started more.
    const ages: [Dataset, number][] = [
      ['level2', (Date.parse(NOW) - newest('level2')) / 1000],
      ['trade', (Date.parse(NOW) - newest('trade')) / 1000],
    ];
    assert.is(ages[0][1], 30); // 14:00:00 − 13:59:30, by hand
    for (const [dataset, expected] of ages) {
      const age = m.get(key('tickvault_live_newest_row_age_seconds', { dataset }));
      assert.ok(age !== undefined && age >= expected && age <= expected + elapsedS, `${dataset}: age ${age}, expected ${expected} + at most ${elapsedS}`);
    }
    // No live day, no sample (not a zero that would read as perfectly fresh).
    assert.not.ok(m.has(key('tickvault_live_newest_row_age_seconds', { dataset: 'order' })));
    assert.not.ok(m.has(key('tickvault_live_newest_row_age_seconds', { dataset: 'index' })));
  } finally {
    await live.stop();
  }
  // The prepared data directory's server has only sealed days: no live rows, no age.
  const sealedOnly = await metrics();
  assert.is(sealedOnly.get(key('tickvault_live_rows', { dataset: 'level2' })), 0);
  assert.not.ok([...sealedOnly.keys()].some((k) => k.startsWith('tickvault_live_newest_row_age_seconds{')));
});

t.run();
