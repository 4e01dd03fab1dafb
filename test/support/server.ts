/**
 * Test helpers for the query server: a replayed data directory (generated once per test
 * process and shared), a `tickvault serve` child on a free port, accounts, and a tiny HTTP
 * client that keeps status, headers and raw body.
 */
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import type { Test } from 'uvu';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { runCli, startCli, waitForLine, exited } from './cli.js';
import { tempDir } from './tempDir.js';
import { openServiceDb } from '../../serve/access/serviceDb.js';
import { AccountStore } from '../../serve/access/accounts.js';
import type { PlanName } from '../../serve/access/plans.js';
import { encodeParquet } from '../../storage/parquet/writer.js';
import { CatalogWriter, openCatalog, type CatalogFile } from '../../storage/catalog.js';
import { readCatalog } from './catalog.js';
import { buildMinuteIndex, encodeMinuteCounts } from '../../storage/minuteIndex.js';
import { SCHEMAS } from '../../shared/schema.js';

export interface DataOptions {
  readonly from?: string;
  readonly days?: number;
  readonly stocks?: number;
  readonly indexes?: number;
  readonly seed?: string;
  /** `generate --ticks`: trades and orders per stock-day (0, the default here: snapshots only). */
  readonly ticks?: number;
}

export interface PreparedData {
  readonly dataDir: string;
  /** The generated feed (JSON Lines, zstd): an independent source of expected rows. */
  readonly feedFile: string;
}

/** The clock used for generate+replay; the server's clock is set per test. */
export const REPLAY_NOW = '2025-03-03T18:00:00+08:00';

const prepared = new Map<string, Promise<PreparedData>>();

async function prepare(opts: Required<DataOptions>): Promise<PreparedData> {
  const dir = tempDir('tickvault-serve-');
  const dataDir = join(dir, 'data');
  const feedFile = join(dir, 'feed.jsonl.zst');
  const env = { TICKVAULT_NOW: REPLAY_NOW };
  const gen = await runCli(
    [
      'generate',
      '--out',
      feedFile,
      '--from',
      opts.from,
      '--days',
      String(opts.days),
      '--stocks',
      String(opts.stocks),
      '--indexes',
      String(opts.indexes),
      '--seed',
      opts.seed,
      '--ticks',
      String(opts.ticks),
    ],
    { env },
  );
  if (gen.code !== 0) throw new Error(`generate failed: ${gen.stderr}`);
  const rep = await runCli(['replay', feedFile, '--data-dir', dataDir], { env });
  if (rep.code !== 0) throw new Error(`replay failed: ${rep.stderr}`);
  return { dataDir, feedFile };
}

/**
 * A data directory holding the replayed generated feed. Default: 3 trading days from
 * 20250102 (0102, 0103, 0106), 5 stocks (600000.SH …), 3 indexes. Cached per test process
 * and per option set; treat the sealed files as read-only (service.db may be written).
 */
export function preparedData(options: DataOptions = {}): Promise<PreparedData> {
  const opts: Required<DataOptions> = { from: '20250102', days: 3, stocks: 5, indexes: 3, seed: 'tickvault', ticks: 0, ...options };
  const key = JSON.stringify(opts);
  let p = prepared.get(key);
  if (!p) {
    p = prepare(opts);
    prepared.set(key, p);
  }
  return p;
}

/** A prepared data directory and every file its catalog lists (preparedData's options). */
export async function preparedFiles(options: DataOptions = {}): Promise<{ dataDir: string; files: CatalogFile[] }> {
  const { dataDir } = await preparedData(options);
  return { dataDir, files: readCatalog(dataDir, (c) => [...c.everyFile()], []) };
}

/**
 * `file`'s catalog entry for another file at `path` under `dataDir` (a copy DuckDB rewrote):
 * its size and SHA-256 as the catalog would list them, so the server's check of the bytes
 * passes and what is tested is the decoding.
 */
