/**
 * level2_trade_history performance (issue: trades and orders 2 of 2), each figure beside DuckDB
 * answering the same question in the same run:
 *
 *   node dist/bench/tradeQuery.bench.js [--stocks 6] [--data-dir DIR]
 *
 * A liquid stock's day of trades (`generate --ticks 60`: ~107,000 trades), paged at 10,000
 * rows by cursor over HTTP to an in-process server:
 * - first touch: every page of a file this process never read (its row groups decoded and
 *   serialised on the way), p50 over the pages of every file;
 * - warm: the same pages again (served from the cache);
 * - DuckDB: the same page of the same file (`read_parquet … LIMIT 10000 OFFSET k`, rows
 *   materialised, the same envelope `JSON.stringify`-ed), interleaved with ours so machine
 *   load hits both alike.
 * Goals (the level-2 page's): warm ≤ 0.1×, first touch ≤ 0.25× DuckDB.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { CatalogFile } from '../storage/catalog.js';
import { SCHEMAS } from '../shared/schema.js';
import { p50, prepareData, startInProcessServer, type InProcessServer } from './serverLoad.js';

const API = 'level2_trade_history';
const PAGE = 10_000;
const TICKS = 60;

export interface TradeQueryBenchOptions {
  stocks?: number;
  dataDir?: string;
  log?: (line: string) => void;
}

export interface TradeQueryBenchFigures {
  readonly rowsPerDay: number;
  readonly pages: number;
  readonly duckdbP50Ms: number;
  readonly firstTouchP50Ms: number;
  readonly firstTouchRatio: number;
  readonly warmP50Ms: number;
  readonly warmRatio: number;
}

/** DuckDB answering the same page: rows materialised, same envelope stringified. */
async function duckPage(con: DuckDBConnection, dataDir: string, file: CatalogFile, offset: number): Promise<number> {
  const started = performance.now();
  const path = join(dataDir, file.path).replaceAll("'", "''");
  const reader = await con.runAndReadAll(`SELECT * FROM read_parquet('${path}', hive_partitioning = false) LIMIT ${PAGE} OFFSET ${offset}`);
  // BIGINT ids arrive as bigint, which JSON cannot hold: as numbers, the way the API writes them.
  const items = reader.getRowsJS().map((row) => row.map((v) => (typeof v === 'bigint' ? Number(v) : v)));
  JSON.stringify({
    code: 200,
    message: 'success',
    data: { fields: SCHEMAS.trade.fieldNames, items, tradedate: file.tradedate, page_size: PAGE, next_cursor: 'c1…', has_more: offset + PAGE < file.rows },
  });
  return performance.now() - started;
}

export async function runTradeQueryBench(opts: TradeQueryBenchOptions = {}): Promise<TradeQueryBenchFigures> {
  const log = opts.log ?? ((l: string) => console.log(l));
  const stocks = opts.stocks ?? 6;
  const tmp = opts.dataDir ? null : mkdtempSync(join(tmpdir(), 'tickvault-trade-bench-'));
  const dataDir = opts.dataDir ?? join(tmp!, 'data');
  const toClose: (() => void | Promise<void>)[] = [];
  try {
    await prepareData(dataDir, stocks, 1, log, TICKS);
    const srv = await startInProcessServer(dataDir);
    toClose.push(() => srv.close());
    const files = [...srv.catalog.everyFile()].filter((f) => f.dataset === 'trade');
    if (files.length < 2) throw new Error(`expected trade files of ${stocks} stocks, found ${files.length}`);
    const instance = await DuckDBInstance.create(':memory:');
    const con = await instance.connect();
    toClose.push(() => con.closeSync());
    const ours = (f: CatalogFile) => dayPages(srv, f);
    const duck = (f: CatalogFile, offset: number) => duckPage(con, dataDir, f, offset);
    const touched = files.slice(0, -1);
    const times = await timePages(ours, duck, files[files.length - 1], touched);
    return reportTrades(times, touched, log);
  } finally {
    for (const close of toClose.reverse()) await close();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }
}

