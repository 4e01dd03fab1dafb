/**
 * level2_quote_history performance, each figure beside its reference or target, computed in
 * the same run:
 *
 *   node dist/bench/level2Query.bench.js [--stocks 20] [--days 3] [--iterations 40]
 *     [--seconds 10] [--connections 64] [--data-dir DIR]
 *
 * - Full-day page, every field (5,001 rows, ~1.6 MB of JSON), over HTTP to an in-process
 *   server: warm (cached) p50 and first touch (a file this process never read) p50, against
 *   DuckDB in-process reading the same file (`read_parquet`, rows materialised, the same
 *   envelope `JSON.stringify`-ed) — p50 over the same files, interleaved with ours so machine
 *   load hits both alike. Then first touch in new `tickvault serve` processes (JIT warmed on
 *   another file) against new DuckDB instances, with the page cache warm and with the files
 *   evicted (dd iflag=nocache); and, page cache warm, without row text (a day outside the
 *   row-text window, made from the Parquet file: target ≤ 0.25× DuckDB).
 * - Throughput: `connections` wrk clients, each its own account, over two `tickvault
 *   serve` processes on one data directory, full-day pages of random stock-days.
 * - Parquet download p50 (whole stored file over loopback).
 * - Slot acquire + release on service.db (what every level2 request pays for the rule).
 *
 * Data: `tickvault generate` + `tickvault replay` (the real pipeline) into a temp dir, or
 * reused from --data-dir.
 */
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { CatalogFile } from '../storage/catalog.js';
import { SCHEMAS } from '../shared/schema.js';
import { rowTextRelPath } from '../storage/layout.js';
import { rowTextOf } from '../storage/rowText/rowTextBuild.js';
import { encodeParquet } from '../storage/parquet/writer.js';
import { readSealedDay } from '../ingest/import/sealedRows.js';
import { SlotLeases } from '../serve/access/slots.js';
import { evictFromPageCache, pageCacheState, residentBytes } from './pageCache.js';
import { Client, cpuSeconds, p50, prepareData, startChildServer, startInProcessServer, stopChild, type InProcessServer } from './serverLoad.js';
import { loadServers, wrkPath, type LoadFigures } from './wrkLoad.js';

const API = 'level2_quote_history';
/** New server processes per page-cache state in the first-touch figure (8 pages each). */
const NEW_PROCESS_TRIALS = 3;

export interface Level2BenchOptions {
  stocks?: number;
  days?: number;
  iterations?: number;
  seconds?: number;
  connections?: number;
  dataDir?: string;
  log?: (line: string) => void;
}

export interface Level2BenchFigures {
  readonly rowsPerPage: number;
  readonly pageBytes: number;
  readonly duckdbP50Ms: number;
  readonly warmP50Ms: number;
  readonly warmRatio: number;
  readonly firstTouchP50Ms: number;
  readonly firstTouchRatio: number;
  readonly cacheBytesPerFile: number;
  /** First touch in new server processes (a file each never read), per page-cache state. */
  readonly newProcessFirstTouch: readonly NewProcessFirstTouch[];
  /** The same without row text (days outside the row-text window: the column path), page cache warm. */
  readonly newProcessNoRowText: NewProcessFirstTouch;
  readonly throughputRps: number;
  readonly throughputP99Ms: number;
  readonly throughputNon200: number;
  /** CPU time (user + system) the two server processes spent per request in the throughput run. */
  readonly serverCpuMsPerRequest: number;
  readonly parquetP50Ms: number;
  readonly slotAcquireReleaseMs: number;
  readonly compressedFirstTouch: readonly CompressedFirstTouch[];
  readonly rowText: RowTextCost;
  /** The throughput run again, every client asking `gzip, deflate`. */
  readonly gzipThroughputRps: number;
  readonly gzipThroughputP99Ms: number;
}

export interface CompressedFirstTouch {
  readonly acceptEncoding: string;
  /** The coding the server chose. */
  readonly coding: string;
  readonly wireBytes: number;
  readonly p50Ms: number;
  /** Against DuckDB's first touch in new instances, page cache warm. */
  readonly ratio: number;
}

export interface RowTextCost {
  /** Row text bytes over Parquet bytes, level-2 files. */
  readonly bytesRatio: number;
  readonly sealMsPerFile: number;
  readonly encodeMsPerFile: number;
}

