/**
 * tick_history latency over HTTP against DuckDB answering the same queries over the same files
 * in the same run (`read_parquet` over the file list, same filter, order, limit/offset, rows
 * materialised and `JSON.stringify`-ed into the same envelope).
 *
 *   node dist/bench/tickHistory.bench.js [--wide-indexes 1000] [--wide-days 3]
 *     [--deep-indexes 200] [--deep-days 20] [--iterations 25] [--cold-trials 7] [--data-dir DIR]
 *
 * Data: generated index snapshot days (the feed generator's model: a snapshot every 3 s with
 * ms jitter, 09:25 and 09:30-11:30, 13:00-15:00, 4,801 rows a symbol-day) written straight
 * into sealed files by the sealer's encoder (`encodeParquet`, 480-row groups, ZSTD) with the
 * sealer's catalog rows (minute index, sha256). JSON feed + replay is skipped only because it
 * costs ~20 µs a row on two cores (94M rows would take hours); the files and catalog are the
 * same. `wide` indexes exist on the first `wide-days` days (the whole-market boundary), the
 * first `deep-indexes` of them on all `deep-days` days (the deep-offset query).
 *
 * Timings are p50 over `iterations` requests after a warm-up pass over every distinct request
 * (the boundary case cycles through 16 minutes of the day); "first request" is the very first
 * one (server caches empty, OS page cache warm). DuckDB is warmed with up to 3 of the
 * variants, and its timed runs stop after 60 s (at least 3 runs).
 *
 * First touch (the boundary after a restart): each trial starts a new server process and
 * times its first request, then DuckDB's first answer to the same question in a new instance;
 * once with the day's files in the page cache (as this run left them, resident bytes printed),
 * once with them evicted before every trial (dd iflag=nocache, i.e. POSIX_FADV_DONTNEED).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { tradingDaysFrom } from '../calendar/tradingCalendar.js';
import { indexCode, seededRandom } from '../ingest/feed/generate.js';
import type { SymbolDayColumns } from '../storage/parquet/writer.js';
import { CatalogReader, CatalogWriter, openCatalog, type NewCatalogFile } from '../storage/catalog.js';
import { evictFromPageCache, pageCacheState, residentBytes } from './pageCache.js';
import { stopChild } from './serverLoad.js';
import { layoutFor, sealedDayDir, sealedFileRelPath } from '../storage/layout.js';
import { writeSymbolDay } from '../storage/symbolDayFile.js';
import { SCHEMAS } from '../shared/schema.js';
import type { FileCandidates } from '../storage/boundary/candidates.js';
import { writeBoundaryPart } from '../storage/boundary/partFile.js';
import { openServiceDb } from '../serve/access/serviceDb.js';
import { AccountStore } from '../serve/access/accounts.js';

const CLI = join(dirname(fileURLToPath(import.meta.url)), '..', 'cli', 'main.js');
const FIRST_DAY = '20250303';
const FIELDS = SCHEMAS.index.fieldNames;

export interface TickHistoryBenchOptions {
  wideIndexes?: number;
  wideDays?: number;
  deepIndexes?: number;
  deepDays?: number;
  iterations?: number;
  /** New server processes per first-touch figure. */
  coldTrials?: number;
  /** Reuse (or keep) the generated data here instead of a fresh temp dir. */
  dataDir?: string;
  log?: (line: string) => void;
}

export interface Figure {
  readonly name: string;
  readonly p50Ms: number;
  readonly firstMs: number;
  readonly duckdbP50Ms: number;
  readonly ratio: number;
  readonly rows: number;
  readonly target: string;
  readonly pass: boolean;
  readonly sameRows: boolean;
}

/** A first-touch figure: each trial a new server process (and a new DuckDB instance) in one page-cache state. */
export interface ColdFigure {
  readonly name: string;
  /** `warm`: the files are in the page cache (written and read by this run); `evicted`: dropped before every trial. */
  readonly cache: 'warm' | 'evicted';
  /** Bytes of the day's files (Parquet, boundary part, catalog) resident when the trials began. */
  readonly residentBytes: number | null;
  readonly totalBytes: number;
  readonly trials: number;
  readonly p50Ms: number;
  readonly duckdbP50Ms: number;
  readonly ratio: number;
  readonly target: string;
  readonly pass: boolean;
  readonly sameRows: boolean;
}

