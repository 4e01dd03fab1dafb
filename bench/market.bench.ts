/**
 * A whole market's day (issue: speed 2, target 2), run on its own — not in `npm bench`'s
 * default set, not in `npm test`:
 *
 *   npm run bench -- --only market        (or node dist/bench/market.bench.js [--stocks N] [--indexes N] [--keep DIR])
 *
 * 5,000 stocks + 1,000 indexes, one trading day (≈ 30 M snapshots), through the commands a
 * user runs: `tickvault generate` to a .jsonl.zst feed, `tickvault replay` of it (staging and
 * sealing), each in a process of its own, with wall time, rows/s and peak RSS; then queries
 * against that day: the whole-market tick_history boundary from a new server process (first
 * touch, then warm) against DuckDB over the same files, and the level-2 query benchmark.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { runLevel2QueryBench } from './level2Query.bench.js';
import { Client, FIRST_DAY, p50, startChildServer } from './serverLoad.js';
import { generateFeedFile, generateRate } from './feedGenerate.js';
import { replayFeed } from './storage.bench.js';
import { openServiceDb } from '../serve/access/serviceDb.js';
import { AccountStore } from '../serve/access/accounts.js';

export interface MarketBenchOptions {
  stocks?: number;
  indexes?: number;
  /** Keep the data directory here (and reuse it when it already holds the day). */
  keep?: string;
  log?: (line: string) => void;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;

export async function runMarketBench(opts: MarketBenchOptions = {}): Promise<void> {
  const log = opts.log ?? ((l: string) => console.log(l));
  const dir = opts.keep ?? mkdtempSync(join(tmpdir(), 'tickvault-market-'));
  const dataDir = join(dir, 'data');
  try {
    if (!holdsSealedDay(dataDir)) await sealMarketDay(dir, dataDir, opts.stocks ?? 5000, opts.indexes ?? 1000, log);
    else log(`market: reusing the sealed day in ${dataDir}`);
    await boundaryQuery(dataDir, log);
    // The level-2 query benchmark, on this day's files.
    await runLevel2QueryBench({ dataDir, iterations: 30, seconds: 10, log: (l) => log(`market ${l}`) });
  } finally {
    if (!opts.keep) rmSync(dir, { recursive: true, force: true });
  }
}

/** A kept directory already holds the day when it has a catalog (`--keep` reuses it). */
function holdsSealedDay(dataDir: string): boolean {
  try {
    return statSync(join(dataDir, 'catalog.db')).isFile();
  } catch {
    return false;
  }
}

/** Setup, measured: the day's feed generated, then replayed (staged and sealed) into `dataDir`, each a process of its own. */
async function sealMarketDay(dir: string, dataDir: string, stocks: number, indexes: number, log: (line: string) => void): Promise<void> {
  const feed = join(dir, 'market.jsonl.zst');
  log(`market: ${fmt(stocks)} stocks + ${fmt(indexes)} indexes, one trading day (${FIRST_DAY}), snapshots only`);
  const g = await generateFeedFile(feed, [
    '--from',
    FIRST_DAY,
    '--days',
    '1',
    '--stocks',
    String(stocks),
    '--indexes',
    String(indexes),
    '--ticks',
    '0',
    '--seed',
    'market',
  ]);
  log(`market generate: ${generateRate(g)}, feed ${mib(statSync(feed).size)}, peak RSS ${mib(g.peakRss)}`);
  const r = await replayFeed(feed, dataDir);
  rmSync(feed, { force: true });
  log(
    `market replay: ${fmt(r.lines)} snapshots in ${(r.wallMs / 1000).toFixed(1)} s (${fmt((r.lines * 1000) / r.wallMs)} rows/s; staging ${(r.stagingMs / 1000).toFixed(1)} s, ` +
      `sealing ${(r.sealingMs / 1000).toFixed(1)} s, ${fmt((r.rows * 1000) / r.sealingMs)} rows/s), peak RSS ${mib(r.peakRssBytes)} (${(r.peakRssBytes / 2 ** 30).toFixed(2)}x limit 1 GiB)`,
  );
  if (r.rowText) {
    // Made after the listing (the day is in the window): in the replay's wall time, not its sealing.
    const t = r.rowText;
    log(
      `market row text: ${fmt(t.made)} level-2 files, ${(t.madeBytes / 1e6).toFixed(0)} MB, ${(t.ms / 1000).toFixed(1)} s wall, ${(t.cpuMs / 1000).toFixed(1)} s CPU ` +
        `(${((100 * t.cpuMs) / (t.cpuMs + r.sealingCpuMs)).toFixed(1)}% of the seal's ${(r.sealingCpuMs / 1000).toFixed(1)} s CPU and its own; target ≤ 20%)`,
    );
  }
  log(`market end to end: ${((g.wallS * 1000 + r.wallMs) / 1000).toFixed(1)} s from nothing to a sealed whole-market day`);
}

