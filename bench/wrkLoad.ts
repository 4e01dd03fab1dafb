/**
 * wrk (Debian's package `wrk`, written in C) as the load generator of the level-2 throughput
 * figures: one wrk thread per connection, so each connection keeps its own account (a detailed
 * interface allows one request in flight per account), asking random full-day pages.
 *
 * Why not autocannon, the generator before: it parses every response in JavaScript. Measured
 * 2026-11-28 on a whole market's lake, one server and 32 connections asking gzip: autocannon
 * took 0.86 of the 2 cores for 168 pages/s and the server waited on it (its main thread idle a
 * third of the time); wrk took 0.12 of a core for 927 pages/s from the same server. The
 * generator's CPU is printed beside every figure, since it shares the cores with the servers.
 * Without wrk the throughput figures are skipped with a line saying so.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

export interface PageTarget {
  readonly symbol: string;
  readonly tradedate: string;
}

/** One wrk process's run. */
export interface WrkRun {
  readonly requests: number;
  readonly bytes: number;
  /** Answers of status ≥ 400, and connection errors and timeouts. */
  readonly failed: number;
  /** Latency at every per-mille, 0.1 % … 99.9 %, then the maximum (1,000 values, ms). */
  readonly quantilesMs: readonly number[];
  /** CPU the wrk process used (user + system), seconds. */
  readonly cpuSeconds: number;
}

/** Runs merged: what the throughput lines print. */
export interface LoadFigures {
  readonly requests: number;
  /** Answers of status 200 a second. */
  readonly rps: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly failed: number;
  readonly bytes: number;
  /** Cores the generator used on average over the run. */
  readonly generatorCores: number;
}

/** wrk's path, or null when it is not installed (`apt-get install wrk`). */
export function wrkPath(): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, 'wrk'))) return join(dir, 'wrk');
  }
  return null;
}

// Each wrk thread has a Lua state of its own: `setup` (in the main state) hands each thread
// its key, `init` (in the thread) reads the pages it may ask for.
const SCRIPT = `
local keys = {}
for line in io.lines(os.getenv("TV_KEYS")) do keys[#keys + 1] = line end
local handed = 0
function setup(thread)
  handed = handed + 1
  thread:set("key", keys[handed])
  thread:set("seed", handed)
end
local targets = {}
local at = 0
local headers = { ["Content-Type"] = "application/json" }
local api = os.getenv("TV_API")
function init(args)
  for line in io.lines(os.getenv("TV_TARGETS")) do targets[#targets + 1] = line end
  math.randomseed(seed * 7919)
  at = math.random(#targets)
  local accept = os.getenv("TV_ACCEPT")
  if accept and accept ~= "" then headers["Accept-Encoding"] = accept end
end
function request()
  at = (at + 6) % #targets + 1
  local symbol, day = targets[at]:match("(%S+) (%S+)")
  return wrk.format("POST", nil, headers,
    '{"apiname":"' .. api .. '","apikey":"' .. key .. '","params":{"symbol":"' .. symbol .. '","tradedate":"' .. day .. '"}}')
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("TV_RESULT %d %d %d\\n", summary.requests, summary.bytes, e.status + e.connect + e.read + e.write + e.timeout))
  local q = {}
  for i = 1, 999 do q[#q + 1] = string.format("%d", latency:percentile(i / 10)) end
  q[#q + 1] = string.format("%d", latency.max)
  io.write("TV_QUANTILES " .. table.concat(q, " ") .. "\\n")
end
`;

/**
 * wrk against `url` for `seconds`: one connection per key, each asking `apiname` pages of the
 * targets in a random order of its own, with `Accept-Encoding: acceptEncoding` when given.
 */
