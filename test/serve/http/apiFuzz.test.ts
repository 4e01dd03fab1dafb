/**
 * Generated requests against a real server: a few thousand bodies built from every parameter
 * name of both operations (and some that are none), with values chosen to sit on or past
 * every edge (dates past year 9999, times out of range, deep nesting, huge numbers, path
 * fragments, long strings, wrong types). Whatever arrives, the server answers a JSON envelope
 * whose code is the HTTP status and never 5xx, with a short message, stays live on /healthz,
 * and writes only JSON lines to stderr with no "request failed" (a 500's log line).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { seededRandom } from '../../../ingest/feed/generate.js';
import { answerOrOutcome, Tally } from '../../support/load.js';
import { addAccount, httpRequest, preparedData, startServer, type ServerHandle } from '../../support/server.js';

const test = suite('serve: generated requests');

const REQUESTS = 3000;
const CONCURRENCY = 4;

const nest = (depth: number, inner: unknown): unknown => {
  let v = inner;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
};

/** Stands for 20,000 nested arrays, spliced into the text (JSON.stringify itself overflows on them). */
const DEEP = 'tickvault-fuzz-deep';
const DEEP_TEXT = '['.repeat(20_000) + ']'.repeat(20_000);

const DATES = [
  '20250102',
  '20250103',
  '20250106',
  '20250104',
  '20250107',
  '20241231',
  '20150101',
  '20261231',
  '20270101',
  '99991231',
  '00000000',
  '00010101',
  '19900101',
  '20250230',
  '2025-01-02',
  '2025010',
  '202501021',
  '',
  ' 20250102',
  20250102,
  -1,
];
const TIMES = [
  '09:30',
  '10:00:00',
  '10:00:00.500',
  '093000',
  '093000000',
  '235959999',
  '00:00',
  '24:00',
  '25:00:00',
  '9:30',
  '0930',
  '10:00:00.5',
  '',
  '99:99:99.999',
  930,
  '12:60',
];
const STOCKS = [
  '600000',
  '600000.SH',
  'sh600000',
  'SZ000001',
  '000001.XSHE',
  '002001.SZ',
  '000300',
  '399001',
  '830799.BJ',
  '600000,600001',
  '../../etc/passwd',
  '600000/../x',
  '%2e%2e',
  '',
  ' ',
  '6000000',
  'ÄÖÜ',
  '600000.XX',
  '\u0000',
];
const INDEXES = ['000001', '000300', '399001', '999999', '000001.SH', '00030', 'abcdef', '../x', '000001,000300', ' 000300 ', '', '000300,000300'];
const NUMBERS = [0, 1, -1, 2.5, 6000, 6001, 10000, 10001, 1e300, -1e300, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 2, -10000, -10001, 1e-9];
const WILD: unknown[] = [
  null,
  true,
  false,
  {},
  [],
  { a: 1 },
  'x'.repeat(5000),
  '\ud800',
  '🙂',
  DEEP,
  nest(1000, 1),
  nest(50, '600000'),
  Array.from({ length: 300 }, (_, i) => String(i).padStart(6, '0')),
  Array.from({ length: 5 }, () => '000300'),
];

const PARAM_VALUES: Readonly<Record<string, readonly unknown[]>> = {
  symbol: [...STOCKS, ...INDEXES],
  symbols: [...INDEXES, ['000001', '000300'], ['000001', 5], [['000001']]],
  tradedate: DATES,
  startdate: DATES,
  enddate: DATES,
  recentdays: NUMBERS,
  tradedate_offset: NUMBERS,
  format: ['json', 'parquet', 'csv', 'JSON', ''],
  start_time: TIMES,
  end_time: TIMES,
  page_size: NUMBERS,
  cursor: ['0', '10', '99999999999999999999', 'tv1_AAAA', 'tv1_' + 'A'.repeat(60), '', '-1', '1e3'],
  limit: NUMBERS,
  offset: NUMBERS,
  order_dir: ['asc', 'desc', 'ASC', ''],
  trademin: ['0930', '09:30', '1500', '2400', '930', '0960', ''],
  side: ['before', 'after', 'both', ''],
  asset: ['index', 'stock', 'bond', ''],
  constructor: [1],
  unknown_param: [1],
};
const NAMES = Object.keys(PARAM_VALUES);
const FIELDS = [undefined, null, '', 'time', 'time,close,time', 'symbol,tradedate,time,close,vol', 'nope', ',,,', 'close'.repeat(1000), 5];
const APINAMES = ['level2_quote_history', 'tick_history', 'tick_history', 'level2_quote_history', 'nope', '', 7];

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];

/** Valid requests of every mode, which the generator then bends one or two members at a time. */
const BASES: readonly [string, Record<string, unknown>][] = [
  ['level2_quote_history', { symbol: '600000', tradedate: '20250103', page_size: 100 }],
  ['level2_quote_history', { symbol: '002001.SZ', start_time: '10:00', end_time: '10:05' }],
  ['tick_history', { symbol: '000300', tradedate: '20250103' }],
  ['tick_history', { symbols: '000001,000300', startdate: '20250102', enddate: '20250106', limit: 100 }],
  ['tick_history', { trademin: '1000', side: 'before', tradedate: '20250103' }],
];