/** Every page of a file by cursor from our server: each page's time, and its offset for DuckDB's turn. */
async function dayPages(srv: InProcessServer, f: CatalogFile): Promise<{ ms: number; offset: number }[]> {
  const out: { ms: number; offset: number }[] = [];
  let cursor: string | null = null;
  for (let offset = 0; ; offset += PAGE) {
    const params = { symbol: f.symbol, tradedate: f.tradedate, page_size: PAGE, ...(cursor ? { cursor } : {}) };
    const r = await srv.client.post(JSON.stringify({ apiname: API, apikey: srv.key, params }));
    if (r.status !== 200) throw new Error(`${API} answered ${r.status}: ${r.text().slice(0, 200)}`);
    out.push({ ms: r.ms, offset });
    // The envelope ends with next_cursor, has_more and the version: read them from the tail, not by parsing 1 MB.
    const tail = /"next_cursor":(null|"([^"]+)"),"has_more":(?:true|false)(?:,"version":\d+)?\}\}$/.exec(r.text().slice(-400));
    if (!tail) throw new Error('a page without next_cursor');
    cursor = tail[2] ?? null;
    if (cursor === null) return out;
  }
}

interface PageTimes {
  readonly first: number[];
  readonly warm: number[];
  readonly duck: number[];
}

/**
 * Measure: both JITs warmed on `spare` (timed nowhere), then every page of the touched files
 * first touch, then three warm rounds, each page followed by DuckDB's same page.
 */
async function timePages(
  ours: (f: CatalogFile) => Promise<{ ms: number; offset: number }[]>,
  duck: (f: CatalogFile, offset: number) => Promise<number>,
  spare: CatalogFile,
  touched: readonly CatalogFile[],
): Promise<PageTimes> {
  for (let i = 0; i < 3; i++) {
    await ours(spare);
    for (let o = 0; o < spare.rows; o += PAGE) await duck(spare, o);
  }
  const times: PageTimes = { first: [], warm: [], duck: [] };
  const round = async (into: number[]) => {
    for (const f of touched) {
      for (const p of await ours(f)) {
        into.push(p.ms);
        times.duck.push(await duck(f, p.offset));
      }
    }
  };
  await round(times.first);
  for (let r = 0; r < 3; r++) await round(times.warm);
  return times;
}

function reportTrades({ first, warm, duck }: PageTimes, touched: readonly CatalogFile[], log: (line: string) => void): TradeQueryBenchFigures {
  const rowsPerDay = Math.round(touched.reduce((a, f) => a + f.rows, 0) / touched.length);
  const figures: TradeQueryBenchFigures = {
    rowsPerDay,
    pages: first.length,
    duckdbP50Ms: p50(duck),
    firstTouchP50Ms: p50(first),
    firstTouchRatio: p50(first) / p50(duck),
    warmP50Ms: p50(warm),
    warmRatio: p50(warm) / p50(duck),
  };
  log(
    `trades: ${touched.length} liquid stock-days of ~${rowsPerDay.toLocaleString('en-US')} trades (--ticks ${TICKS}), paged at ${PAGE.toLocaleString('en-US')} rows by cursor (${first.length} first-touch pages)`,
  );
  log(
    `trades page first touch p50: ${figures.firstTouchP50Ms.toFixed(1)} ms (${figures.firstTouchRatio.toFixed(2)}x duckdb ${figures.duckdbP50Ms.toFixed(1)} ms; goal ≤ 0.25x)`,
  );
  log(`trades page warm p50: ${figures.warmP50Ms.toFixed(1)} ms (${figures.warmRatio.toFixed(2)}x duckdb ${figures.duckdbP50Ms.toFixed(1)} ms; goal ≤ 0.1x)`);
  return figures;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  await runTradeQueryBench({ stocks: arg('stocks') ? Number(arg('stocks')) : undefined, dataDir: arg('data-dir') });
}