export interface TickHistoryBenchResult {
  readonly scale: { wideIndexes: number; wideDays: number; deepIndexes: number; deepDays: number; rows: number; files: number };
  readonly generateMs: number | null;
  readonly figures: readonly Figure[];
  readonly cold: readonly ColdFigure[];
}

// ---- data ------------------------------------------------------------------------------

const HMS = (h: number, m: number, s = 0) => ((h * 60 + m) * 60 + s) * 1000;

function daySlots(): number[] {
  const out = [HMS(9, 25)];
  for (const [a, b] of [
    [HMS(9, 30), HMS(11, 30)],
    [HMS(13, 0), HMS(15, 0)],
  ])
    for (let t = a; t < b; t += 3000) out.push(t);
  return out;
}
const SLOTS = daySlots();
const round4 = (v: number) => Math.round(v * 1e4) / 1e4;
const round2 = (v: number) => Math.round(v * 100) / 100;

/** One symbol-day in the feed generator's index model; pre_close/pct_chg null as ingest leaves them. */
function symbolDay(symbol: string, tradedate: string, seed: number): SymbolDayColumns {
  const rnd = seededRandom(`${symbol}-${tradedate}-${seed}`);
  const numeric = SCHEMAS.index.valueFields.map((f) => f.name);
  const col = new Map(numeric.map((n, i) => [n, i]));
  const rows = SLOTS.length;
  const values = numeric.map(() => new Float64Array(rows));
  const timesMs = new Int32Array(rows);
  let level = round4(1000 + rnd() * 9000);
  const open = level;
  let high = level;
  let low = level;
  let trades = 0;
  let vol = 0;
  let amount = 0;
  const set = (name: string, r: number, v: number) => (values[col.get(name)!][r] = v);
  for (let r = 0; r < rows; r++) {
    timesMs[r] = SLOTS[r] + Math.floor(rnd() * 1000);
    level = round4(level * (1 + (rnd() - 0.5) * 0.0006));
    high = Math.max(high, level);
    low = Math.min(low, level);
    const t = Math.floor(rnd() * 3000);
    trades += t;
    vol += t * 100 * (1 + Math.floor(rnd() * 20));
    amount = round2(amount + t * 1000 * (1 + rnd() * 30));
    set('open', r, open);
    set('high', r, high);
    set('low', r, low);
    set('close', r, level);
    set('pre_close', r, NaN);
    set('pct_chg', r, NaN);
    set('vol', r, vol);
    set('amount', r, amount);
    set('transaction_num', r, rnd() < 0.002 ? NaN : trades);
    for (let l = 1; l <= 5; l++) {
      set(`bid${l}`, r, round4(level - 0.01 * l));
      set(`ask${l}`, r, round4(level + 0.01 * l));
      set(`bid_vol${l}`, r, 100 * (1 + Math.floor(rnd() * 900)));
      set(`ask_vol${l}`, r, 100 * (1 + Math.floor(rnd() * 900)));
    }
  }
  return { dataset: 'index', symbol, tradedate, rows, timesMs, values };
}

function tradingDays(n: number): string[] {
  return tradingDaysFrom(FIRST_DAY, n);
}

interface Scale {
  readonly wideIndexes: number;
  readonly wideDays: number;
  readonly deepIndexes: number;
  readonly deepDays: number;
}

function symbolsOn(scale: Scale, dayIndex: number): string[] {
  const n = dayIndex < scale.wideDays ? scale.wideIndexes : dayIndex < scale.deepDays ? scale.deepIndexes : 0;
  return Array.from({ length: n }, (_, i) => indexCode(i));
}