export interface NewProcessFirstTouch {
  /** `warm`: the files are in the page cache; `evicted`: dropped (dd iflag=nocache) before each process and each DuckDB instance. */
  readonly cache: 'warm' | 'evicted';
  readonly residentBytes: number | null;
  readonly totalBytes: number;
  readonly pages: number;
  readonly p50Ms: number;
  readonly duckdbP50Ms: number;
  readonly ratio: number;
}

/** DuckDB answering the same full-day page: rows materialised, same envelope stringified. */
export async function duckPage(con: DuckDBConnection, dataDir: string, file: CatalogFile): Promise<{ ms: number; bytes: number }> {
  const started = performance.now();
  const path = join(dataDir, file.path).replaceAll("'", "''");
  const reader = await con.runAndReadAll(`SELECT * FROM read_parquet('${path}', hive_partitioning = false)`);
  const items = reader.getRowsJS();
  const text = JSON.stringify({
    code: 200,
    message: 'success',
    data: { fields: SCHEMAS.level2.fieldNames, items, tradedate: file.tradedate, page_size: 10000, next_cursor: null, has_more: false },
  });
  return { ms: performance.now() - started, bytes: Buffer.byteLength(text) };
}

/** What every phase measures with: the data, the in-process server, a DuckDB connection, the request bodies. */
interface Level2Rig {
  readonly log: (line: string) => void;
  readonly dataDir: string;
  readonly srv: InProcessServer;
  readonly con: DuckDBConnection;
  /** Every level-2 file; the last is the spare that warms JITs and is timed nowhere. */
  readonly files: readonly CatalogFile[];
  readonly spare: CatalogFile;
  body(f: CatalogFile, extra?: Record<string, unknown>): string;
}

export async function runLevel2QueryBench(opts: Level2BenchOptions = {}): Promise<Level2BenchFigures> {
  const log = opts.log ?? ((l: string) => console.log(l));
  const iterations = opts.iterations ?? 40;
  const tmp = opts.dataDir ? null : mkdtempSync(join(tmpdir(), 'tickvault-bench-'));
  const dataDir = opts.dataDir ?? join(tmp!, 'data');
  const toClose: (() => void | Promise<void>)[] = [];
  try {
    await prepareData(dataDir, opts.stocks ?? 20, opts.days ?? 3, log);
    restoreRowText(dataDir);
    const rig = await openRig(dataDir, log, toClose);
    const inProcess = await inProcessPages(rig, iterations);
    const newProcessFirstTouch = await newProcessPages(rig);
    const newProcessNoRowText = await newProcessPagesWithoutRowText(rig, newProcessFirstTouch[0]!);
    const compressedFirstTouch = await compressedNewProcessPages(rig, newProcessFirstTouch[0]!.duckdbP50Ms);
    const rowText = await rowTextCost(rig);
    const parquetP50Ms = await parquetDownload(rig, inProcess.touched[0]);
    const slotAcquireReleaseMs = await slotCost(rig);
    const figures = { ...inProcess.figures, newProcessFirstTouch, newProcessNoRowText, parquetP50Ms, slotAcquireReleaseMs, compressedFirstTouch, rowText };
    return { ...figures, ...(await throughput(rig, opts.connections ?? 64, opts.seconds ?? 10, toClose)) };
  } finally {
    for (const close of toClose.reverse()) await close();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }
}

/** Setup: the in-process server over the prepared data and a DuckDB instance beside it, both JITs warmed. */
async function openRig(dataDir: string, log: (line: string) => void, toClose: (() => void | Promise<void>)[]): Promise<Level2Rig> {
  const load = loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
  log(`machine: ${cpus().length} cores, load average ${load} at start (figures below share the CPUs with whatever else runs)`);
  const srv = await startInProcessServer(dataDir);
  toClose.push(() => srv.close());
  const files = [...srv.catalog.everyFile()].filter((f) => f.dataset === 'level2');
  const body = (f: CatalogFile, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ apiname: API, apikey: srv.key, params: { symbol: f.symbol, tradedate: f.tradedate, ...extra } });

  const instance = await DuckDBInstance.create(':memory:');
  const con = await instance.connect();
  toClose.push(() => con.closeSync());

  // Warm both JITs on a file neither timing below uses.
  const spare = files[files.length - 1];
  for (let i = 0; i < 5; i++) {
    await srv.client.post(body(spare));
    await duckPage(con, dataDir, spare);
  }
  return { log, dataDir, srv, con, files, spare, body };
}