export function cataloguedAs(file: CatalogFile, dataDir: string, path: string): CatalogFile {
  const bytes = readFileSync(join(dataDir, path));
  return { ...file, path, bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}

export interface ServerHandle {
  readonly url: string;
  readonly port: number;
  readonly child: ChildProcess;
  /** stderr collected so far (logs). */
  logs(): string;
  /** SIGTERM and wait for exit. */
  stop(): Promise<void>;
  /** SIGKILL (a crash: no cleanup runs) and wait for exit. */
  kill(): Promise<void>;
}

export interface ServerOptions {
  /** TICKVAULT_NOW for the server (ISO-8601 with offset). Default: 2025-01-06 16:30 Beijing. */
  readonly now?: string;
  readonly env?: Record<string, string | undefined>;
  readonly args?: readonly string[];
}

export const DEFAULT_SERVER_NOW = '2025-01-06T16:30:00+08:00';

/** Starts `tickvault serve --port 0` on `dataDir`; resolves once /healthz answers 200. */
export async function startServer(dataDir: string, opts: ServerOptions = {}): Promise<ServerHandle> {
  const child = startCli(['serve', '--port', '0', '--data-dir', dataDir, ...(opts.args ?? [])], {
    env: { TICKVAULT_NOW: opts.now ?? DEFAULT_SERVER_NOW, TICKVAULT_LOG_LEVEL: 'warn', ...opts.env },
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdin!.end();
  let url: string;
  try {
    const line = await waitForLine(child, /^listening on http:\/\//, 30_000);
    url = line.trim().replace(/^listening on /, '');
    const health = await httpRequest(`${url}/healthz`, { method: 'GET' });
    if (health.status !== 200) throw new Error(`/healthz answered ${health.status}`);
  } catch (e) {
    // A server that never became ready must not outlive the test (it would hold its process open).
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited(child);
    throw e;
  }
  const port = Number(new URL(url).port);
  const stopWith = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), STOP_TIMEOUT_MS)));
    const outcome = await Promise.race([exited(child), late]);
    clearTimeout(timer);
    if (outcome !== 'late') return;
    child.kill('SIGKILL');
    await exited(child);
    throw new Error(`the server was still running ${STOP_TIMEOUT_MS / 1000} s after ${signal} (killed); its last log lines:\n${stderr.slice(-2000)}`);
  };
  return { url, port, child, logs: () => stderr, stop: () => stopWith('SIGTERM'), kill: () => stopWith('SIGKILL') };
}

/**
 * Starts servers together, as a deployment may. If one fails, the others are stopped and its
 * error is printed as well as thrown: uvu reports a failed hook only as tests not passed, and
 * a server left running would keep the test process alive until the runner's limit.
 */
export async function startServers(specs: readonly { readonly dataDir: string; readonly opts?: ServerOptions }[]): Promise<ServerHandle[]> {
  const settled = await Promise.allSettled(specs.map((s) => startServer(s.dataDir, s.opts)));
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (!failed) return settled.map((r) => (r as PromiseFulfilledResult<ServerHandle>).value);
  await Promise.all(settled.map((r) => (r.status === 'fulfilled' ? r.value.stop() : undefined)));
  console.error(`starting ${specs.length} servers together failed: ${(failed.reason as Error).stack ?? String(failed.reason)}`);
  throw failed.reason;
}

/** What a suite's server gives its tests, once the suite's before hook has run. */
export interface SuiteServer {
  readonly server: ServerHandle;
  readonly dataDir: string;
  /** The key of an account on the plan asked for ('' when none was). */
  readonly key: string;
}

/**
 * The shared prepared data served to one uvu suite: the server started (and an account on
 * `plan` added) in the suite's before hook, stopped in its after hook. Read the members inside
 * tests and hooks, not at module load.
 */
export function serveDuringSuite(test: Pick<Test, 'before' | 'after'>, opts: ServerOptions, plan?: PlanName): SuiteServer {
  const s = { key: '' } as { server: ServerHandle; dataDir: string; key: string };
  test.before(async () => {
    s.dataDir = (await preparedData()).dataDir;
    s.server = await startServer(s.dataDir, opts);
    if (plan) s.key = addAccount(s.dataDir, plan).key;
  });
  test.after(async () => {
    await s.server?.stop();
  });
  return s;
}

/** Creates an account directly in service.db (faster than the CLI); returns its key. */
export function addAccount(dataDir: string, plan: PlanName, key?: string): { id: number; key: string } {
  const db = openServiceDb(join(dataDir, 'service.db'), { durable: true });
  try {
    return new AccountStore(db).create(plan, Date.now(), key);
  } finally {
    db.close();
  }
}

/** Adds another key to an existing account; returns it. */
export function addKey(dataDir: string, accountId: number): string {
  const db = openServiceDb(join(dataDir, 'service.db'), { durable: true });
  try {
    const key = new AccountStore(db).addKey(accountId, Date.now());
    if (key === null) throw new Error(`no account ${accountId}`);
    return key;
  } finally {
    db.close();
  }
}

export interface HttpResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer;
  readonly text: string;
}

export interface HttpOptions {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string | Buffer;
  /** The connection silent this long fails the request (default 120 s). */
  readonly idleTimeoutMs?: number;
}

/**
 * A server that stops answering fails the test with a message after this long instead of
 * hanging its file until the runner's limit: far above any answer of a loaded machine.
 */
const HTTP_IDLE_TIMEOUT_MS = 120_000;
/** A server still running this long after SIGTERM is a shutdown bug (it drains for 5 s at most). */
const STOP_TIMEOUT_MS = 30_000;

export function httpRequest(url: string, opts: HttpOptions = {}): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const idleMs = opts.idleTimeoutMs ?? HTTP_IDLE_TIMEOUT_MS;
    const req = request(url, { method: opts.method ?? 'POST', headers: opts.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(idleMs, () => req.destroy(new Error(`${opts.method ?? 'POST'} ${url}: no bytes for ${idleMs / 1000} s`)));
    req.end(opts.body);
  });
}

