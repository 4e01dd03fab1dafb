/**
 * Storage-core figures (issue: storage core): replay end to end from a .jsonl.zst feed to
 * sealed files, seal throughput against DuckDB writing the same rows, and peak RSS as the day
 * grows from S to 4·S stocks. Each replay runs as its own `tickvault replay` process, as a user
 * runs it; its figures come from the process's final structured log line.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { readdirSync, statSync, type Dirent } from 'node:fs';
import Database from 'better-sqlite3';
import { DATASETS } from '../shared/schema.js';
import { runParquetEncodeBench } from './parquetEncode.bench.js';

export const CLI = join(fileURLToPath(new URL('.', import.meta.url)), '..', 'cli', 'main.js');
const NOW = '2025-01-03T16:30:00+08:00';

export interface StorageBenchOptions {
  stocks?: number;
  /** Stocks of the 60-day lake of the derived-bytes figure (default 10). */
  derivedStocks?: number;
  /** Stocks of the larger day for the memory-growth figure (default 4 × stocks). */
  bigStocks?: number;
  log?: (line: string) => void;
}

export interface ReplayFigures {
  readonly lines: number;
  readonly rows: number;
  readonly wallMs: number;
  readonly stagingMs: number;
  readonly sealingMs: number;
  /** CPU of every thread of the process while it sealed (row text not included: it follows). */
  readonly sealingCpuMs: number;
  readonly peakRssBytes: number;
  /** The row text step after the listing (cli/rowTextStep.ts); null when it made none. */
  readonly rowText: RowTextFigures | null;
  /** The seal's bar step (ingest/seal/bars.ts, its `bars made` line; inside sealingMs); null when it made none. */
  readonly bars: BarsFigures | null;
}

export interface BarsFigures {
  readonly days: number;
  readonly stocks: number;
  readonly bytes: number;
  readonly ms: number;
}

export interface RowTextFigures {
  readonly made: number;
  readonly madeBytes: number;
  readonly ms: number;
  readonly cpuMs: number;
}

export interface StorageBenchResult {
  readonly replay: ReplayFigures;
  readonly replayRowsPerSec: number;
  readonly sealRowsPerSec: number;
  readonly duckdbRowsPerSec: number;
  readonly big: ReplayFigures | null;
  readonly rssGrowth: number | null;
}

/** A `tickvault` command in its own process on the bench's clock (NOW), its wall time timed. */
export function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string; wallMs: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, TICKVAULT_NOW: NOW, TICKVAULT_PROGRESS: 'off', TICKVAULT_LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, wallMs: performance.now() - t0 }));
  });
}

/** Runs a `tickvault` command as its own process, as a user runs it, on the bench's clock. */
export async function runBenchCli(args: string[]): Promise<void> {
  const r = await runCli(args);
  if (r.code !== 0) throw new Error(`tickvault ${args[0]} failed: ${r.stderr.slice(-500)}`);
}

/** The data directory generateAndReplay(dir, stocks) replays into. */
export function replayDataDir(dir: string, stocks: number): string {
  return join(dir, `data-${stocks}`);
}

/** Generates one day (20250102) of `stocks` stocks' snapshots in `dir` and replays it into replayDataDir(dir, stocks). */
export async function generateAndReplay(dir: string, stocks: number): Promise<ReplayFigures> {
  const feed = join(dir, `feed-${stocks}.jsonl.zst`);
  await runBenchCli([
    'generate',
    '--out',
    feed,
    '--from',
    '20250102',
    '--days',
    '1',
    '--stocks',
    String(stocks),
    '--indexes',
    '0',
    '--ticks',
    '0',
    '--seed',
    'bench',
  ]);
  return replayFeed(feed, replayDataDir(dir, stocks));
}

