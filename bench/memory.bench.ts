/**
 * A server's memory against its budget (issue 47, "one budget"): a market of level-2 stock-days
 * over 64 trading days, served under random tick_history requests (boundary, enhanced ranges up
 * to a month, compatible) for `asset=stock` and random full-day level2_quote_history pages,
 * while the server's RSS is sampled from /proc every 50 ms. Run at two budgets: what the
 * process holds beyond `--cache-mb` (its fixed overhead: code, V8, SQLite, sockets, requests in
 * flight) must not grow with the budget, the data or the time served.
 *
 * Most stock-days are small (24 snapshots from 09:15 to 15:00, so each file's minute index spans
 * the whole day and its listing costs what a real one does, ~3 KB), so a whole 64-day catalog is
 * written in minutes; a few stocks have full days (4,800 snapshots) for the pages. The data's
 * listings alone, unbounded, would be many times the smaller budget's detail share.
 *
 * `--memory-cli PATH` runs the same load against another build's `cli/main.js` (a before/after
 * figure on the same data).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tradingDaysFrom } from '../calendar/tradingCalendar.js';
import { seededRandom } from '../ingest/feed/generate.js';
import { AccountStore } from '../serve/access/accounts.js';
import { openServiceDb } from '../serve/access/serviceDb.js';
import { listedFileHeapBytes, splitBudget } from '../serve/reading/memoryBudget.js';
import { SCHEMAS } from '../shared/schema.js';
import type { FileCandidates } from '../storage/boundary/candidates.js';
import { writeBoundaryPart } from '../storage/boundary/partFile.js';
import { CatalogWriter, openCatalog, type NewCatalogFile } from '../storage/catalog.js';
import { layoutFor } from '../storage/layout.js';
import type { SymbolDayColumns } from '../storage/parquet/writer.js';
import { writeSymbolDay } from '../storage/symbolDayFile.js';
import { CLI, Client, quantile, stopChild } from './serverLoad.js';

export interface MemoryBenchOptions {
  /** Stocks with small days (default 500). */
  readonly stocks?: number;
  /** Of them, stocks with full days (default 4). */
  readonly deepStocks?: number;
  /** Trading days (default 64). */
  readonly days?: number;
  /** Budgets to serve under, MiB (default 64 and 256). */
  readonly budgetsMb?: readonly number[];
  /** Seconds of load at each budget (default 60). */
  readonly seconds?: number;
  /** Concurrent clients (default 4). */
  readonly clients?: number;
  /** Another build's cli/main.js to serve with (default this build's). */
  readonly cli?: string;
  readonly dataDir?: string;
  readonly log?: (line: string) => void;
}

export interface MemoryFigure {
  readonly budgetMb: number;
  readonly idleRssMb: number;
  readonly peakRssMb: number;
  /** Peak RSS over the first and the second half of the run. */
  readonly firstHalfPeakMb: number;
  readonly secondHalfPeakMb: number;
  readonly requests: number;
  readonly notOk: number;
  readonly p99Ms: number;
  /** The RSS's parts at the end (anonymous and file-backed, V8 heap, external). */
  readonly composition: string;
}

const HOUR = 3_600_000;
const MIN = 60_000;
const MiB = 1024 * 1024;

/** 24 snapshots 15 minutes apart from 09:15 to 15:00 (a whole day's minute span), or a full day every 3 s. */
function stockDay(symbol: string, tradedate: string, full: boolean): SymbolDayColumns {
  const rnd = seededRandom(`${symbol}-${tradedate}`);
  const times: number[] = [];
  if (full) {
    for (let t = 9 * HOUR + 15 * MIN; t < 15 * HOUR; t += 3000) if (t < 11.5 * HOUR || t >= 13 * HOUR) times.push(t + Math.floor(rnd() * 1000));
  } else {
    for (let k = 0; k < 24; k++) times.push(9 * HOUR + 15 * MIN + k * 15 * MIN);
  }
  const rows = times.length;
  const fields = SCHEMAS.level2.valueFields;
  let price = Math.round((5 + rnd() * 50) * 100) / 100;
  const values = fields.map(() => new Float64Array(rows));
  let volume = 0;
  for (let r = 0; r < rows; r++) {
    price = Math.max(0.01, Math.round(price * (1 + (rnd() - 0.5) * 0.002) * 100) / 100);
    volume += 100 * Math.floor(rnd() * 50);
    fields.forEach((f, c) => {
      const level = Number(/(\d+)$/.exec(f.name)?.[1] ?? 0);
      values[c]![r] = f.name.includes('vol')
        ? 100 * (1 + Math.floor(rnd() * 500))
        : f.name === 'volume'
          ? volume
          : f.name === 'amount'
            ? Math.round(volume * price * 100) / 100
            : Math.round((price + (f.name.startsWith('ask') ? level : -level) * 0.01) * 100) / 100;
    });
  }
  return { dataset: 'level2', symbol, tradedate, rows, timesMs: Int32Array.from(times), values };
}

