/**
 * The shared state on PostgreSQL against the embedded SQLite default, same machine, same run:
 *
 *   node dist/bench/sharedState.bench.js [--stocks 20] [--days 3] [--seconds 10] [--connections 64]
 *
 * - slot acquire + release (what every level2 request pays for the one-request rule): p50 and
 *   p99 on each store; target p50 ≤ 1 ms on PostgreSQL;
 * - statements per request, counted by the store (one admission = one round trip);
 * - throughput: `connections` wrk clients, one account each, over two `tickvault serve`
 *   processes on one data directory, full-day level2 pages: first on service.db, then on one
 *   PostgreSQL database (`--state-url`); target ≥ 150 req/s on PostgreSQL, with the ratio.
 *
 * PostgreSQL: TICKVAULT_BENCH_STATE_URL when set, else a throwaway cluster of Debian's
 * postgresql (the test harness's); without either the benchmark says so and skips.
 */
import { availableParallelism } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CatalogReader, openCatalog, type CatalogFile } from '../storage/catalog.js';
import { offsetClock, parseInstant } from '../shared/clock.js';
import { layoutFor } from '../storage/layout.js';
import { createLogger } from '../shared/logger.js';
import { createApp } from '../serve/http/app.js';
import { createOperations } from '../serve/operations.js';
import { SqliteStateStore } from '../serve/access/sqliteState.js';
import { PostgresStateStore } from '../serve/access/postgresState.js';
import { SlotLeases } from '../serve/access/slots.js';
import type { StateStore } from '../serve/access/stateStore.js';
import { postgresBinDir, startPostgres, type TestPostgres } from '../test/support/postgres.js';
import { Client, NOW, prepareData, quantile, startChildServer, type ChildServer } from './serverLoad.js';
import { loadServers, wrkPath, type LoadFigures } from './wrkLoad.js';

const API = 'level2_quote_history';

export interface SharedStateBenchOptions {
  stocks?: number;
  days?: number;
  seconds?: number;
  connections?: number;
  slotIterations?: number;
  log?: (line: string) => void;
}

export interface SharedStateFigures {
  readonly slotP50Ms: { readonly sqlite: number; readonly postgres: number };
  readonly statementsPerRequest: Readonly<Record<string, number>>;
  readonly rps: { readonly sqlite: number; readonly postgres: number };
}

/** The two stores under test, over one prepared data directory. */
interface StateRig {
  readonly log: (line: string) => void;
  readonly dataDir: string;
  readonly stateUrl: string;
  readonly sqlite: SqliteStateStore;
  readonly postgres: PostgresStateStore;
}