type InProcessFigures = Pick<
  Level2BenchFigures,
  'rowsPerPage' | 'pageBytes' | 'duckdbP50Ms' | 'warmP50Ms' | 'warmRatio' | 'firstTouchP50Ms' | 'firstTouchRatio' | 'cacheBytesPerFile'
>;

/** Full-day pages from the in-process server, first touch then warm, each interleaved with DuckDB on the same file. */
async function inProcessPages(rig: Level2Rig, iterations: number): Promise<{ figures: InProcessFigures; touched: readonly CatalogFile[] }> {
  const { log, dataDir, con, files, body } = rig;
  const { client, served } = rig.srv;
  // First touch: each file once for us, once for DuckDB, interleaved.
  const touch = files.slice(0, Math.min(files.length - 1, iterations));
  const firstMs: number[] = [];
  const duckMs: number[] = [];
  let pageBytes = 0;
  for (const f of touch) {
    const r = await client.post(body(f));
    if (r.status !== 200) throw new Error(`first touch answered ${r.status}: ${r.text().slice(0, 200)}`);
    firstMs.push(r.ms);
    pageBytes = r.bytes;
    duckMs.push((await duckPage(con, dataDir, f)).ms);
  }
  const cacheBytesPerFile = served.columns.usedBytes / (touch.length + 1);

  // Warm: the same files again (now cached), interleaved with DuckDB on the same file.
  const warmMs: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const f = touch[i % touch.length];
    warmMs.push((await client.post(body(f))).ms);
    duckMs.push((await duckPage(con, dataDir, f)).ms);
  }
  const duckdbP50Ms = p50(duckMs);
  const warmP50Ms = p50(warmMs);
  const firstTouchP50Ms = p50(firstMs);
  const rowsPerPage = touch[0].rows;
  log(`level2 full-day page: ${rowsPerPage} rows × 50 fields, ${(pageBytes / 1e6).toFixed(2)} MB JSON`);
  log(`level2 full-day warm p50: ${warmP50Ms.toFixed(1)} ms (${(warmP50Ms / duckdbP50Ms).toFixed(2)}x duckdb ${duckdbP50Ms.toFixed(1)} ms; target ≤ 0.1x)`);
  log(
    `level2 full-day first touch (a file this process never read) p50: ${firstTouchP50Ms.toFixed(1)} ms (${(firstTouchP50Ms / duckdbP50Ms).toFixed(2)}x duckdb ${duckdbP50Ms.toFixed(1)} ms; target ≤ 0.1x)`,
  );
  log(`level2 cache: ${(cacheBytesPerFile / 1048576).toFixed(2)} MiB per stock-day (decoded columns + serialised rows; TICKVAULT_CACHE_MB bounds the total)`);
  const figures = {
    rowsPerPage,
    pageBytes,
    duckdbP50Ms,
    warmP50Ms,
    warmRatio: warmP50Ms / duckdbP50Ms,
    firstTouchP50Ms,
    firstTouchRatio: firstTouchP50Ms / duckdbP50Ms,
    cacheBytesPerFile,
  };
  return { figures, touched: touch };
}

/** Trial `t`'s files: each new process answers files no other trial's process read. */
function trialFiles(files: readonly CatalogFile[], t: number): CatalogFile[] {
  return files
    .slice(0, files.length - 1)
    .filter((_, i) => i % NEW_PROCESS_TRIALS === t)
    .slice(0, 8);
}

/**
 * First touch in new processes: each trial a new `tickvault serve` (its JIT warmed on the
 * spare file, as a running server's is) answering files it never read, then a new DuckDB
 * instance (warmed alike) on the same files; with the page cache warm, then evicted.
 */
