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
import { runParquetEncodeBench } from './parquetEncode.bench.js';

export const CLI = join(fileURLToPath(new URL('.', import.meta.url)), '..', 'cli', 'main.js');
const NOW = '2025-01-03T16:30:00+08:00';

export interface StorageBenchOptions {
  stocks?: number;
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
  readonly peakRssBytes: number;
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
  const s = JSON.parse(line) as { lines: number; rows: number; stagingMs: number; sealingMs: number; peakRssBytes: number };
  return { lines: s.lines, rows: s.rows, wallMs: rep.wallMs, stagingMs: s.stagingMs, sealingMs: s.sealingMs, peakRssBytes: s.peakRssBytes };
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
