/**
 * A real OpenStack Swift with its S3 layer (s3api) on loopback, for tests that need an S3 store:
 * Debian's Swift (`apt-get install swift swift-proxy swift-account swift-container swift-object
 * memcached`), one-replica rings on one device in a temp dir, the four daemons (account,
 * container, object, proxy) and a memcached, each on a free 127.0.0.1 port. No mock (s3rver and
 * the like): the point is to meet a store that answers as a real one does, quirks included.
 *
 * Without the packages, Swift tests skip with a line saying why — except under CI=true, where
 * missing packages are a failure: CI must never pass by skipping them. The daemons are stopped
 * when the test process exits even if a test forgets to, and die with it even when it is killed
 * (SIGKILL from the test runner's time limit), through the kernel's parent-death signal.
 *
 * Swift 2.30 (Debian 12) as S3, as found by test/support/swiftHarness.test.ts:
 * - path-style (`forcePathStyle`; virtual-hosted needs storage_domain), SigV4 with region us-east-1, tempauth's user
 *   `test:tester` / `testing`; bucket names of at least 3 characters (dns_compliant_bucket_names);
 * - Content-MD5 on PutObject is checked (BadDigest); x-amz-checksum-* (ChecksumSHA256 etc.) is
 *   ignored, wrong values included, and never returned: it proves nothing here;
 * - ETags: a single-part object's is the MD5 hex of its bytes; a multipart one's is the MD5 of
 *   the parts' binary MD5s, then "-N" (N parts), as on AWS. Ranged GETs work on both, across part
 *   boundaries too; an unsatisfiable range is 416 InvalidRange;
 * - a multipart object uploaded without ContentType gets application/xml: pass ContentType;
 * - DeleteObjects (the multi-delete) requires a Content-MD5 header, which AWS SDK v3 no longer
 *   sends (400 InvalidRequest): delete one object at a time;
 * - see s3ClientFor for the client settings.
 */
