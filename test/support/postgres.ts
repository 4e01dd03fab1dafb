/**
 * A PostgreSQL server for tests: `TICKVAULT_TEST_PG_URL` when set, else a throwaway cluster
 * made with the newest Debian postgresql found under /usr/lib/postgresql/<major>/bin
 * (`apt-get install postgresql`). The cluster is initdb'd into a temp dir with trust auth and
 * fsync off, listens on 127.0.0.1 at a free port (its socket goes in the data dir, never
 * /var/run/postgresql, so it cannot clash with a system server), and is stopped when the test
 * process exits even if a test forgets to.
 *
 * Without either, PostgreSQL tests skip with a line saying why — except under CI=true, where a
 * missing server is a failure: CI must never pass by skipping them.
 */
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { tempDir } from './tempDir.js';

export interface TestPostgres {
  /** postgres://postgres@127.0.0.1:PORT/postgres (or TICKVAULT_TEST_PG_URL). */
  readonly url: string;
  readonly port: number;
  /** The cluster's data dir ('' for an external server). */
  readonly dir: string;
  /** Whether this is TICKVAULT_TEST_PG_URL (true: stop/start/restart/pid are not supported). */
  readonly external: boolean;
  /** pid of the postmaster (read from DIR/postmaster.pid) */
  pid(): number;
  /** pg_ctl stop -m fast (idempotent) */
  stop(): Promise<void>;
  /** start again on the same port and data (after stop()), resolves when it accepts connections */
  start(): Promise<void>;
  /** stop + start: the 'database restarted under load' case */
  restart(): Promise<void>;
  /** creates a fresh database on this cluster and returns its URL (so test cases can isolate) */
  createDatabase(name?: string): Promise<string>;
}

export class PostgresUnavailableError extends Error {
  override name = 'PostgresUnavailableError';
}

const READY_MS = 15_000;
const asRoot = process.getuid?.() === 0;

/** The newest /usr/lib/postgresql/<major>/bin holding initdb, or null (PostgreSQL not installed). */
export function postgresBinDir(): string | null {
  const base = '/usr/lib/postgresql';
  let majors: string[];
  try {
    majors = readdirSync(base);
  } catch {
    return null;
  }
  // Numeric order: '9.6' < '15' < '16' (a string sort would put 9.6 last).
  const found = majors.filter((m) => /^\d+(\.\d+)?$/.test(m) && existsSync(join(base, m, 'bin', 'initdb'))).sort((a, b) => Number(a) - Number(b));
  return found.length ? join(base, found[found.length - 1], 'bin') : null;
}

/** Quotes one word for /bin/sh. */
function shq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * argv for running a PostgreSQL tool: as root through `su postgres`, since initdb and the
 * postmaster refuse to run as root; otherwise directly.
 */
function pgCommand(bin: string, tool: string, args: string[]): [string, string[]] {
  const exe = join(bin, tool);
  if (!asRoot) return [exe, args];
  return ['su', ['postgres', '-s', '/bin/sh', '-c', [exe, ...args].map(shq).join(' ')]];
}

interface RunResult {
  code: number | null;
  out: string;
}

/** Runs a command to completion; never rejects (the caller words the failure with the log). */
function run(cmd: string, args: string[], timeoutMs: number): Promise<RunResult> {
  return new Promise((resolve) => {
    // cwd '/': under su, the postgres user may not be allowed into the test's cwd.
    execFile(cmd, args, { cwd: '/', timeout: timeoutMs, maxBuffer: 4 << 20 }, (err, stdout, stderr) => {
      const out = `${stdout}${stderr}`.trim();
      if (!err) return resolve({ code: 0, out });
      const e = err as NodeJS.ErrnoException & { code?: number | string; killed?: boolean };
      const why = e.killed ? `timed out after ${timeoutMs} ms` : typeof e.code === 'string' ? e.message : '';
      resolve({ code: typeof e.code === 'number' ? e.code : null, out: [out, why].filter(Boolean).join('\n') });
    });
  });
}

function logTail(dir: string, chars = 2000): string {
  try {
    const log = readFileSync(join(dir, 'log'), 'utf8');
    return log.length > chars ? `…${log.slice(-chars)}` : log;
  } catch {
    return '(no log)';
  }
}