function body(r: () => number, keys: readonly string[]): string {
  let apiname: unknown;
  let params: Record<string, unknown>;
  if (r() < 0.6) {
    const [name, base] = pick(r, BASES);
    apiname = name;
    params = { ...base };
  } else {
    apiname = pick(r, APINAMES);
    params = {};
  }
  const n = Math.floor(r() * 4);
  for (let i = 0; i < n; i++) {
    const name = pick(r, NAMES);
    params[name] = r() < 0.1 ? pick(r, WILD) : pick(r, PARAM_VALUES[name]);
  }
  const b: Record<string, unknown> = { apiname, apikey: r() < 0.6 ? keys[0] : pick(r, keys), params };
  const fields = r() < 0.7 ? undefined : pick(r, FIELDS);
  if (fields !== undefined) b.fields = fields;
  const shape = r();
  if (shape < 0.02) return JSON.stringify(b).slice(0, Math.floor(r() * 40)); // truncated JSON
  if (shape < 0.04) return JSON.stringify([b]);
  if (shape < 0.06) return JSON.stringify({ ...b, params: pick(r, WILD) });
  if (shape < 0.07) return JSON.stringify({ ...b, extra: 1 });
  // Builders skip the own property "__proto__"; write it as a client would.
  return JSON.stringify(b)
    .replaceAll(`"${DEEP}"`, DEEP_TEXT)
    .replace('"params":{', `"params":{${r() < 0.05 ? '"__proto__":{"x":1},' : ''}`);
}

let server: ServerHandle;
let keys: string[] = [];

test.before(async () => {
  const { dataDir } = await preparedData();
  server = await startServer(dataDir, { env: { TICKVAULT_RATE_LIMIT: '1000000', TICKVAULT_LOG_LEVEL: 'info' } });
  const made = (['flagship', 'professional', 'trial', 'free', 'standard'] as const).map((p) => addAccount(dataDir, p).key);
  keys = [...made, 'tv_not_a_key', '', ...made];
});
test.after(async () => {
  await server.stop();
});

test(`${REQUESTS} generated bodies: never a 5xx, always a short envelope, /healthz stays live`, async () => {
  // Deterministic: a failure is reproducible from its index.
  const r = seededRandom('tickvault-api-fuzz');
  const bodies = Array.from({ length: REQUESTS }, () => body(r, keys));
  const seen = new Tally();
  let next = 0;
  const failures: string[] = [];
  const worker = async () => {
    while (next < bodies.length) {
      const i = next++;
      const res = await answerOrOutcome(httpRequest(`${server.url}/api`, { body: bodies[i], headers: { 'content-type': 'application/json' } }));
      // A connection reset or refused instead of an answer is a failure like a 5xx, reported with its body.
      if (typeof res === 'string') {
        seen.add(res);
        failures.push(`#${i}: connection ${res} for ${bodies[i].slice(0, 300)}`);
        continue;
      }
      seen.add(res.status);
      const type = String(res.headers['content-type'] ?? '');
      if (type.startsWith('application/vnd.apache.parquet')) {
        if (res.status !== 200 || res.body.subarray(0, 4).toString() !== 'PAR1') failures.push(`#${i}: bad Parquet answer`);
        continue;
      }
      let env: { code?: unknown; message?: unknown };
      try {
        env = JSON.parse(res.text);
      } catch {
        failures.push(`#${i}: ${res.status} not JSON: ${res.text.slice(0, 100)}`);
        continue;
      }
      if (res.status >= 500) failures.push(`#${i}: ${res.status} for ${bodies[i].slice(0, 300)}`);
      if (env.code !== res.status) failures.push(`#${i}: code ${String(env.code)} but status ${res.status}`);
      if (typeof env.message !== 'string' || env.message.length > 300) failures.push(`#${i}: message ${String(env.message).slice(0, 100)}…`);
      if (i % 250 === 0) {
        const health = await answerOrOutcome(httpRequest(`${server.url}/healthz`, { method: 'GET' }));
        const status = typeof health === 'string' ? health : health.status;
        if (status !== 200) failures.push(`#${i}: /healthz ${status}`);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  console.log(`  answers: ${seen}`);
  assert.equal(failures, [], failures.slice(0, 5).join('\n'));
  // The generator reached every layer: parse errors, auth, plans, data.
  for (const code of [200, 400, 401, 403]) assert.ok(seen.get(code) > 20, `only ${seen.get(code)} answers ${code}: ${seen}`);
  const stderr = server
    .logs()
    .split('\n')
    .filter((l) => l !== '');
  for (const line of stderr) {
    let entry: { level?: number; msg?: string };
    try {
      entry = JSON.parse(line);
    } catch {
      assert.unreachable(`stderr line is not JSON: ${line.slice(0, 200)}`);
      return;
    }
    assert.is.not(entry.msg, 'request failed', line.slice(0, 300));
  }
});

test.run();