/** `tickvault replay FEED` in its own process, with the figures of its final log line. */
export async function replayFeed(feed: string, dataDir: string): Promise<ReplayFigures> {
  // 'replay finished' (the figures as JSON) is logged at debug: the default level prints the stdout summary only.
  const rep = await runCli(['replay', feed, '--data-dir', dataDir, '--log-level', 'debug']);
  if (rep.code !== 0) throw new Error(`replay failed: ${rep.stderr.slice(-500)}`);
  const line = rep.stderr.split('\n').find((l) => l.includes('"replay finished"'));
  if (!line) throw new Error('replay printed no summary line');
  const s = JSON.parse(line) as { lines: number; rows: number; stagingMs: number; sealingMs: number; sealingCpuMs: number; peakRssBytes: number };
  const text = rep.stderr.split('\n').find((l) => l.includes('"row text kept"'));
  const bars = rep.stderr.split('\n').find((l) => l.includes('"bars made"'));
  return {
    lines: s.lines,
    rows: s.rows,
    wallMs: rep.wallMs,
    stagingMs: s.stagingMs,
    sealingMs: s.sealingMs,
    sealingCpuMs: s.sealingCpuMs,
    peakRssBytes: s.peakRssBytes,
    rowText: text ? (JSON.parse(text) as RowTextFigures) : null,
    bars: bars ? (JSON.parse(bars) as BarsFigures) : null,
  };
}

/** Bytes of the regular files under `dir` (recursive); 0 when it does not exist. */
function treeBytes(dir: string): number {
  let n = 0;
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) n += e.isDirectory() ? treeBytes(join(dir, e.name)) : e.isFile() ? statSync(join(dir, e.name)).size : 0;
  return n;
}

export interface DerivedBytes {
  readonly parquetBytes: number;
  readonly rowTextBytes: number;
  readonly boundaryBytes: number;
  readonly minuteIndexBytes: number;
  /** (row text + boundary parts + minute index) ÷ Parquet. */
  readonly ratio: number;
}

/** What a lake holds beside its Parquet files: row text, boundary parts, the catalog's minute index. */
export function derivedBytes(dataDir: string): DerivedBytes {
  const parquetBytes = DATASETS.reduce((a, d) => a + treeBytes(join(dataDir, d)), 0);
  const rowTextBytes = treeBytes(join(dataDir, '_rowtext'));
  const boundaryBytes = treeBytes(join(dataDir, '_boundary'));
  const db = new Database(join(dataDir, 'catalog.db'), { readonly: true });
  let minuteIndexBytes: number;
  try {
    minuteIndexBytes = db.prepare('SELECT coalesce(sum(length(minute_counts)), 0) FROM files').pluck().get() as number;
  } finally {
    db.close();
  }
  return { parquetBytes, rowTextBytes, boundaryBytes, minuteIndexBytes, ratio: (rowTextBytes + boundaryBytes + minuteIndexBytes) / parquetBytes };
}

/**
 * Derived bytes over a lake of `days` generated trading days (snapshots, trades, orders,
 * indexes) with the default row text window, then with a window as wide as the lake (every
 * day's row text, as before the window), in one run.
 */