async function newProcessPages(rig: Level2Rig): Promise<NewProcessFirstTouch[]> {
  const { log, dataDir, files } = rig;
  const out: NewProcessFirstTouch[] = [];
  for (const cache of ['warm', 'evicted'] as const) {
    // Ours reads each file's row text, DuckDB the Parquet file: both are evicted alike.
    const paths = files.slice(0, files.length - 1).flatMap((f) => [join(dataDir, f.path), join(dataDir, rowTextRelPath(f.path))]);
    const totalBytes = paths.reduce((n, p) => n + statSync(p).size, 0);
    const resident = cache === 'evicted' ? evictFromPageCache(paths) : residentBytes(paths);
    const ours: number[] = [];
    const ref: number[] = [];
    for (let t = 0; t < NEW_PROCESS_TRIALS; t++) {
      const evict = () => {
        if (cache === 'evicted') evictFromPageCache(paths);
      };
      ours.push(...(await newServerTrial(rig, t, evict)));
      ref.push(...(await newDuckTrial(rig, t, evict)));
    }
    const fig = firstTouchFigure(cache, resident, totalBytes, ours, ref);
    out.push(fig);
    const state =
      cache === 'warm'
        ? pageCacheState('warm', resident, totalBytes)
        : pageCacheState('evicted before each process and each DuckDB instance', resident, totalBytes);
    log(
      `level2 full-day first touch in a new server process, ${state}: p50 ${fig.p50Ms.toFixed(1)} ms over ${fig.pages} pages in ${NEW_PROCESS_TRIALS} processes ` +
        `(${fig.ratio.toFixed(2)}x duckdb in new instances ${fig.duckdbP50Ms.toFixed(1)} ms; target ≤ 0.1x: ${fig.ratio <= 0.1 ? 'PASS' : 'MISS'})`,
    );
  }
  return out;
}

/**
 * First touch in new processes of days without row text (outside the row-text window): the
 * page is made from the Parquet file (decode, serialise, in the row-JSON workers), against new
 * DuckDB instances on the same files in the same trials, page cache warm. The row text is moved
 * aside for the phase (the spare's too, so the warm-up pages take the same path) and put back.
 * `withRowText`: the row-text figure of the same run, printed beside it.
 */
async function newProcessPagesWithoutRowText(rig: Level2Rig, withRowText: NewProcessFirstTouch): Promise<NewProcessFirstTouch> {
  const { log, dataDir, files } = rig;
  const rowTextDir = rowTextRoot(dataDir);
  const aside = `${rowTextDir}.aside`;
  const moved = existsSync(rowTextDir);
  if (moved) renameSync(rowTextDir, aside);
  try {
    const paths = files.slice(0, files.length - 1).map((f) => join(dataDir, f.path));
    // The evicted figure before this one left the files out of the page cache: read them back.
    for (const p of paths) readFileSync(p);
    const totalBytes = paths.reduce((n, p) => n + statSync(p).size, 0);
    const resident = residentBytes(paths);
    const ours: number[] = [];
    const ref: number[] = [];
    for (let t = 0; t < NEW_PROCESS_TRIALS; t++) {
      ours.push(...(await newServerTrial(rig, t, () => {})));
      ref.push(...(await newDuckTrial(rig, t, () => {})));
    }
    const fig = firstTouchFigure('warm', resident, totalBytes, ours, ref);
    log(
      `level2 full-day first touch in a new server process WITHOUT row text (a day outside the row-text window: the column path), ${pageCacheState('warm', resident, totalBytes)}: ` +
        `p50 ${fig.p50Ms.toFixed(1)} ms over ${fig.pages} pages in ${NEW_PROCESS_TRIALS} processes (${fig.ratio.toFixed(2)}x duckdb in new instances ${fig.duckdbP50Ms.toFixed(1)} ms; ` +
        `target ≤ 0.25x: ${fig.ratio <= 0.25 ? 'PASS' : 'MISS'}); with row text above ${withRowText.p50Ms.toFixed(1)} ms (${withRowText.ratio.toFixed(2)}x)`,
    );
    return fig;
  } finally {
    if (moved) renameSync(aside, rowTextDir);
  }
}

/** Where a data directory's row text lies (every file's, under one folder). */
function rowTextRoot(dataDir: string): string {
  return join(dataDir, rowTextRelPath('level2/x.parquet').split('/')[0]);
}

/** Row text a run stopped during the no-row-text phase left aside, put back. */
function restoreRowText(dataDir: string): void {
  const dir = rowTextRoot(dataDir);
  if (existsSync(`${dir}.aside`) && !existsSync(dir)) renameSync(`${dir}.aside`, dir);
}