/** The JSON envelope of a response. */
export interface Envelope<D = Record<string, unknown>> {
  readonly code: number;
  readonly message: string;
  readonly data: D | null;
}

export interface ApiResponse<D = Record<string, unknown>> extends HttpResponse {
  readonly json: Envelope<D>;
}

/** POSTs a JSON body to /api and parses the envelope (throws when it is not JSON). */
export async function postApi<D = Record<string, unknown>>(
  server: { readonly url: string },
  body: unknown,
  headers: Record<string, string> = {},
): Promise<ApiResponse<D>> {
  const res = await httpRequest(`${server.url}/api`, {
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...headers },
  });
  let json: Envelope<D>;
  try {
    json = JSON.parse(res.text) as Envelope<D>;
  } catch {
    throw new Error(`response ${res.status} is not JSON: ${res.text.slice(0, 200)}`);
  }
  return { ...res, json };
}

/**
 * Seals one synthetic stock-day (level2 by default, or trades or orders) straight into
 * `dataDir` (file + catalog row, as the sealer would), for fixtures the generator cannot make,
 * e.g. a file far larger than the kernel's socket buffers so that a paused download really
 * stays in flight. Values are pseudo-random two-decimal prices (little compression), codes a
 * valid letter, ids the row number. Returns the file's size in bytes.
 */
export async function sealSyntheticFile(
  dataDir: string,
  symbol: string,
  tradedate: string,
  rows: number,
  dataset: 'level2' | 'trade' | 'order' = 'level2',
): Promise<number> {
  const timesMs = new Int32Array(rows);
  const start = (9 * 60 + 30) * 60_000;
  for (let i = 0; i < rows; i++) timesMs[i] = start + i * 100;
  let seed = 12345;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const values = SCHEMAS[dataset].valueFields.map((f) => {
    const col = new Float64Array(rows);
    for (let i = 0; i < rows; i++) {
      col[i] = f.type === 'code' ? f.codes!.charCodeAt(i % f.codes!.length) : f.type === 'int64' ? i + 1 : Math.round((10 + rnd() * 90) * 100) / 100;
    }
    return col;
  });
  const data = await encodeParquet({ dataset, symbol, tradedate, rows, timesMs, values }, { rowGroupSize: SCHEMAS[dataset].rowGroupSize });
  const rel = `${dataset}/date=${tradedate}/${symbol}.parquet`;
  mkdirSync(join(dataDir, `${dataset}/date=${tradedate}`), { recursive: true });
  writeFileSync(join(dataDir, rel), data);
  const db = openCatalog(join(dataDir, 'catalog.db'));
  try {
    const idx = buildMinuteIndex(timesMs);
    new CatalogWriter(db).recordFiles(
      dataset,
      tradedate,
      SCHEMAS[dataset].rowGroupSize,
      [
        {
          symbol,
          relPath: rel,
          rows,
          firstTimeMs: timesMs[0],
          lastTimeMs: timesMs[rows - 1],
          bytes: data.length,
          sha256: createHash('sha256').update(data).digest('hex'),
          minuteBase: idx.base,
          minuteCounts: encodeMinuteCounts(idx.counts),
        },
      ],
      Date.now(),
    );
  } finally {
    db.close();
  }
  return data.length;
}

/**
 * A level2 Parquet download whose client has stopped reading after the response head: with a
 * file far larger than the socket buffers (sealSyntheticFile), the request stays in flight.
 */
export interface PausedDownload {
  readonly socket: Socket;
  readonly head: string;
  /** Reads the rest; resolves with the total body bytes once the response is complete. */
  finish(): Promise<number>;
}

export function pausedDownload(
  server: { readonly port: number },
  key: string,
  params: Record<string, unknown>,
  apiname = 'level2_quote_history',
): Promise<PausedDownload> {
  const body = JSON.stringify({ apiname, apikey: key, params: { ...params, format: 'parquet' } });
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1');
    let received = Buffer.alloc(0);
    socket.once('error', reject);
    const onData = (d: Buffer) => {
      received = Buffer.concat([received, d]);
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.pause();
      socket.off('data', onData);
      const head = received.subarray(0, end).toString('latin1');
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? NaN);
      let bodyBytes = received.length - end - 4;
      resolve({
        socket,
        head,
        finish: () =>
          new Promise((done, fail) => {
            if (bodyBytes >= length) return done(bodyBytes);
            socket.on('data', (more: Buffer) => {
              bodyBytes += more.length;
              if (bodyBytes >= length) done(bodyBytes);
            });
            // A response cut short (or one without a length) fails instead of waiting forever.
            socket.once('close', () => fail(new Error(`the download ended after ${bodyBytes} of ${length} body bytes`)));
            socket.resume();
          }),
      });
    };
    socket.on('data', onData);
    socket.write(`POST /api HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  });
}