export async function derivedOverDays(dir: string, stocks: number, days: number): Promise<{ windowed: DerivedBytes; everyDay: DerivedBytes }> {
  const feed = join(dir, `feed-${days}d.jsonl.zst`);
  const dataDir = join(dir, `data-${days}d`);
  await runBenchCli(['generate', '--out', feed, '--from', '20240102', '--days', String(days), '--stocks', String(stocks), '--indexes', '2', '--seed', 'bench']);
  await runBenchCli(['replay', feed, '--data-dir', dataDir]);
  const windowed = derivedBytes(dataDir);
  await runBenchCli(['doctor', '--data-dir', dataDir, '--quick', '--rebuild', '--row-text-days', String(days)]);
  return { windowed, everyDay: derivedBytes(dataDir) };
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const mib = (b: number) => (b / 1048576).toFixed(0);

export async function runStorageBench(opts: StorageBenchOptions = {}): Promise<StorageBenchResult> {
  const stocks = opts.stocks ?? 500;
  const bigStocks = opts.bigStocks ?? stocks * 4;
  const log = opts.log ?? ((l: string) => console.log(l));
  const dir = await mkdtemp(join(tmpdir(), 'tickvault-storage-bench-'));
  try {
    const replay = await generateAndReplay(dir, stocks);
    const replayRowsPerSec = (replay.lines * 1000) / replay.wallMs;
    const sealRowsPerSec = (replay.rows * 1000) / replay.sealingMs;
    const ref = await runParquetEncodeBench({ symbols: Math.min(stocks, 200), rowsPerSymbol: 5000, rowGroupSize: 1200, log: () => undefined });
    log(
      `replay end-to-end: ${fmt(replayRowsPerSec)} snapshots/s (${(replayRowsPerSec / 80_000).toFixed(2)}x target 80,000) — ${fmt(replay.lines)} snapshots, ${stocks} stocks x 1 day, wall ${(replay.wallMs / 1000).toFixed(1)} s (staging ${(replay.stagingMs / 1000).toFixed(1)} s, sealing ${(replay.sealingMs / 1000).toFixed(1)} s)`,
    );
    log(
      `seal: ${fmt(sealRowsPerSec)} rows/s (${(sealRowsPerSec / 100_000).toFixed(2)}x target 100,000; ${(sealRowsPerSec / ref.duckdbRowsPerSec).toFixed(2)}x duckdb appender+COPY ${fmt(ref.duckdbRowsPerSec)} rows/s)`,
    );
    log(`peak RSS, ${stocks} stocks: ${mib(replay.peakRssBytes)} MiB (${(replay.peakRssBytes / 2 ** 30).toFixed(2)}x limit 1 GiB)`);
    const text = replay.rowText;
    if (text) {
      const share = text.cpuMs / (text.cpuMs + replay.sealingCpuMs);
      log(
        `row text, after the listing (the day is in the window): ${fmt(text.made)} files, ${(text.madeBytes / 1e6).toFixed(1)} MB, ${(text.ms / 1000).toFixed(1)} s wall, ` +
          `${(text.cpuMs / 1000).toFixed(1)} s CPU = ${(share * 100).toFixed(1)}% of the day's seal CPU (seal ${(replay.sealingCpuMs / 1000).toFixed(1)} s CPU; target ≤ 20%); ` +
          `${(text.cpuMs / text.made).toFixed(1)} ms CPU a stock-day`,
      );
    }
    const lakeDays = 60;
    const derived = await derivedOverDays(dir, opts.derivedStocks ?? 10, lakeDays);
    const parts = (d: DerivedBytes) =>
      `row text ${(d.rowTextBytes / 1e6).toFixed(1)} MB, boundary parts ${(d.boundaryBytes / 1e6).toFixed(1)} MB, minute index ${(d.minuteIndexBytes / 1e6).toFixed(2)} MB`;
    log(
      `derived bytes over ${lakeDays} trading days (${opts.derivedStocks ?? 10} stocks, trades, orders, 2 indexes; ${(derived.windowed.parquetBytes / 1e6).toFixed(1)} MB of Parquet): ` +
        `window of 10 days ${derived.windowed.ratio.toFixed(3)}x the Parquet bytes (target ≤ 0.25x; ${parts(derived.windowed)}); ` +
        `row text for every day ${derived.everyDay.ratio.toFixed(3)}x (${parts(derived.everyDay)})`,
    );
    let big: ReplayFigures | null = null;
    let rssGrowth: number | null = null;
    if (bigStocks > stocks) {
      big = await generateAndReplay(dir, bigStocks);
      rssGrowth = big.peakRssBytes / replay.peakRssBytes - 1;
      log(
        `peak RSS, ${bigStocks} stocks: ${mib(big.peakRssBytes)} MiB — growth ${(rssGrowth * 100).toFixed(1)}% from ${stocks} stocks (limit 20%); replay ${fmt((big.lines * 1000) / big.wallMs)} snapshots/s, seal ${fmt((big.rows * 1000) / big.sealingMs)} rows/s`,
      );
    }
    return { replay, replayRowsPerSec, sealRowsPerSec, duckdbRowsPerSec: ref.duckdbRowsPerSec, big, rssGrowth };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const num = (name: string) => {
    const i = args.indexOf(name);
    return i < 0 ? undefined : Number(args[i + 1]);
  };
  await runStorageBench({ stocks: num('--stocks'), bigStocks: num('--big-stocks') });
}