/** Writes the sealed files, boundary parts and catalog rows the sealer would (same writer, same columns). */
async function generate(dataDir: string, scale: Scale, log: (l: string) => void): Promise<{ rows: number; files: number }> {
  const layout = layoutFor(dataDir);
  mkdirSync(dataDir, { recursive: true });
  const catalog = openCatalog(layout.catalogDb);
  const writer = new CatalogWriter(catalog);
  let rows = 0;
  let files = 0;
  const days = tradingDays(Math.max(scale.wideDays, scale.deepDays));
  for (const [di, day] of days.entries()) {
    mkdirSync(sealedDayDir(dataDir, 'index', day), { recursive: true });
    const inFlight = new Set<Promise<void>>();
    const written: NewCatalogFile[] = [];
    const candidates: FileCandidates[] = [];
    for (const symbol of symbolsOn(scale, di)) {
      const job = (async () => {
        const cols = symbolDay(symbol, day, 1);
        // The sealer's own writer (fsync included), so the files are the ones a seal writes.
        const { file, candidates: c } = await writeSymbolDay({ dataDir }, cols);
        written.push(file);
        candidates.push(c!);
        rows += cols.rows;
        files++;
      })();
      inFlight.add(job);
      void job.finally(() => inFlight.delete(job));
      if (inFlight.size >= 6) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
    writer.recordFiles('index', day, SCHEMAS.index.rowGroupSize, written, Date.now());
    // The seal's boundary part (one part holds 1,000 indexes' candidates, as it does at seal).
    writer.recordBoundaryPart('index', day, await writeBoundaryPart(dataDir, 'index', day, candidates), Date.now());
    writer.markDaySealed('index', day, Date.now());
    log(`   generated ${day}: ${symbolsOn(scale, di).length} indexes (${files} files, ${(rows / 1e6).toFixed(1)}M rows so far)`);
  }
  catalog.close();
  return { rows, files };
}

// ---- server and client -----------------------------------------------------------------

interface Server {
  readonly url: string;
  readonly child: ChildProcess;
}

async function startServer(dataDir: string, now: string): Promise<Server> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--data-dir', dataDir, '--rate-limit', '1000000'], {
    env: { ...process.env, TICKVAULT_NOW: now, TICKVAULT_LOG_LEVEL: 'warn', TICKVAULT_PROGRESS: 'off' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`server exited (${code}): ${err.slice(-500)}`)));
  });
  return { url, child };
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function post(url: string, body: unknown): Promise<{ ms: number; text: string; status: number }> {
  const payload = JSON.stringify(body);
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/api`,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ ms: performance.now() - t0, text: Buffer.concat(chunks).toString('utf8'), status: res.statusCode ?? 0 }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

// ---- reference -------------------------------------------------------------------------

const SELECT_LIST = FIELDS.map((f) =>
  f === 'pre_close' || f === 'pct_chg' ? `NULL::DOUBLE AS ${f}` : f === 'transaction_num' ? 'transaction_num::DOUBLE AS transaction_num' : f,
).join(', ');

const sqlList = (paths: readonly string[]) => `[${paths.map((p) => `'${p.replaceAll("'", "''")}'`).join(', ')}]`;

async function duckQuery(con: DuckDBConnection, sql: string): Promise<{ ms: number; text: string }> {
  const t0 = performance.now();
  const reader = await con.runAndReadAll(sql);
  const items = reader.getRowsJS();
  const text = JSON.stringify({ code: 200, message: 'success', data: { fields: FIELDS, items } });
  return { ms: performance.now() - t0, text };
}

const REFERENCE_BUDGET_MS = 60_000;

const p50 = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

interface Case {
  readonly name: string;
  readonly label: string;
  /** One request body and one SQL per iteration (the boundary case varies the minute). */
  readonly request: (i: number) => Record<string, unknown>;
  readonly sql: (i: number) => string;
  /** Distinct requests (i modulo this); all are sent once as warm-up before timing. */
  readonly variants: number;
  readonly check: (p50Ms: number, ratio: number) => { target: string; pass: boolean };
}

function sameItems(ours: string, ref: string): boolean {
  const a = (JSON.parse(ours) as { data: { items: unknown[][] } }).data.items;
  const b = (JSON.parse(ref) as { data: { items: unknown[][] } }).data.items;
  return JSON.stringify(a) === JSON.stringify(b);
}

async function runCase(c: Case, url: string, apikey: string, con: DuckDBConnection, iterations: number, log: (l: string) => void): Promise<Figure> {
  const first = await post(url, { apiname: 'tick_history', apikey, params: c.request(0) });
  if (first.status !== 200) throw new Error(`${c.name}: HTTP ${first.status} ${first.text.slice(0, 300)}`);
  let warmMs = first.ms;
  for (let i = 1; i < c.variants; i++) warmMs += (await post(url, { apiname: 'tick_history', apikey, params: c.request(i) })).ms;
  const ours: number[] = [];
  let rows = 0;
  let same = true;
  for (let i = 0; i < iterations; i++) {
    const r = await post(url, { apiname: 'tick_history', apikey, params: c.request(i) });
    ours.push(r.ms);
    if (i === 0) {
      rows = (JSON.parse(r.text) as { data: { items: unknown[] } }).data.items.length;
      same = sameItems(r.text, (await duckQuery(con, c.sql(i))).text);
    }
  }
  // DuckDB warm-up; its timed runs stop after REFERENCE_BUDGET_MS (at least 3): a deep-offset
  // query over 4,000 files takes seconds each, and the median of 3+ runs is stable enough.
  for (let i = 0; i < Math.min(c.variants, 3); i++) await duckQuery(con, c.sql(i));
  const ref: number[] = [];
  const refStart = performance.now();
  for (let i = 0; i < iterations && (i < 3 || performance.now() - refStart < REFERENCE_BUDGET_MS); i++) ref.push((await duckQuery(con, c.sql(i))).ms);
  const p = p50(ours);
  const d = p50(ref);
  const { target, pass } = c.check(p, p / d);
  const fig: Figure = { name: c.name, p50Ms: p, firstMs: first.ms, duckdbP50Ms: d, ratio: p / d, rows, target, pass, sameRows: same };
  log(
    `${c.label} p50: ${p.toFixed(1)} ms (${fig.ratio.toFixed(3)}x duckdb ${d.toFixed(0)} ms, ${ref.length} runs) — ${rows} rows, first request ${first.ms.toFixed(0)} ms` +
      (c.variants > 1 ? ` (warm-up of all ${c.variants} variants ${warmMs.toFixed(0)} ms)` : '') +
      `, ` +
      `rows ${same ? 'identical to duckdb' : 'DIFFER FROM DUCKDB'}; target ${target}: ${pass ? 'PASS' : 'MISS'}`,
  );
  return fig;
}

// ---- first touch ------------------------------------------------------------------------

interface ColdCase {
  readonly name: string;
  readonly label: string;
  readonly request: (i: number) => Record<string, unknown>;
  readonly sql: (i: number) => string;
  /** The day's files a first touch may read: evicted before each trial in the evicted state. */
  readonly files: readonly string[];
  readonly target: (p50Ms: number, ratio: number) => { target: string; pass: boolean };
}

function stopServer(server: Server): Promise<void> {
  return stopChild(server.child);
}

/**
 * The first request of a new server process, `trials` times (a different request each), and
 * DuckDB's first answer to the same question in a new instance, in each page-cache state.
 */
async function runColdCase(c: ColdCase, dataDir: string, now: string, apikey: string, trials: number, log: (l: string) => void): Promise<ColdFigure[]> {
  const totalBytes = c.files.reduce((n, f) => n + statSync(f).size, 0);
  const out: ColdFigure[] = [];
  for (const cache of ['warm', 'evicted'] as const) {
    const residentAtStart = cache === 'evicted' ? evictFromPageCache(c.files) : residentBytes(c.files);
    const ours: number[] = [];
    const ref: number[] = [];
    let same = true;
    for (let i = 0; i < trials; i++) {
      if (cache === 'evicted') evictFromPageCache(c.files);
      const server = await startServer(dataDir, now);
      let r: { ms: number; text: string; status: number };
      try {
        r = await post(server.url, { apiname: 'tick_history', apikey, params: c.request(i) });
      } finally {
        await stopServer(server);
      }
      if (r.status !== 200) throw new Error(`${c.name}: HTTP ${r.status} ${r.text.slice(0, 300)}`);
      ours.push(r.ms);
      if (cache === 'evicted') evictFromPageCache(c.files);
      const instance = await DuckDBInstance.create(':memory:');
      const con = await instance.connect();
      try {
        const d = await duckQuery(con, c.sql(i));
        ref.push(d.ms);
        same &&= sameItems(r.text, d.text);
      } finally {
        con.closeSync();
      }
    }
    const p = p50(ours);
    const d = p50(ref);
    const { target, pass } = c.target(p, p / d);
    const state =
      cache === 'warm' ? pageCacheState('warm', residentAtStart, totalBytes) : pageCacheState('evicted before every trial', residentAtStart, totalBytes);
    log(
      `${c.label}, first request of a new server, ${state}: p50 ${p.toFixed(1)} ms over ${trials} processes ` +
        `(${(p / d).toFixed(3)}x duckdb's first query in a new instance, p50 ${d.toFixed(0)} ms) [${ours.map((x) => x.toFixed(0)).join(', ')} ms]; ` +
        `rows ${same ? 'identical to duckdb' : 'DIFFER FROM DUCKDB'}; target ${target}: ${pass ? 'PASS' : 'MISS'}`,
    );
    out.push({ name: c.name, cache, residentBytes: residentAtStart, totalBytes, trials, p50Ms: p, duckdbP50Ms: d, ratio: p / d, target, pass, sameRows: same });
  }
  return out;
}