import { CreateBucketCommand, ListBucketsCommand, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { tempDir } from './tempDir.js';

export interface TestSwift {
  /** http://127.0.0.1:PORT, the proxy (S3 and Swift APIs on the same port). */
  readonly endpoint: string;
  readonly port: number;
  readonly region: 'us-east-1';
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, for child processes. */
  readonly env: Readonly<Record<'AWS_ENDPOINT_URL' | 'AWS_REGION' | 'AWS_ACCESS_KEY_ID' | 'AWS_SECRET_ACCESS_KEY', string>>;
  /** The temp dir: rings, confs, devices/ and log/<daemon>.log. */
  readonly dir: string;
  /** Creates a bucket (3 to 63 characters, DNS-compliant). */
  createBucket(name: string): Promise<void>;
  /** Stops the proxy only (the store is down: connections refused); a no-op when stopped. */
  stopProxy(): Promise<void>;
  /** Starts the proxy again on the same port; resolves when it answers S3 calls. */
  startProxy(): Promise<void>;
  /** Stops every daemon and memcached (idempotent). */
  stop(): Promise<void>;
  /** pid of the proxy process (throws when it is stopped). */
  proxyPid(): number;
  /** pids of the daemons running now (memcached, account, container, object, proxy). */
  pids(): number[];
}

export interface SwiftOptions {
  /** How long the daemons get to answer once started (default 45 s: healthy in 7-9 s idle, 15 s on a loaded 2-core machine). */
  readyMs?: number;
}

export class SwiftUnavailableError extends Error {
  override name = 'SwiftUnavailableError';
}

const REGION = 'us-east-1';
const ACCESS_KEY = 'test:tester';
const SECRET_KEY = 'testing';
// Debian's interpreter by path: a python3 first on PATH (pyenv) lacks Debian's swift modules.
const PYTHON = '/usr/bin/python3';
const SWIFT_CONF = '/etc/swift/swift.conf';
const BINARIES = [
  PYTHON,
  '/usr/bin/swift-ring-builder',
  '/usr/bin/swift-account-server',
  '/usr/bin/swift-container-server',
  '/usr/bin/swift-object-server',
  '/usr/bin/swift-proxy-server',
  '/usr/bin/memcached',
];
const asRoot = process.getuid?.() === 0;

/** Why Swift cannot be run here, or null when it can. */
export function swiftMissing(): string | null {
  const missing = BINARIES.filter((b) => !existsSync(b));
  if (missing.length)
    return `Swift is not installed: no ${missing.join(', ')} (apt-get install swift swift-proxy swift-account swift-container swift-object memcached)`;
  // The daemons read swift.conf (the hash path prefix/suffix) from this fixed path only.
  if (!existsSync(SWIFT_CONF) && !asRoot) return `no ${SWIFT_CONF} (the swift package's), and not root to write one`;
  return null;
}

/**
 * An S3 client that Swift 2.30's s3api accepts (each setting tried against it):
 * - `forcePathStyle: true`: required; virtual-hosted style would need BUCKET.127.0.0.1 to resolve
 *   and s3api configured with storage_domain;
 * - `requestChecksumCalculation: 'WHEN_REQUIRED'`: required for stream bodies. Since 3.729 the SDK
 *   checksums every upload (CRC32). With a Buffer body it sends x-amz-checksum-crc32 as a header,
 *   which s3api ignores; with a stream (a Readable PutObject) it sends the body aws-chunked with a
 *   trailing checksum, which s3api answers 501 NotImplemented ("aws-chunked is not supported").
 *   lib-storage's Upload works either way (it buffers parts);
 * - `responseChecksumValidation: 'WHEN_REQUIRED'`: not needed by 2.30 (Swift returns no
 *   x-amz-checksum-* headers, so there is nothing to validate), set so GETs never ask for one;
 * - explicit credentials and region, so the AWS_* variables of the test process play no part.
 */
export function s3ClientFor(swift: Pick<TestSwift, 'endpoint' | 'region' | 'accessKeyId' | 'secretAccessKey'>, extra: S3ClientConfig = {}): S3Client {
  return new S3Client({
    endpoint: swift.endpoint,
    region: swift.region,
    credentials: { accessKeyId: swift.accessKeyId, secretAccessKey: swift.secretAccessKey },
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...extra,
  });
}

/** A free TCP port on 127.0.0.1 (bound to port 0, then released for the daemon). */
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

function tail(path: string, chars = 2000): string {
  try {
    const text = readFileSync(path, 'utf8');
    return text.length > chars ? `…${text.slice(-chars)}` : text;
  } catch {
    return '(no log)';
  }
}

/**
 * Runs the program with PR_SET_PDEATHSIG = SIGKILL set (it survives execve): the kernel kills it
 * when the test process dies, even by SIGKILL, where no 'exit' listener runs. Python's ctypes is
 * the one way to call prctl before exec that needs nothing more than the packages already needed.
 */
const PDEATHSIG = 'import ctypes, os, sys; ctypes.CDLL(None).prctl(1, 9, 0, 0, 0); os.execv(sys.argv[1], sys.argv[1:])';

// Daemons that may be running, killed by pid in the exit hook.
const live = new Set<Daemon>();
let exitHook = false;

function killOnExit(d: Daemon): void {
  live.add(d);
  if (exitHook) return;
  exitHook = true;
  // Prepended so it runs before tempDir's hook removes the dir under the daemons. Only
  // synchronous work runs in an 'exit' listener: SIGKILL, no waiting.
  process.prependListener('exit', () => {
    for (const d of live) d.kill();
    live.clear();
  });
}

/** One long-running process, its output appended to a log file. */
class Daemon {
  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  private exitNote = '';

  constructor(
    readonly name: string,
    readonly argv: string[],
    readonly log: string,
  ) {}

  get running(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  get pid(): number {
    if (!this.child?.pid || !this.running) throw new Error(`${this.name} is not running`);
    return this.child.pid;
  }

  /** Why it is not running, for errors ('' while it runs). */
  get why(): string {
    return this.running ? '' : this.exitNote || 'not started';
  }

  start(): void {
    if (this.running) return;
    const fd = openSync(this.log, 'a');
    try {
      const child = spawn(PYTHON, ['-c', PDEATHSIG, ...this.argv], { cwd: '/', stdio: ['ignore', fd, fd] });
      this.child = child;
      this.exitNote = '';
      this.exited = new Promise((resolve) => {
        child.once('exit', (code, signal) => {
          this.exitNote = `exited (${signal ?? `code ${code}`})`;
          live.delete(this);
          resolve();
        });
        child.once('error', (e) => {
          this.exitNote = `could not be started: ${e.message}`;
          live.delete(this);
          resolve();
        });
      });
      // A test that forgets stop() must not keep the test process alive: the exit hook kills it.
      child.unref();
      killOnExit(this);
    } finally {
      closeSync(fd);
    }
  }

  /** SIGTERM, SIGKILL after 5 s; resolves once the process is gone (its port is free then). */
  async stop(): Promise<void> {
    if (!this.running) return this.exited;
    this.child?.kill('SIGTERM');
    const late = setTimeout(() => this.kill(), 5000);
    try {
      await this.exited;
    } finally {
      clearTimeout(late);
    }
  }

  kill(): void {
    if (!this.running) return;
    try {
      this.child?.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** GET http://127.0.0.1:port/healthcheck answers 200 "OK". */
function healthy(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/healthcheck', timeout: 2000, agent: false }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode === 200));
      res.once('error', () => resolve(false));
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(false));
    req.end();
  });
}

/** Storage policy indexes in swift.conf: each needs an object ring (object.ring.gz, object-N.ring.gz). */
function policyIndexes(): number[] {
  const found = [...readFileSync(SWIFT_CONF, 'utf8').matchAll(/^\s*\[storage-policy:(\d+)\]/gm)].map((m) => Number(m[1]));
  return found.length ? [...new Set(found)] : [0];
}

/**
 * Builds one-replica rings of one device for account, container and every storage policy, in one
 * Python process (swift-ring-builder's create/add/rebalance per ring would be 12 interpreter
 * starts, seconds on a loaded machine). RingBuilder is what swift-ring-builder itself drives.
 */
function buildRings(dir: string, ports: { account: number; container: number; object: number }, policies: number[]): void {
  const rings: [string, number][] = [
    ['account', ports.account],
    ['container', ports.container],
    ...policies.map((p): [string, number] => [p === 0 ? 'object' : `object-${p}`, ports.object]),
  ];
  // Part power 8: 256 partitions are plenty for one device and few dirs to make.
  const script = `
import json, sys
from swift.common.ring import RingBuilder
d = sys.argv[1]
for name, port in json.loads(sys.argv[2]):
    b = RingBuilder(8, 1, 1)
    b.add_dev({'region': 1, 'zone': 1, 'ip': '127.0.0.1', 'port': port, 'device': 'd1', 'weight': 1, 'meta': ''})
    b.rebalance()
    b.save('%s/%s.builder' % (d, name))
    b.get_ring().save('%s/%s.ring.gz' % (d, name))
`;
  const r = spawnSync(PYTHON, ['-c', script, dir, JSON.stringify(rings)], { cwd: '/', encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0)
    throw new Error(`building Swift rings in ${dir} failed (${r.error?.message ?? `exit ${r.status}`}):\n${`${r.stdout}${r.stderr}`.slice(-2000)}`);
}

interface Ports {
  account: number;
  container: number;
  object: number;
  proxy: number;
  memcached: number;
}

/** [DEFAULT] shared by the four daemons. */
function defaults(dir: string, port: number): string {
  return `[DEFAULT]
bind_ip = 127.0.0.1
bind_port = ${port}
# Give up on a taken port in 3 s (not 30), so startSwift can pick other ports sooner.
bind_timeout = 3
# 0: serve in the process started, no forked workers, so its pid is the server's and one
# process per daemon is all the memory it takes.
workers = 0
# The daemons switch to this user (as root they would otherwise become 'swift').
user = ${userInfo().username}
swift_dir = ${dir}
devices = ${join(dir, 'devices')}
mount_check = false
# Logs go to stderr (-v) and so to log/<daemon>.log; the system's syslog is not ours to fill.
log_address = ${join(dir, 'no-syslog')}
log_level = INFO
`;
}

function storageConf(dir: string, port: number, kind: 'account' | 'container' | 'object'): string {
  return `${defaults(dir, port)}
[pipeline:main]
pipeline = healthcheck ${kind}-server

[app:${kind}-server]
use = egg:swift#${kind}
${
  kind === 'object'
    ? `# No space held back: the tests' disk may be fuller than Swift's 1 % reserve allows.
disable_fallocate = true
fallocate_reserve = 0
`
    : ''
}
[filter:healthcheck]
use = egg:swift#healthcheck
`;
}

function proxyConf(dir: string, ports: Ports): string {
  return `${defaults(dir, ports.proxy)}
[pipeline:main]
# s3api before tempauth (it turns a signed S3 request into one tempauth checks); slo after
# s3api (multipart uploads are completed as static large objects); cache for tempauth, which
# keeps its tokens in memcached (without it every S3 call answers 500).
pipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats s3api tempauth copy slo dlo proxy-logging proxy-server

[app:proxy-server]
use = egg:swift#proxy
allow_account_management = true
account_autocreate = true

[filter:s3api]
use = egg:swift#s3api
location = ${REGION}

[filter:tempauth]
use = egg:swift#tempauth
user_test_tester = ${SECRET_KEY} .admin

[filter:cache]
use = egg:swift#memcache
memcache_servers = 127.0.0.1:${ports.memcached}

[filter:catch_errors]
use = egg:swift#catch_errors

[filter:gatekeeper]
use = egg:swift#gatekeeper

[filter:healthcheck]
use = egg:swift#healthcheck

[filter:proxy-logging]
use = egg:swift#proxy_logging

[filter:listing_formats]
use = egg:swift#listing_formats

[filter:copy]
use = egg:swift#copy

[filter:slo]
use = egg:swift#slo

[filter:dlo]
use = egg:swift#dlo
`;
}

/** The Debian package's swift.conf, for a machine without one (root only). */
const DEFAULT_SWIFT_CONF = `[swift-hash]
swift_hash_path_suffix = changeme
swift_hash_path_prefix = changeme

[storage-policy:0]
name = Policy-0
default = yes
`;

class LocalSwift implements TestSwift {
  readonly endpoint: string;
  readonly port: number;
  readonly region = REGION;
  readonly accessKeyId = ACCESS_KEY;
  readonly secretAccessKey = SECRET_KEY;
  readonly env: TestSwift['env'];
  private readonly storage: Daemon[];
  private readonly memcached: Daemon;
  private readonly proxy: Daemon;
  // start/stop run one at a time, so overlapping calls cannot interleave.
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly dir: string,
    readonly ports: Ports,
    readonly readyMs: number,
  ) {
    this.port = ports.proxy;
    this.endpoint = `http://127.0.0.1:${ports.proxy}`;
    this.env = { AWS_ENDPOINT_URL: this.endpoint, AWS_REGION: REGION, AWS_ACCESS_KEY_ID: ACCESS_KEY, AWS_SECRET_ACCESS_KEY: SECRET_KEY };
    const log = (name: string) => join(dir, 'log', `${name}.log`);
    const server = (kind: string) => new Daemon(kind, [PYTHON, `/usr/bin/swift-${kind}-server`, join(dir, `${kind}-server.conf`), '-v'], log(kind));
    this.storage = [server('account'), server('container'), server('object')];
    this.proxy = server('proxy');
    // -U 0: no UDP; memcached refuses to run as root without -u.
    this.memcached = new Daemon(
      'memcached',
      ['/usr/bin/memcached', '-l', '127.0.0.1', '-p', String(ports.memcached), '-U', '0', '-m', '64', '-t', '1', ...(asRoot ? ['-u', 'root'] : [])],
      log('memcached'),
    );
  }

  private get all(): Daemon[] {
    return [this.memcached, ...this.storage, this.proxy];
  }

  private serial<T>(op: () => Promise<T>): Promise<T> {
    const next = this.queue.then(op);
    this.queue = next.catch(() => undefined);
    return next;
  }

  proxyPid(): number {
    return this.proxy.pid;
  }

  pids(): number[] {
    return this.all.filter((d) => d.running).map((d) => d.pid);
  }

  async createBucket(name: string): Promise<void> {
    const s3 = s3ClientFor(this);
    try {
      await s3.send(new CreateBucketCommand({ Bucket: name }));
    } finally {
      s3.destroy();
    }
  }

  stopProxy(): Promise<void> {
    return this.serial(() => this.proxy.stop());
  }

  startProxy(): Promise<void> {
    return this.serial(async () => {
      this.proxy.start();
      await this.waitReady([this.proxy]);
    });
  }

  stop(): Promise<void> {
    return this.serial(async () => {
      await Promise.all(this.all.map((d) => d.stop()));
    });
  }

  /** Starts everything; on failure stops what was started and throws with the logs' tails. */
  startAll(): Promise<void> {
    return this.serial(async () => {
      for (const d of this.all) d.start();
      try {
        await this.waitReady(this.all);
      } catch (e) {
        await Promise.all(this.all.map((d) => d.stop()));
        throw e;
      }
    });
  }

  /**
   * Polls each daemon's /healthcheck, then a signed S3 ListBuckets through the proxy (which also
   * needs memcached and tempauth), until all answer or readyMs pass. A daemon that exits fails it
   * at once.
   */
  private async waitReady(daemons: Daemon[]): Promise<void> {
    const deadline = Date.now() + this.readyMs;
    const portOf = new Map<Daemon, number>([
      [this.storage[0], this.ports.account],
      [this.storage[1], this.ports.container],
      [this.storage[2], this.ports.object],
      [this.proxy, this.ports.proxy],
    ]);
    const waiting = new Set(daemons.filter((d) => portOf.has(d)));
    let last = '';
    const s3 = s3ClientFor(this, { maxAttempts: 1, requestHandler: { connectionTimeout: 2000, requestTimeout: 5000 } });
    try {
      for (;;) {
        const dead = daemons.find((d) => !d.running);
        if (dead) throw this.fail(`Swift's ${dead.name} ${dead.why}`, [dead]);
        for (const d of [...waiting]) if (await healthy(portOf.get(d) ?? 0)) waiting.delete(d);
        if (waiting.size) {
          last = `no answer to /healthcheck from ${[...waiting].map((d) => d.name).join(', ')}`;
        } else {
          try {
            await s3.send(new ListBucketsCommand({}));
            return;
          } catch (e) {
            last = `S3 ListBuckets: ${(e as Error).name}: ${(e as Error).message}`;
          }
        }
        if (Date.now() >= deadline) {
          throw this.fail(`Swift not ready within ${this.readyMs} ms (${last})`, waiting.size ? [...waiting] : [this.proxy]);
        }
        await sleep(200);
      }
    } finally {
      s3.destroy();
    }
  }

  private fail(what: string, daemons: Daemon[]): Error {
    const logs = daemons.map((d) => `\n--- tail of ${d.log}:\n${tail(d.log, 1500) || '(empty)'}`).join('');
    return new Error(`${what} (Swift in ${this.dir}, proxy port ${this.ports.proxy})${logs}`);
  }
}

/**
 * Makes rings and confs in a temp dir and starts memcached and the four daemons on free ports;
 * resolves when S3 calls work. Throws SwiftUnavailableError when the packages are missing.
 */
export async function startSwift(opts: SwiftOptions = {}): Promise<TestSwift> {
  const missing = swiftMissing();
  if (missing) throw new SwiftUnavailableError(missing);
  if (!existsSync(SWIFT_CONF)) {
    mkdirSync('/etc/swift', { recursive: true });
    writeFileSync(SWIFT_CONF, DEFAULT_SWIFT_CONF);
  }
  // tempDir removes it at exit (or keeps it under KEEP_TEST_DIRS, logs included, for a look).
  const dir = tempDir('tickvault-swift-');
  mkdirSync(join(dir, 'devices', 'd1'), { recursive: true });
  mkdirSync(join(dir, 'log'));
  const readyMs = opts.readyMs ?? 45_000;
  // The ports are free when picked but could be taken before the daemons bind them: pick again.
  for (let attempt = 1; ; attempt++) {
    const ports: Ports = { account: 0, container: 0, object: 0, proxy: 0, memcached: 0 };
    const taken = new Set<number>();
    for (const k of Object.keys(ports) as (keyof Ports)[]) {
      let p = await freePort();
      while (taken.has(p)) p = await freePort();
      taken.add(p);
      ports[k] = p;
    }
    buildRings(dir, ports, policyIndexes());
    for (const kind of ['account', 'container', 'object'] as const) writeFileSync(join(dir, `${kind}-server.conf`), storageConf(dir, ports[kind], kind));
    writeFileSync(join(dir, 'proxy-server.conf'), proxyConf(dir, ports));
    const swift = new LocalSwift(dir, ports, readyMs);
    try {
      await swift.startAll();
      return swift;
    } catch (e) {
      if (attempt >= 3 || !/Address already in use|Could not bind|failed to listen/i.test((e as Error).message)) throw e;
    }
  }
}

/**
 * Swift for a test file, or null (after printing why) when Swift tests must skip. Throws under
 * CI=true when the packages are missing.
 */
export async function swiftForTests(what: string, opts?: SwiftOptions): Promise<TestSwift | null> {
  const missing = swiftMissing();
  if (!missing) return startSwift(opts);
  if (process.env.CI === 'true') throw new SwiftUnavailableError(`${what}: ${missing}; CI=true requires the Swift tests to run`);
  console.log(`SKIP ${what}: ${missing}`);
  return null;
}
