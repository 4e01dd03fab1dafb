/**
 * What the server benchmarks share: the real pipeline preparing a data directory, `tickvault
 * serve` child processes, a keep-alive timing client and CPU accounting from /proc (the load
 * itself: wrkLoad.ts).
 */
import { availableParallelism } from 'node:os';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CatalogReader, openCatalog } from '../storage/catalog.js';
import { layoutFor } from '../storage/layout.js';
import { offsetClock, parseInstant } from '../shared/clock.js';
import { createLogger } from '../shared/logger.js';
import { AccountStore } from '../serve/access/accounts.js';
import { openServiceDb } from '../serve/access/serviceDb.js';
import { SqliteStateStore } from '../serve/access/sqliteState.js';
import { createApp, type App } from '../serve/http/app.js';
import { createOperations, type ServedOperations } from '../serve/operations.js';

export const CLI = join(dirname(fileURLToPath(import.meta.url)), '..', 'cli', 'main.js');
export const FIRST_DAY = '20250102';
/** The server's clock: after the last generated day, so every day is in reach. */
export const NOW = '2025-03-03T18:00:00+08:00';

export const p50 = (xs: readonly number[]) => quantile(xs, 0.5);
export function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

export function runCli(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, TICKVAULT_NOW: NOW, TICKVAULT_PROGRESS: 'off', TICKVAULT_LOG_LEVEL: 'warn' },
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`tickvault ${args[0]} exited ${code}`))));
  });
}

/** Generated and replayed data for a query bench; `ticks` is `generate --ticks` (0: snapshots only). */
export async function prepareData(dataDir: string, stocks: number, days: number, log: (l: string) => void, ticks = 0): Promise<void> {
  if (existsSync(join(dataDir, 'catalog.db'))) return;
  const feed = join(dataDir, '..', 'bench-feed.jsonl.zst');
  log(`preparing data: ${stocks} stocks × ${days} days${ticks > 0 ? `, trades and orders at --ticks ${ticks}` : ''} (generate + replay)…`);
  await runCli([
    'generate',
    '--out',
    feed,
    '--from',
    FIRST_DAY,
    '--days',
    String(days),
    '--stocks',
    String(stocks),
    '--indexes',
    '1',
    '--ticks',
    String(ticks),
  ]);
  await runCli(['replay', feed, '--data-dir', dataDir]);
  rmSync(feed, { force: true });
}

/** A keep-alive HTTP client timing a POST until the last body byte. */
export class Client {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });
  constructor(private readonly url: string) {}

  /** `acceptEncoding`: the header to send (none: identity); bytes are then those on the wire, undecoded. */
  post(body: string, acceptEncoding?: string): Promise<{ status: number; bytes: number; ms: number; encoding: string | undefined; text: () => string }> {
    const started = performance.now();
    const headers: Record<string, string> = { 'content-type': 'application/json', ...(acceptEncoding ? { 'accept-encoding': acceptEncoding } : {}) };
    return new Promise((resolve, reject) => {
      const req = request(this.url, { method: 'POST', agent: this.agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const ms = performance.now() - started;
          const bytes = chunks.reduce((a, c) => a + c.length, 0);
          const encoding = res.headers['content-encoding'];
          resolve({ status: res.statusCode ?? 0, bytes, ms, encoding, text: () => Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

export interface ChildServer {
  readonly url: string;
  readonly child: ChildProcess;
}

/** CPU seconds (user + system) a process has used, from /proc (Linux); NaN elsewhere. */
export function cpuSeconds(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // clock ticks; USER_HZ is 100 on Linux
  } catch {
    return NaN;
  }
}

export function startChildServer(dataDir: string, env: Record<string, string> = {}): Promise<ChildServer> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--data-dir', dataDir], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, TICKVAULT_NOW: NOW, TICKVAULT_LOG_LEVEL: 'warn', ...env },
    });
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve({ url: m[1], child });
    });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`serve exited ${code}`)));
  });
}

/** SIGTERM, resolved once the process has exited. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** The app of `tickvault serve` listening in this process on a data directory, with a flagship key and a client. */
export interface InProcessServer {
  readonly app: App;
  /** The operations the app answers, with their caches. */
  readonly served: ServedOperations;
  readonly catalog: CatalogReader;
  readonly state: SqliteStateStore;
  readonly accounts: AccountStore;
  /** A flagship account's key. */
  readonly key: string;
  readonly client: Client;
  close(): Promise<void>;
}

/**
 * Starts the server's app in this process (the query benchmarks time it against DuckDB in the
 * same process): the data directory's catalog and service.db, the bench clock, no rate limit,
 * a 1 GiB cache.
 */
export async function startInProcessServer(dataDir: string): Promise<InProcessServer> {
  const layout = layoutFor(dataDir);
  const catalogDb = openCatalog(layout.catalogDb, true);
  const serviceDb = openServiceDb(layout.serviceDb);
  const accounts = new AccountStore(serviceDb);
  const key = accounts.create('flagship', Date.now()).key;
  const state = new SqliteStateStore({ path: layout.serviceDb, cursorKeyFile: layout.cursorKeyFile });
  const catalog = new CatalogReader(catalogDb);
  const served = createOperations({
    dataDir,
    catalog,
    cursorKey: await state.cursorKey(),
    cacheBytes: 1024 * 1024 * 1024,
    jsonThreads: availableParallelism(),
    log: createLogger('warn', 'bench'),
  });
  const app = createApp({
    catalog,
    state,
    clock: offsetClock(parseInstant(NOW)!),
    log: createLogger('warn', 'bench'),
    operations: served.operations,
    config: { rateLimitPerSec: 1_000_000, leaseMs: 30_000 },
  });
  const server: Server = createServer(app.koa.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const client = new Client(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api`);
  return {
    app,
    served,
    catalog,
    state,
    accounts,
    key,
    client,
    async close() {
      client.close();
      await new Promise<void>((r) => server.close(() => r()));
      await served.close();
      await state.close();
      serviceDb.close();
      catalogDb.close();
    },
  };
}