/** tick_history boundary over every index of the day: a new server process (first touch), then warm, against DuckDB. */
async function boundaryQuery(dataDir: string, log: (line: string) => void): Promise<void> {
  const db = openServiceDb(join(dataDir, 'service.db'));
  const key = new AccountStore(db).create('flagship', Date.now()).key;
  db.close();
  const server = await startChildServer(dataDir, { TICKVAULT_RATE_LIMIT: '1000000' });
  const client = new Client(`${server.url}/api`);
  try {
    const body = JSON.stringify({ apiname: 'tick_history', apikey: key, params: { tradedate: FIRST_DAY, trademin: '1000', side: 'before' } });
    const first = await client.post(body);
    if (first.status !== 200) throw new Error(`boundary answered ${first.status}: ${first.text().slice(0, 200)}`);
    const rows = (JSON.parse(first.text()) as { data: { items: unknown[] } }).data.items.length;
    const warm: number[] = [];
    for (let i = 0; i < 20; i++) warm.push((await client.post(body)).ms);
    const duckP50 = p50(await duckBoundaryMs(dataDir));
    log(
      `market boundary (${fmt(rows)} indexes, before 10:00): first touch in a new server ${first.ms.toFixed(0)} ms (${(first.ms / duckP50).toFixed(2)}x duckdb ${duckP50.toFixed(0)} ms), warm p50 ${p50(warm).toFixed(1)} ms (${(p50(warm) / duckP50).toFixed(3)}x)`,
    );
  } finally {
    client.close();
    server.child.kill('SIGTERM');
  }
}

/** DuckDB answering the same boundary over the day's index files, three times: each answer's ms. */
async function duckBoundaryMs(dataDir: string): Promise<number[]> {
  const inst = await DuckDBInstance.create(':memory:');
  const con = await inst.connect();
  const glob = join(dataDir, 'index', `date=${FIRST_DAY}`, '*.parquet').replaceAll("'", "''");
  const duck: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    const r = await con.runAndReadAll(
      `SELECT * FROM read_parquet('${glob}', hive_partitioning = false) WHERE time < '${FIRST_DAY.slice(0, 4)}-${FIRST_DAY.slice(4, 6)}-${FIRST_DAY.slice(6)} 10:00:00.000' QUALIFY row_number() OVER (PARTITION BY symbol ORDER BY time DESC) = 1 ORDER BY symbol`,
    );
    JSON.stringify(r.getRowsJS().map((row) => row.map((v) => (typeof v === 'bigint' ? Number(v) : v))));
    duck.push(performance.now() - t0);
  }
  con.closeSync();
  inst.closeSync();
  return duck;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  await runMarketBench({
    stocks: arg('stocks') ? Number(arg('stocks')) : undefined,
    indexes: arg('indexes') ? Number(arg('indexes')) : undefined,
    keep: arg('keep'),
  });
}