/** A free TCP port on 127.0.0.1 (bound to port 0, then released for the postmaster). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => (port ? resolve(port) : reject(new Error('no port from a port-0 listen'))));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Connects, runs one statement, disconnects. */
async function queryOnce(connectionString: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 3000 });
  // A server going away mid-query emits 'error' as well as rejecting; without a listener that
  // would crash the test process instead of failing this call.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query(sql);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Retries `SELECT 1` until it succeeds or READY_MS pass; rejects with the last error. */
async function waitForQuery(url: string): Promise<void> {
  const deadline = Date.now() + READY_MS;
  for (;;) {
    try {
      await queryOnce(url, 'SELECT 1');
      return;
    } catch (e) {
      if (Date.now() >= deadline) throw e;
      await sleep(100);
    }
  }
}

function databaseUrl(base: string, name: string): string {
  const u = new URL(base);
  u.pathname = `/${encodeURIComponent(name)}`;
  return u.toString();
}

async function createDatabaseAt(serverUrl: string, name?: string): Promise<string> {
  const db = name ?? `tv_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query(`CREATE DATABASE "${db.replace(/"/g, '""')}"`);
  } catch (e) {
    throw new Error(`cannot create database ${db} on ${serverUrl}: ${(e as Error).message}`);
  } finally {
    await client.end().catch(() => undefined);
  }
  return databaseUrl(serverUrl, db);
}

// Clusters whose postmaster may be running, with the pid seen at start (for the exit hook's
// last resort when pg_ctl cannot stop it).
const live = new Map<LocalPostgres, number>();
let exitHook = false;

function stopOnExit(cluster: LocalPostgres, pid: number): void {
  live.set(cluster, pid);
  if (exitHook) return;
  exitHook = true;
  // Prepended so it runs before tempDir's exit hook, which removes the data dir: pg_ctl needs
  // postmaster.pid to find the server, and a postmaster whose dir vanished lingers for up to a
  // minute. Only synchronous work runs in an 'exit' listener, hence spawnSync.
  process.prependListener('exit', () => {
    for (const [cluster, pid] of live) {
      const [cmd, args] = pgCommand(cluster.bin, 'pg_ctl', ['-D', cluster.dir, '-m', 'immediate', '-t', '10', '-w', 'stop']);
      const r = spawnSync(cmd, args, { cwd: '/', stdio: 'ignore', timeout: 15_000 });
      if (r.status !== 0) {
        try {
          process.kill(pid, 'SIGQUIT'); // the postmaster's own immediate shutdown
        } catch {
          // already gone
        }
      }
    }
    live.clear();
  });
}