/** One new server process's first-touch times over trial `t`'s files, after its JIT is warmed and `evict` has run. */
async function newServerTrial(rig: Level2Rig, t: number, evict: () => void): Promise<number[]> {
  const ms: number[] = [];
  const fresh = await startChildServer(rig.dataDir);
  try {
    const c = new Client(`${fresh.url}/api`);
    for (let i = 0; i < 5; i++) await c.post(rig.body(rig.spare));
    evict();
    for (const f of trialFiles(rig.files, t)) {
      const r = await c.post(rig.body(f));
      if (r.status !== 200) throw new Error(`first touch in a new process answered ${r.status}: ${r.text().slice(0, 200)}`);
      ms.push(r.ms);
    }
    c.close();
  } finally {
    await stopChild(fresh.child);
  }
  return ms;
}

/** The same for a new DuckDB instance. */
async function newDuckTrial(rig: Level2Rig, t: number, evict: () => void): Promise<number[]> {
  const ms: number[] = [];
  const inst = await DuckDBInstance.create(':memory:');
  const dcon = await inst.connect();
  try {
    for (let i = 0; i < 5; i++) await duckPage(dcon, rig.dataDir, rig.spare);
    evict();
    for (const f of trialFiles(rig.files, t)) ms.push((await duckPage(dcon, rig.dataDir, f)).ms);
  } finally {
    dcon.closeSync();
  }
  return ms;
}

/**
 * A compressed first touch in new processes, page cache warm: Python's httpx and requests by
 * default (`gzip, deflate, br`: gzip spliced from row text), and brotli alone (made at request
 * time from the row text's inflated rows). Held to the same target as identity, against
 * DuckDB's first touch in new instances with the page cache warm (`warmRef`).
 */
async function compressedNewProcessPages(rig: Level2Rig, warmRef: number): Promise<CompressedFirstTouch[]> {
  const { log, dataDir, files, spare, body } = rig;
  const { accounts, key } = rig.srv;
  const out: CompressedFirstTouch[] = [];
  for (const accept of ['gzip, deflate, br', 'br']) {
    const ours: number[] = [];
    let wireBytes = 0;
    let coding = '';
    for (let t = 0; t < NEW_PROCESS_TRIALS; t++) {
      const fresh = await startChildServer(dataDir);
      // An account of its own: these pages come faster than one account's per-second limit.
      const own = accounts.create('flagship', Date.now()).key;
      const ownBody = (f: CatalogFile) => body(f).replace(key, own);
      try {
        const c = new Client(`${fresh.url}/api`);
        for (let i = 0; i < 5; i++) await c.post(ownBody(spare), accept);
        for (const f of trialFiles(files, t)) {
          const r = await c.post(ownBody(f), accept);
          if (r.status !== 200) throw new Error(`compressed first touch answered ${r.status}`);
          ours.push(r.ms);
          wireBytes = r.bytes;
          coding = r.encoding ?? 'identity';
        }
        c.close();
      } finally {
        await stopChild(fresh.child);
      }
    }
    const fig: CompressedFirstTouch = { acceptEncoding: accept, coding, wireBytes, p50Ms: p50(ours), ratio: p50(ours) / warmRef };
    out.push(fig);
    log(
      `level2 full-day first touch in a new server process, compressed (Accept-Encoding: ${accept} → ${coding}, ${(wireBytes / 1e6).toFixed(2)} MB on the wire), page cache warm: ` +
        `p50 ${fig.p50Ms.toFixed(1)} ms (${fig.ratio.toFixed(2)}x duckdb in new instances ${warmRef.toFixed(1)} ms; target ≤ 0.1x: ${fig.ratio <= 0.1 ? 'PASS' : 'MISS'})`,
    );
  }
  return out;
}

/**
 * What row text costs: disk beside the Parquet bytes, and seal time beside the Parquet
 * encoding of the same rows (one thread, in this process).
 */