export async function runWrk(
  url: string,
  apiname: string,
  keys: readonly string[],
  targets: readonly PageTarget[],
  seconds: number,
  acceptEncoding?: string,
): Promise<WrkRun> {
  const wrk = wrkPath();
  if (!wrk) throw new Error('wrk is not installed (apt-get install wrk)');
  const dir = mkdtempSync(join(tmpdir(), 'tickvault-wrk-'));
  try {
    writeFileSync(join(dir, 'load.lua'), SCRIPT);
    writeFileSync(join(dir, 'keys'), keys.join('\n') + '\n');
    writeFileSync(join(dir, 'targets'), targets.map((t) => `${t.symbol} ${t.tradedate}`).join('\n') + '\n');
    const n = String(keys.length);
    // bash's `times` gives the CPU of the finished child, which /proc no longer holds.
    const command = `"$0" -t ${n} -c ${n} -d ${seconds}s --timeout 30s -s "$1" "$2"; s=$?; times; exit $s`;
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn('bash', ['-c', command, wrk, join(dir, 'load.lua'), url], {
        stdio: ['ignore', 'pipe', 'inherit'],
        env: { ...process.env, TV_KEYS: join(dir, 'keys'), TV_TARGETS: join(dir, 'targets'), TV_API: apiname, TV_ACCEPT: acceptEncoding ?? '' },
      });
      let text = '';
      child.stdout!.setEncoding('utf8').on('data', (d: string) => (text += d));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`wrk exited ${code}: ${text.slice(-300)}`))));
    });
    return parseWrkOutput(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The script's two lines and bash's `times` (its last line is the children's user and system time). */
export function parseWrkOutput(out: string): WrkRun {
  const result = /^TV_RESULT (\d+) (\d+) (\d+)$/m.exec(out);
  const quantiles = /^TV_QUANTILES (.+)$/m.exec(out);
  const times = [...out.matchAll(/^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/gm)].at(-1);
  if (!result || !quantiles || !times) throw new Error(`wrk printed no result: ${out.slice(-300)}`);
  const quantilesMs = quantiles[1]!.split(' ').map((us) => Number(us) / 1000);
  if (quantilesMs.length !== 1000) throw new Error(`wrk printed ${quantilesMs.length} quantiles, not 1000`);
  const cpuSeconds = Number(times[1]) * 60 + Number(times[2]) + Number(times[3]) * 60 + Number(times[4]);
  return { requests: Number(result[1]), bytes: Number(result[2]), failed: Number(result[3]), quantilesMs, cpuSeconds };
}

/**
 * Runs side by side (each against its own server) as one: the latency quantiles of the whole,
 * each run's per-mille values weighted by its requests.
 */
export function mergeLoad(runs: readonly WrkRun[], seconds: number): LoadFigures {
  const requests = runs.reduce((n, r) => n + r.requests, 0);
  const failed = runs.reduce((n, r) => n + r.failed, 0);
  const weighted = runs.flatMap((r) => r.quantilesMs.map((ms) => ({ ms, weight: r.requests / r.quantilesMs.length }))).sort((a, b) => a.ms - b.ms);
  const at = (q: number): number => {
    let seen = 0;
    for (const w of weighted) {
      seen += w.weight;
      if (seen >= q * requests) return w.ms;
    }
    return weighted.at(-1)?.ms ?? NaN;
  };
  return {
    requests,
    rps: (requests - failed) / seconds,
    p50Ms: at(0.5),
    p90Ms: at(0.9),
    p99Ms: at(0.99),
    maxMs: Math.max(...runs.map((r) => r.quantilesMs.at(-1)!)),
    failed,
    bytes: runs.reduce((n, r) => n + r.bytes, 0),
    generatorCores: runs.reduce((n, r) => n + r.cpuSeconds, 0) / seconds,
  };
}

/**
 * wrk against each server at once, the keys dealt out evenly (one connection each), merged:
 * the load of the throughput figures.
 */
export async function loadServers(
  urls: readonly string[],
  apiname: string,
  keys: readonly string[],
  targets: readonly PageTarget[],
  seconds: number,
  acceptEncoding?: string,
): Promise<LoadFigures> {
  const share = Math.ceil(keys.length / urls.length);
  const runs = await Promise.all(urls.map((url, i) => runWrk(url, apiname, keys.slice(i * share, (i + 1) * share), targets, seconds, acceptEncoding)));
  return mergeLoad(runs, seconds);
}