// ---- the bench -------------------------------------------------------------------------

export async function runTickHistoryBench(opts: TickHistoryBenchOptions = {}): Promise<TickHistoryBenchResult> {
  const log = opts.log ?? ((l: string) => console.log(l));
  const scale: Scale = {
    wideIndexes: opts.wideIndexes ?? 1000,
    wideDays: opts.wideDays ?? 3,
    deepIndexes: opts.deepIndexes ?? 200,
    deepDays: opts.deepDays ?? 20,
  };
  if (scale.deepIndexes > scale.wideIndexes) throw new Error('deep indexes must be a subset of the wide ones');
  const iterations = opts.iterations ?? 25;
  const coldTrials = opts.coldTrials ?? 7;
  const dataDir = opts.dataDir ?? (await mkdtemp(join(tmpdir(), 'tickvault-tickbench-')));
  const marker = join(dataDir, 'tick-bench.json');
  // The data's format is part of the key: data from before boundary parts is made again.
  const wanted = JSON.stringify({ ...scale, boundaryParts: 1 });
  let generateMs: number | null = null;
  let counts: { rows: number; files: number };
  if (existsSync(marker) && readFileSync(marker, 'utf8').startsWith(wanted)) {
    counts = JSON.parse(readFileSync(marker, 'utf8').slice(wanted.length)) as { rows: number; files: number };
    log(`tick data reused from ${dataDir}`);
  } else {
    const t0 = performance.now();
    counts = await generate(dataDir, scale, log);
    generateMs = performance.now() - t0;
    writeFileSync(marker, wanted + JSON.stringify(counts));
  }
  const days = tradingDays(Math.max(scale.wideDays, scale.deepDays));
  log(
    `tick data: ${scale.wideIndexes} indexes x ${scale.wideDays} days + ${scale.deepIndexes} of them x ${scale.deepDays} days ` +
      `(${days[0]}..${days[days.length - 1]}): ${counts.files} files, ${(counts.rows / 1e6).toFixed(1)}M rows` +
      (generateMs === null ? '' : `, generated in ${(generateMs / 1000).toFixed(0)} s`),
  );

  const db = openServiceDb(layoutFor(dataDir).serviceDb, { durable: true });
  const apikey = new AccountStore(db).create('flagship', Date.now()).key;
  db.close();
  const lastDay = days[days.length - 1];
  const now = `${lastDay.slice(0, 4)}-${lastDay.slice(4, 6)}-${lastDay.slice(6)}T16:30:00+08:00`;
  const server = await startServer(dataDir, now);
  const instance = await DuckDBInstance.create(':memory:');
  const con = await instance.connect();
  try {
    const day = days[0];
    const abs = (d: string, s: string) => join(dataDir, sealedFileRelPath('index', d, s));
    const deep = Array.from({ length: scale.deepIndexes }, (_, i) => indexCode(i)).sort();
    const deepDays = days.slice(0, scale.deepDays);
    const minutes = ['0931', '0947', '1003', '1019', '1036', '1052', '1108', '1124', '1305', '1321', '1337', '1353', '1410', '1426', '1442', '1458'];
    const at = (i: number) => minutes[i % minutes.length];
    const dayGlob = `'${join(dataDir, 'index', `date=${day}`, '*.parquet')}'`;
    const iso = `${day.slice(0, 4)}-${day.slice(4, 6)}-${day.slice(6)}`;
    const order = 'ORDER BY tradedate, time, symbol';
    const deepOffset = 500_000;
    const cases: Case[] = [
      {
        name: 'boundary',
        label: `tick boundary (${scale.wideIndexes} indexes, whole market, one day)`,
        request: (i) => ({ trademin: at(i), side: 'before', tradedate: day }),
        sql: (i) =>
          `SELECT ${SELECT_LIST} FROM read_parquet(${dayGlob}) WHERE time < '${iso} ${at(i).slice(0, 2)}:${at(i).slice(2)}:00.000' ` +
          `QUALIFY row_number() OVER (PARTITION BY symbol ORDER BY time DESC) = 1 ORDER BY symbol`,
        variants: minutes.length,
        check: (p, r) => ({ target: '≤ 50 ms and ≤ 0.2x', pass: p <= 50 && r <= 0.2 }),
      },
      {
        name: 'enhanced-day',
        label: `tick enhanced (${deep.length} symbols, one day, limit 6000)`,
        request: () => ({ symbols: deep, tradedate: day }),
        sql: () => `SELECT ${SELECT_LIST} FROM read_parquet(${sqlList(deep.map((s) => abs(day, s)))}) ${order} LIMIT 6000`,
        variants: 1,
        check: (p, r) => ({ target: '≤ 80 ms and ≤ 0.5x', pass: p <= 80 && r <= 0.5 }),
      },
      {
        name: 'enhanced-deep',
        label: `tick enhanced (${deep.length} symbols x ${deepDays.length} days, offset ${deepOffset}, limit 6000)`,
        request: () => ({ symbols: deep, startdate: deepDays[0], enddate: deepDays[deepDays.length - 1], offset: deepOffset, limit: 6000 }),
        sql: () =>
          `SELECT ${SELECT_LIST} FROM read_parquet(${sqlList(deepDays.flatMap((d) => deep.map((s) => abs(d, s))))}) ${order} LIMIT 6000 OFFSET ${deepOffset}`,
        variants: 1,
        check: (p) => ({ target: '≤ 150 ms', pass: p <= 150 }),
      },
      {
        name: 'compatible',
        label: 'tick compatible (one symbol-day, every row)',
        request: () => ({ symbol: deep[0], tradedate: day }),
        sql: () => `SELECT ${SELECT_LIST} FROM read_parquet('${abs(day, deep[0])}') ORDER BY time`,
        variants: 1,
        check: (_p, r) => ({ target: '≤ 0.5x', pass: r <= 0.5 }),
      },
    ];
    const figures: Figure[] = [];
    for (const c of cases) figures.push(await runCase(c, server.url, apikey, con, iterations, log));
    await stopServer(server);
    const dayDir = join(dataDir, 'index', `date=${day}`);
    const catalogFiles = ['catalog.db', 'catalog.db-wal'].map((f) => join(dataDir, f)).filter((f) => existsSync(f));
    const partFiles = new CatalogReader(openCatalog(layoutFor(dataDir).catalogDb, true)).boundaryParts('index', day).map((p) => join(dataDir, p.path));
    const cold = await runColdCase(
      {
        name: 'boundary-first-touch',
        label: `tick boundary (${scale.wideIndexes} indexes, whole market)`,
        request: (i) => cases[0].request(i * 5),
        sql: (i) => cases[0].sql(i * 5),
        files: [...readdirSync(dayDir).map((f) => join(dayDir, f)), ...partFiles, ...catalogFiles],
        target: (p, r) => ({ target: '≤ 50 ms and ≤ 0.05x', pass: p <= 50 && r <= 0.05 }),
      },
      dataDir,
      now,
      apikey,
      coldTrials,
      log,
    );
    return { scale: { ...scale, ...counts }, generateMs, figures, cold };
  } finally {
    con.closeSync();
    agent.destroy();
    if (server.child.exitCode === null) server.child.kill('SIGTERM');
    if (!opts.dataDir) await rm(dataDir, { recursive: true, force: true });
  }
}

function flag(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const num = (name: string) => (flag(args, name) === undefined ? undefined : Number(flag(args, name)));
  const result = await runTickHistoryBench({
    wideIndexes: num('wide-indexes'),
    wideDays: num('wide-days'),
    deepIndexes: num('deep-indexes'),
    deepDays: num('deep-days'),
    iterations: num('iterations'),
    coldTrials: num('cold-trials'),
    dataDir: flag(args, 'data-dir'),
  });
  process.exitCode = [...result.figures, ...result.cold].every((f) => f.sameRows) ? 0 : 1;
}