async function rowTextCost(rig: Level2Rig): Promise<RowTextCost> {
  const { log, dataDir, files } = rig;
  const sample = files.slice(0, Math.min(files.length, 10));
  const parquetBytes = files.reduce((n, f) => n + f.bytes, 0);
  const textBytes = files.reduce((n, f) => n + statSync(join(dataDir, rowTextRelPath(f.path))).size, 0);
  let encodeMs = 0;
  let textMs = 0;
  for (const f of sample) {
    const bytes = readFileSync(join(dataDir, f.path));
    const day = await readSealedDay(join(dataDir, f.path), 'level2');
    const width = day.values[0]!.length;
    const cols = {
      dataset: 'level2' as const,
      symbol: f.symbol,
      tradedate: f.tradedate,
      rows: day.values.length,
      timesMs: Int32Array.from(day.times),
      values: Array.from({ length: width }, (_, j) => Float64Array.from(day.values, (v) => v[j]!)),
    };
    let t0 = performance.now();
    await encodeParquet(cols, { rowGroupSize: SCHEMAS.level2.rowGroupSize });
    encodeMs += performance.now() - t0;
    t0 = performance.now();
    await rowTextOf(bytes, 'level2', f.sha256, f.path);
    textMs += performance.now() - t0;
  }
  const rowText: RowTextCost = { bytesRatio: textBytes / parquetBytes, sealMsPerFile: textMs / sample.length, encodeMsPerFile: encodeMs / sample.length };
  log(
    `level2 row text: ${(textBytes / 1e6).toFixed(1)} MB beside ${(parquetBytes / 1e6).toFixed(1)} MB of Parquet (${rowText.bytesRatio.toFixed(2)}x); ` +
      `${rowText.sealMsPerFile.toFixed(1)} ms per stock-day to make at seal (decode, serialise, deflate) against ${rowText.encodeMsPerFile.toFixed(1)} ms to encode its Parquet file ` +
      `(${(rowText.sealMsPerFile / rowText.encodeMsPerFile).toFixed(2)}x)`,
  );
  return rowText;
}

/** Parquet download p50, whole stored file (the first 10 of 60 downloads warm up). */
async function parquetDownload(rig: Level2Rig, pqFile: CatalogFile): Promise<number> {
  const pq: number[] = [];
  for (let i = 0; i < 60; i++) {
    const r = await rig.srv.client.post(rig.body(pqFile, { format: 'parquet' }));
    if (r.status !== 200 || r.bytes !== pqFile.bytes) throw new Error(`parquet download answered ${r.status}, ${r.bytes} bytes`);
    pq.push(r.ms);
  }
  const parquetP50Ms = p50(pq.slice(10));
  rig.log(`level2 parquet download p50: ${parquetP50Ms.toFixed(2)} ms for ${(pqFile.bytes / 1e6).toFixed(2)} MB (target ≤ 5 ms)`);
  return parquetP50Ms;
}

/** Slot acquire + release, on the same service.db, as every level2 request does it. */
async function slotCost(rig: Level2Rig): Promise<number> {
  const slots = new SlotLeases(rig.srv.state, 30_000);
  const n = 5000;
  const slotStart = performance.now();
  for (let i = 0; i < n; i++) await (await slots.tryAcquire(1_000_000 + (i % 64), API))!.release();
  const slotAcquireReleaseMs = (performance.now() - slotStart) / n;
  rig.log(`level2 slot acquire + release: ${(slotAcquireReleaseMs * 1000).toFixed(0)} µs per request (target ≤ 200 µs)`);
  return slotAcquireReleaseMs;
}

type ThroughputFigures = Pick<
  Level2BenchFigures,
  'throughputRps' | 'throughputP99Ms' | 'throughputNon200' | 'serverCpuMsPerRequest' | 'gzipThroughputRps' | 'gzipThroughputP99Ms'
>;

type PagesUnderLoad = LoadFigures & { serverCpuMsPerRequest: number; serverCores: number };

/**
 * Throughput: two server processes, one account per connection, random full-day pages. Each
 * process first serves every file once (steady state: over a whole market the cache holds a
 * few percent of the stock-days, so nearly every page is still a first touch). The load comes
 * from wrk (C): autocannon, before, parsed every response in JavaScript and took most of a
 * core for itself (bench/wrkLoad.ts). NaN throughout when wrk is not installed.
 */