export async function runSharedStateBench(opts: SharedStateBenchOptions = {}): Promise<SharedStateFigures | null> {
  const log = opts.log ?? ((l: string) => console.log(l));
  const external = process.env.TICKVAULT_BENCH_STATE_URL;
  if (!external && postgresBinDir() === null) {
    log('shared state: skipped — no PostgreSQL (apt-get install postgresql, or set TICKVAULT_BENCH_STATE_URL)');
    return null;
  }
  const tmp = mkdtempSync(join(tmpdir(), 'tickvault-bench-state-'));
  const toClose: (() => void | Promise<void>)[] = [];
  try {
    const rig = await openStores(join(tmp, 'data'), external, opts.stocks ?? 20, opts.days ?? 3, log, toClose);
    const slotP50Ms = await slotLatency(rig, opts.slotIterations ?? 3000);
    const statementsPerRequest = await countStatements(rig.postgres, rig.dataDir, log);
    const rps = await throughputOnEach(rig, opts.connections ?? 64, opts.seconds ?? 10);
    return { slotP50Ms, statementsPerRequest, rps };
  } finally {
    for (const close of toClose.reverse()) await close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Setup: PostgreSQL (the given one, or a throwaway cluster), the data, and a store on each. */
async function openStores(
  dataDir: string,
  external: string | undefined,
  stocks: number,
  days: number,
  log: (line: string) => void,
  toClose: (() => void | Promise<void>)[],
): Promise<StateRig> {
  let cluster: TestPostgres | null = null;
  if (!external) {
    cluster = await startPostgres();
    toClose.push(() => cluster!.stop());
  }
  const stateUrl = external ?? (await cluster!.createDatabase());
  log(
    `machine: ${cpus().length} cores, load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')} at start; PostgreSQL ${external ? 'at TICKVAULT_BENCH_STATE_URL' : 'throwaway cluster on this machine (fsync off)'}`,
  );
  await prepareData(dataDir, stocks, days, log);
  const layout = layoutFor(dataDir);
  const sqlite = new SqliteStateStore({ path: layout.serviceDb, cursorKeyFile: layout.cursorKeyFile });
  const postgres = await PostgresStateStore.open({ url: stateUrl });
  toClose.push(
    () => sqlite.close(),
    () => postgres.close(),
  );
  return { log, dataDir, stateUrl, sqlite, postgres };
}

/** Slot acquire + release, one after the other as a level2 request does them; p50 past the first 100. */
async function slotLatency(rig: StateRig, slotIterations: number): Promise<SharedStateFigures['slotP50Ms']> {
  const slotP50Ms = { sqlite: 0, postgres: 0 };
  for (const [name, store] of [
    ['sqlite', rig.sqlite],
    ['postgres', rig.postgres],
  ] as const) {
    const slots = new SlotLeases(store, 30_000);
    const ms: number[] = [];
    for (let i = 0; i < slotIterations; i++) {
      const t0 = performance.now();
      const slot = await slots.tryAcquire(2_000_000 + (i % 64), API);
      if (!slot) throw new Error('slot unexpectedly held');
      await slot.release();
      ms.push(performance.now() - t0);
    }
    slotP50Ms[name] = quantile(ms.slice(100), 0.5);
    rig.log(
      `slot acquire + release on ${name}: p50 ${(slotP50Ms[name] * 1000).toFixed(0)} µs, p99 ${(quantile(ms.slice(100), 0.99) * 1000).toFixed(0)} µs` +
        (name === 'postgres' ? ` (target p50 ≤ 1,000 µs; ${(slotP50Ms.postgres / slotP50Ms.sqlite).toFixed(1)}× SQLite)` : ''),
    );
  }
  return slotP50Ms;
}

/** Throughput: the same load on each store (SQLite first, PostgreSQL then beside it); NaN when wrk is not installed. */
async function throughputOnEach(rig: StateRig, connections: number, seconds: number): Promise<SharedStateFigures['rps']> {
  const rps = { sqlite: NaN, postgres: NaN };
  if (!wrkPath()) {
    rig.log('throughput: skipped: wrk, the load generator of these figures, is not installed (apt-get install wrk)');
    return rps;
  }
  const catalog = new CatalogReader(openCatalog(layoutFor(rig.dataDir).catalogDb, true));
  const files = [...catalog.everyFile()].filter((f) => f.dataset === 'level2');
  catalog.db.close();
  for (const [name, store, env] of [
    // The warm-up pages through every file with one key: no per-second limit in the way.
    ['sqlite', rig.sqlite, { TICKVAULT_RATE_LIMIT: '100000' }],
    ['postgres', rig.postgres, { TICKVAULT_RATE_LIMIT: '100000', TICKVAULT_STATE_URL: rig.stateUrl }],
  ] as const) {
    const load = await throughputOn(rig.dataDir, store, env, files, connections, seconds);
    rps[name] = load.rps;
    rig.log(
      `throughput on ${name}: ${rps[name].toFixed(0)} req/s full-day pages, p50 ${load.p50Ms.toFixed(0)} ms, p99 ${load.p99Ms.toFixed(0)} ms, ` +
        `${load.failed} not 200 (${connections} clients/accounts over 2 processes, load from wrk: ${load.generatorCores.toFixed(2)} cores` +
        (name === 'postgres' ? `; target ≥ 150 req/s; ${(rps.postgres / rps.sqlite).toFixed(2)}× the same load on SQLite)` : ')'),
    );
  }
  return rps;
}

/** Two server processes on one store (`env` points them at it), warmed on every file, then `connections` accounts of wrk load. */
async function throughputOn(
  dataDir: string,
  store: StateStore,
  env: Record<string, string>,
  files: readonly CatalogFile[],
  connections: number,
  seconds: number,
): Promise<LoadFigures> {
  const body = (key: string, f: { symbol: string; tradedate: string }) =>
    JSON.stringify({ apiname: API, apikey: key, params: { symbol: f.symbol, tradedate: f.tradedate } });
  const servers: ChildServer[] = await Promise.all([startChildServer(dataDir, env), startChildServer(dataDir, env)]);
  try {
    const warmKey = (await store.createAccount('flagship', Date.now())).key;
    for (const s of servers) {
      const warm = new Client(`${s.url}/api`);
      for (const f of files) {
        const r = await warm.post(body(warmKey, f));
        if (r.status !== 200) throw new Error(`warm-up answered ${r.status}: ${r.text().slice(0, 200)}`);
      }
      warm.close();
    }
    const keys: string[] = [];
    for (let i = 0; i < connections; i++) keys.push((await store.createAccount('flagship', Date.now())).key);
    return await loadServers(
      servers.map((sv) => `${sv.url}/api`),
      API,
      keys,
      files,
      seconds,
    );
  } finally {
    for (const s of servers) s.child.kill('SIGTERM');
  }
}

/**
 * Statements the store sends per request, by kind of request, through an in-process server
 * on PostgreSQL: authentication, the per-second window, each daily count and the slot's
 * acquire and release are one statement each.
 */
async function countStatements(store: StateStore, dataDir: string, log: (l: string) => void): Promise<Record<string, number>> {
  const catalogDb = openCatalog(layoutFor(dataDir).catalogDb, true);
  const catalog = new CatalogReader(catalogDb);
  const file = [...catalog.everyFile()].find((f) => f.dataset === 'level2')!;
  const served = createOperations({
    dataDir,
    catalog,
    cursorKey: await store.cursorKey(),
    cacheBytes: 256 << 20,
    jsonThreads: availableParallelism(),
    log: createLogger('warn', 'bench'),
  });
  const app = createApp({
    catalog,
    state: store,
    clock: offsetClock(parseInstant(NOW)!),
    log: createLogger('warn', 'bench'),
    operations: served.operations,
    config: { rateLimitPerSec: 1_000_000, leaseMs: 30_000 },
  });
  const server = createServer(app.koa.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const client = new Client(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api`);
  const out: Record<string, number> = {};
  try {
    const cases: [string, 'flagship' | 'trial', Record<string, unknown>][] = [
      ['level2 JSON page (flagship)', 'flagship', {}],
      ['level2 Parquet download (flagship)', 'flagship', { format: 'parquet' }],
      ['level2 JSON page (trial: + daily call)', 'trial', {}],
    ];
    const n = 50;
    for (const [label, plan, extra] of cases) {
      const key = (await store.createAccount(plan, Date.now())).key;
      const before = store.roundTrips;
      for (let i = 0; i < n; i++) {
        const r = await client.post(JSON.stringify({ apiname: API, apikey: key, params: { symbol: file.symbol, tradedate: file.tradedate, ...extra } }));
        if (r.status !== 200) throw new Error(`${label}: ${r.status} ${r.text().slice(0, 200)}`);
      }
      out[label] = (store.roundTrips - before) / n;
    }
    log(
      `statements per request on PostgreSQL (each admission one round trip): ` +
        Object.entries(out)
          .map(([k, v]) => `${k} ${v.toFixed(2)}`)
          .join(', ') +
        ' — authenticate, per-second window, [daily count], slot acquire, [Parquet quota], slot release',
    );
    return out;
  } finally {
    client.close();
    await new Promise<void>((r) => server.close(() => r()));
    catalogDb.close();
  }
}

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const num = (name: string) => (flag(name) === undefined ? undefined : Number(flag(name)));
  await runSharedStateBench({ stocks: num('stocks'), days: num('days'), seconds: num('seconds'), connections: num('connections') });
}