const symbolOf = (i: number) => `${600000 + i}.SH`;

async function generate(dataDir: string, stocks: number, deep: number, days: readonly string[], log: (l: string) => void): Promise<number> {
  mkdirSync(dataDir, { recursive: true });
  const catalog = openCatalog(layoutFor(dataDir).catalogDb);
  const writer = new CatalogWriter(catalog);
  let files = 0;
  for (const day of days) {
    const written: NewCatalogFile[] = [];
    const candidates: FileCandidates[] = [];
    const inFlight = new Set<Promise<void>>();
    for (let s = 0; s < stocks; s++) {
      const job = writeSymbolDay({ dataDir }, stockDay(symbolOf(s), day, s < deep)).then(({ file, candidates: c }) => {
        written.push(file);
        if (c) candidates.push(c);
      });
      inFlight.add(job);
      void job.finally(() => inFlight.delete(job));
      if (inFlight.size >= 8) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
    written.sort((a, b) => a.symbol.localeCompare(b.symbol));
    candidates.sort((a, b) => a.symbol.localeCompare(b.symbol));
    writer.recordFiles('level2', day, SCHEMAS.level2.rowGroupSize, written, Date.now());
    writer.recordBoundaryPart('level2', day, await writeBoundaryPart(dataDir, 'level2', day, candidates), Date.now());
    writer.markDaySealed('level2', day, Date.now());
    files += written.length;
    if (files % (stocks * 8) === 0) log(`   generated ${day}: ${files} files so far`);
  }
  catalog.close();
  return files;
}

/** A field of /proc/PID/status in MiB (VmRSS, RssAnon, RssFile). */
function statusMb(pid: number, field: string): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

const rssMb = (pid: number) => statusMb(pid, 'VmRSS');

/** What the process's RSS is made of at the end of the load: /proc's split and V8's own figures from /metrics. */
async function composition(url: string, pid: number): Promise<string> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const metric = (name: string) => Number(new RegExp(`^tickvault_${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN) / MiB;
  return (
    `anonymous ${statusMb(pid, 'RssAnon').toFixed(0)} MiB, file-backed ${statusMb(pid, 'RssFile').toFixed(0)} MiB; ` +
    `V8 heap used ${metric('nodejs_heap_size_used_bytes').toFixed(0)} of ${metric('nodejs_heap_size_total_bytes').toFixed(0)} MiB, ` +
    `external ${metric('nodejs_external_memory_bytes').toFixed(0)} MiB`
  );
}

function startServer(cli: string, dataDir: string, budgetMb: number, now: string): Promise<{ url: string; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--data-dir', dataDir, '--cache-mb', String(budgetMb), '--rate-limit', '1000000'], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, TICKVAULT_NOW: now, TICKVAULT_LOG_LEVEL: 'warn', TICKVAULT_PROGRESS: 'off' },
    });
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ url: m[1]!, child });
    });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`serve exited ${code}`)));
  });
}

/** A random request of the mix: stock ticks (boundary, enhanced range, compatible) and level-2 full-day pages. */
function randomRequest(rnd: () => number, apikey: string, stocks: number, deep: number, days: readonly string[]): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const day = pick(days);
  const u = rnd();
  let apiname = 'tick_history';
  let params: Record<string, unknown>;
  if (u < 0.35) {
    const minute = 930 + Math.floor(rnd() * 4) * 100 + Math.floor(rnd() * 30);
    params = { asset: 'stock', tradedate: day, trademin: String(minute).padStart(4, '0'), side: rnd() < 0.5 ? 'before' : 'after' };
  } else if (u < 0.6) {
    // A month's range (the cross-month rule), up to 200 symbols.
    const month = day.slice(0, 6);
    const inMonth = days.filter((d) => d.startsWith(month));
    const symbols = Array.from({ length: 1 + Math.floor(rnd() * 200) }, () => symbolOf(Math.floor(rnd() * stocks)));
    params = { asset: 'stock', symbols: [...new Set(symbols)], startdate: inMonth[0], enddate: inMonth[inMonth.length - 1], limit: 6000 };
  } else if (u < 0.75) {
    params = { asset: 'stock', symbol: symbolOf(Math.floor(rnd() * stocks)), tradedate: day };
  } else {
    apiname = 'level2_quote_history';
    params = { symbol: symbolOf(Math.floor(rnd() * deep)), tradedate: day };
  }
  return JSON.stringify({ apiname, apikey, params });
}

async function serveUnderLoad(
  cli: string,
  dataDir: string,
  budgetMb: number,
  o: { apikeys: readonly string[]; stocks: number; deep: number; days: readonly string[]; seconds: number },
): Promise<MemoryFigure> {
  const last = o.days[o.days.length - 1]!;
  const server = await startServer(cli, dataDir, budgetMb, `${last.slice(0, 4)}-${last.slice(4, 6)}-${last.slice(6)}T18:00:00+08:00`);
  const pid = server.child.pid!;
  const idle = rssMb(pid);
  const samples: { at: number; mb: number }[] = [];
  const sampler = setInterval(() => samples.push({ at: performance.now(), mb: rssMb(pid) }), 50);
  const started = performance.now();
  const until = started + o.seconds * 1000;
  const ms: number[] = [];
  let notOk = 0;
  try {
    await Promise.all(
      o.apikeys.map(async (apikey, c) => {
        const rnd = seededRandom(`memory-${budgetMb}-${c}`);
        const client = new Client(`${server.url}/api`);
        try {
          while (performance.now() < until) {
            const r = await client.post(randomRequest(rnd, apikey, o.stocks, o.deep, o.days));
            ms.push(r.ms);
            if (r.status !== 200 && notOk++ < 3) process.stderr.write(`memory bench: HTTP ${r.status} ${r.text().slice(0, 300)}\n`);
          }
        } finally {
          client.close();
        }
      }),
    );
  } finally {
    clearInterval(sampler);
  }
  let made: string;
  try {
    made = await composition(server.url, pid);
  } finally {
    await stopChild(server.child);
  }
  const half = started + (o.seconds * 1000) / 2;
  const peak = (xs: readonly { mb: number }[]) => Math.max(...xs.map((s) => s.mb));
  return {
    budgetMb,
    idleRssMb: idle,
    peakRssMb: peak(samples),
    firstHalfPeakMb: peak(samples.filter((s) => s.at < half)),
    secondHalfPeakMb: peak(samples.filter((s) => s.at >= half)),
    requests: ms.length,
    notOk,
    p99Ms: quantile(ms, 0.99),
    composition: made,
  };
}

export async function runMemoryBench(opts: MemoryBenchOptions = {}): Promise<MemoryFigure[]> {
  const log = opts.log ?? ((l: string) => console.log(l));
  const stocks = opts.stocks ?? 500;
  const deep = Math.min(stocks, opts.deepStocks ?? 4);
  const days = tradingDaysFrom('20250102', opts.days ?? 64);
  const dataDir = opts.dataDir ?? (await mkdtemp(join(tmpdir(), 'tickvault-memorybench-')));
  const marker = join(dataDir, 'memory-bench.json');
  const wanted = JSON.stringify({ stocks, deep, days: days.length });
  if (!(existsSync(marker) && readFileSync(marker, 'utf8') === wanted)) {
    const t0 = performance.now();
    const files = await generate(dataDir, stocks, deep, days, log);
    writeFileSync(marker, wanted);
    log(`   ${files} files written in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
  const db = openServiceDb(layoutFor(dataDir).serviceDb, { durable: true });
  // One account a client: level 2 allows an account one request at a time.
  const accounts = new AccountStore(db);
  const apikeys = Array.from({ length: opts.clients ?? 4 }, () => accounts.create('flagship', Date.now()).key);
  db.close();
  const listings = (stocks * days.length * listedFileHeapBytes(346)) / MiB;
  log(
    `memory data: ${stocks} stocks x ${days.length} days of level 2 (${deep} with full days), in ${dataDir}; ` +
      `its day listings alone would take ${listings.toFixed(0)} MiB unbounded`,
  );
  const cli = opts.cli ?? CLI;
  const figures: MemoryFigure[] = [];
  for (const budgetMb of opts.budgetsMb ?? [64, 256]) {
    const f = await serveUnderLoad(cli, dataDir, budgetMb, { apikeys, stocks, deep, days, seconds: opts.seconds ?? 60 });
    figures.push(f);
    const detail = splitBudget(budgetMb * MiB, 1).detailBytes / MiB;
    log(
      `memory --cache-mb ${budgetMb}${cli === CLI ? '' : ` (${cli})`}: peak RSS ${f.peakRssMb.toFixed(0)} MiB = budget + ${(f.peakRssMb - budgetMb).toFixed(0)} MiB ` +
        `(idle ${f.idleRssMb.toFixed(0)} MiB; peak ${f.firstHalfPeakMb.toFixed(0)} MiB in the first half, ${f.secondHalfPeakMb.toFixed(0)} in the second; ` +
        `detail share ${detail.toFixed(0)} MiB) over ${f.requests} random requests, ${f.notOk} not 200, p99 ${f.p99Ms.toFixed(0)} ms; at the end: ${f.composition}`,
    );
  }
  return figures;
}