class LocalPostgres implements TestPostgres {
  readonly url: string;
  readonly external = false;
  private running = false;
  // stop/start/restart run one at a time, so overlapping calls cannot interleave pg_ctl runs.
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly bin: string,
    readonly dir: string,
    readonly port: number,
  ) {
    this.url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  }

  pid(): number {
    let text: string;
    try {
      text = readFileSync(join(this.dir, 'postmaster.pid'), 'utf8');
    } catch {
      throw new Error(`postgres in ${this.dir} is not running (no postmaster.pid)`);
    }
    const pid = Number(text.split('\n')[0]);
    if (!Number.isInteger(pid) || pid <= 0) throw new Error(`unreadable postmaster.pid in ${this.dir}: ${JSON.stringify(text.slice(0, 100))}`);
    return pid;
  }

  stop(): Promise<void> {
    return this.serial(() => this.doStop());
  }

  start(): Promise<void> {
    return this.serial(() => this.doStart());
  }

  restart(): Promise<void> {
    return this.serial(async () => {
      await this.doStop();
      await this.doStart();
    });
  }

  createDatabase(name?: string): Promise<string> {
    return createDatabaseAt(this.url, name);
  }

  private serial<T>(op: () => Promise<T>): Promise<T> {
    const next = this.queue.then(op);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private fail(what: string, detail: string): Error {
    return new Error(
      `${what} (postgres in ${this.dir}, port ${this.port})${detail ? `: ${detail}` : ''}\n--- tail of ${join(this.dir, 'log')}:\n${logTail(this.dir)}`,
    );
  }

  /** pg_ctl start -w, then one successful query; throws with the log's tail otherwise. */
  async doStart(): Promise<void> {
    if (this.running) return;
    // -k: the Unix socket goes in the data dir. pg_ctl hands the -o string to /bin/sh, so the
    // dir is shell-quoted inside it as well.
    const opts = `-p ${this.port} -k ${shq(this.dir)} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
    const [cmd, args] = pgCommand(this.bin, 'pg_ctl', ['-D', this.dir, '-l', join(this.dir, 'log'), '-o', opts, '-t', '30', '-w', 'start']);
    const r = await run(cmd, args, 45_000);
    if (r.code !== 0) {
      // It may have come up after all (e.g. pg_ctl's wait timed out): do not leave it running.
      this.killIfUp();
      throw this.fail(`pg_ctl start failed (exit ${r.code})`, r.out);
    }
    this.running = true;
    stopOnExit(this, this.pid());
    try {
      await waitForQuery(this.url);
    } catch (e) {
      throw this.fail(`postgres started but accepted no query within ${READY_MS} ms`, (e as Error).message);
    }
  }

  /** pg_ctl stop -m fast; a no-op when not running. */
  async doStop(): Promise<void> {
    if (!this.running) return;
    const [cmd, args] = pgCommand(this.bin, 'pg_ctl', ['-D', this.dir, '-m', 'fast', '-t', '30', '-w', 'stop']);
    const r = await run(cmd, args, 45_000);
    if (r.code !== 0 && existsSync(join(this.dir, 'postmaster.pid'))) throw this.fail(`pg_ctl stop failed (exit ${r.code})`, r.out);
    this.running = false;
    live.delete(this);
  }

  private killIfUp(): void {
    try {
      process.kill(this.pid(), 'SIGQUIT');
    } catch {
      // not running
    }
  }
}

/** initdb's a fresh cluster in a temp dir and starts it on a free port. */
export async function startPostgres(): Promise<TestPostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new PostgresUnavailableError('no PostgreSQL installed: no /usr/lib/postgresql/*/bin/initdb (apt-get install postgresql)');
  // tempDir removes it at exit (or keeps it under KEEP_TEST_DIRS, log included, for a look).
  const dir = tempDir('tickvault-pg-');
  if (asRoot) {
    const r = await run('chown', ['-R', 'postgres:postgres', dir], 10_000);
    if (r.code !== 0) throw new PostgresUnavailableError(`running as root, but cannot hand ${dir} to the postgres user (initdb refuses root): ${r.out}`);
  }
  const [cmd, args] = pgCommand(bin, 'initdb', ['-D', dir, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const init = await run(cmd, args, 60_000);
  if (init.code !== 0) throw new Error(`initdb failed (exit ${init.code}) in ${dir}:\n${init.out.slice(-2000)}`);
  // The port is free when picked but could be taken before the postmaster binds it: pick again.
  for (let attempt = 1; ; attempt++) {
    const cluster = new LocalPostgres(bin, dir, await freePort());
    try {
      await cluster.doStart();
      return cluster;
    } catch (e) {
      if (attempt >= 3 || !/could not bind|Address already in use/i.test(logTail(dir))) throw e;
    }
  }
}

/** TICKVAULT_TEST_PG_URL: databases can be created there, but it is not ours to stop. */
function externalPostgres(url: string): TestPostgres {
  const unsupported = (what: string) => () => Promise.reject(new Error(`${what}() is not supported on an external server (TICKVAULT_TEST_PG_URL)`));
  const u = new URL(url);
  return {
    url,
    port: Number(u.port || 5432),
    dir: '',
    external: true,
    pid: () => {
      throw new Error('pid() is not supported on an external server (TICKVAULT_TEST_PG_URL)');
    },
    stop: unsupported('stop'),
    start: unsupported('start'),
    restart: unsupported('restart'),
    createDatabase: (name) => createDatabaseAt(url, name),
  };
}

/**
 * The PostgreSQL server for a test file, or null (after printing why) when PostgreSQL tests must
 * skip. Throws under CI=true when no server can be had.
 */
export async function postgresForTests(what: string): Promise<TestPostgres | null> {
  const external = process.env.TICKVAULT_TEST_PG_URL;
  if (external) return externalPostgres(external);
  if (postgresBinDir()) return startPostgres();
  const why = 'neither TICKVAULT_TEST_PG_URL is set nor PostgreSQL installed (no /usr/lib/postgresql/*/bin/initdb; apt-get install postgresql)';
  if (process.env.CI === 'true') throw new PostgresUnavailableError(`${what}: ${why}; CI=true requires the PostgreSQL tests to run`);
  console.log(`SKIP ${what}: ${why}`);
  return null;
}