async function throughput(rig: Level2Rig, connections: number, seconds: number, toClose: (() => void | Promise<void>)[]): Promise<ThroughputFigures> {
  const { log, dataDir, files, body } = rig;
  const { accounts, key } = rig.srv;
  if (!wrkPath()) {
    log('level2 throughput: skipped: wrk, the load generator of these figures, is not installed (apt-get install wrk)');
    return {
      throughputRps: NaN,
      throughputP99Ms: NaN,
      throughputNon200: NaN,
      serverCpuMsPerRequest: NaN,
      gzipThroughputRps: NaN,
      gzipThroughputP99Ms: NaN,
    };
  }
  // Per-second limits far above the load: the figure is the servers' pages, not a plan's limit.
  const noLimit = { TICKVAULT_RATE_LIMIT: '1000000' };
  const servers = await Promise.all([startChildServer(dataDir, noLimit), startChildServer(dataDir, noLimit)]);
  toClose.push(() => servers.forEach((s) => s.child.kill('SIGTERM')));
  const warmKey = accounts.create('flagship', Date.now()).key;
  for (const s of servers) {
    const warm = new Client(`${s.url}/api`);
    for (const f of files) await warm.post(body(f).replace(key, warmKey));
    warm.close();
  }
  const keys = Array.from({ length: connections }, () => accounts.create('flagship', Date.now()).key);
  const pagesUnderLoad = async (acceptEncoding?: string): Promise<PagesUnderLoad> => {
    const cpuBefore = servers.map((sv) => cpuSeconds(sv.child.pid));
    const figures = await loadServers(
      servers.map((sv) => `${sv.url}/api`),
      API,
      keys,
      files,
      seconds,
      acceptEncoding,
    );
    const cpuUsed = servers.reduce((a, sv, i) => a + (cpuSeconds(sv.child.pid) - cpuBefore[i]), 0);
    return { ...figures, serverCpuMsPerRequest: figures.requests > 0 ? (cpuUsed * 1000) / figures.requests : NaN, serverCores: cpuUsed / seconds };
  };
  const identity = await pagesUnderLoad();
  log(`level2 throughput: ${describeLoad(identity)} (${connections} clients/accounts over 2 processes; target ≥ 300 req/s, p99 ≤ 400 ms, 0 not 200)`);
  // The same load from clients that send Python's default Accept-Encoding (`gzip, deflate`):
  // pages go out as row text's stored chunks, spliced, inflated only for identity answers.
  const gz = await pagesUnderLoad('gzip, deflate');
  log(`level2 throughput, clients asking gzip: ${describeLoad(gz)}`);
  return {
    throughputRps: identity.rps,
    throughputP99Ms: identity.p99Ms,
    throughputNon200: identity.failed,
    serverCpuMsPerRequest: identity.serverCpuMsPerRequest,
    gzipThroughputRps: gz.rps,
    gzipThroughputP99Ms: gz.p99Ms,
  };
}

function describeLoad(f: PagesUnderLoad): string {
  return (
    `${f.rps.toFixed(0)} req/s full-day pages, p50 ${f.p50Ms.toFixed(0)} ms, p90 ${f.p90Ms.toFixed(0)} ms, p99 ${f.p99Ms.toFixed(0)} ms, max ${f.maxMs.toFixed(0)} ms, ` +
    `${f.failed} not 200, ${(f.bytes / Math.max(1, f.requests) / 1e6).toFixed(2)} MB a page on the wire; ` +
    `server CPU ${f.serverCpuMsPerRequest.toFixed(2)} ms a page (both processes: ${f.serverCores.toFixed(2)} of ${cpus().length} cores), ` +
    `load generator wrk ${f.generatorCores.toFixed(2)} cores`
  );
}

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const num = (name: string) => (flag(name) === undefined ? undefined : Number(flag(name)));
  await runLevel2QueryBench({
    stocks: num('stocks'),
    days: num('days'),
    iterations: num('iterations'),
    seconds: num('seconds'),
    connections: num('connections'),
    dataDir: flag('data-dir'),
  });
}

/** A new-process first-touch figure from our trials' and DuckDB's times. */
function firstTouchFigure(
  cache: NewProcessFirstTouch['cache'],
  resident: NewProcessFirstTouch['residentBytes'],
  totalBytes: number,
  ours: number[],
  ref: number[],
): NewProcessFirstTouch {
  return { cache, residentBytes: resident, totalBytes, pages: ours.length, p50Ms: p50(ours), duckdbP50Ms: p50(ref), ratio: p50(ours) / p50(ref) };
}
