/**
 * The store put down and brought back under a running ingestor (issue 50): a real S3 store
 * (Swift s3api) and a real Kafka-protocol broker (kcat's mock cluster), `tickvault ingest
 * --store` over a feed of two days, its clock past both days' seal time.
 *
 *   1. The store's proxy is stopped before the ingestor starts. The days seal anyway (sealing
 *      never waits for the store); /metrics shows the store down with days due; `tickvault
 *      days` says the days are local; a `tickvault serve --store` on the same data directory
 *      answers a sealed day's level-2 page.
 *   2. The proxy is started again. The ingestor's own retry (no restart, no new seal) brings
 *      the store up to date: /metrics shows it up with nothing due, `tickvault days` says both,
 *      every file the catalog lists is in the bucket with the catalog's SHA-256, the log has
 *      one `uploads wait` line per failed pass, and the catalog holds every produced row.
 *   3. The proxy frozen (SIGSTOP: connections taken, nothing answered), a later day produced
 *      and sealed: its upload pass hangs on the store. SIGTERM: the ingestor exits 0 within
 *      seconds (it abandons the pass; the day stays due, recorded nowhere as stored).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import Database from 'better-sqlite3';
import type { S3Client } from '@aws-sdk/client-s3';
import { bucketKeys, bucketObject, catalogDigests, sha256Of } from '../../support/storeReference.js';
import { brokerForTests, uniqueTopicPrefix, type TestBroker } from '../../support/kafkaBroker.js';
import { exited, runCli, startCli, waitForLine } from '../../support/cli.js';
import { addAccount, postApi, startServer, type ServerHandle } from '../../support/server.js';
import { s3ClientFor, swiftForTests, type TestSwift } from '../../support/swift.js';
import { tempDir } from '../../support/tempDir.js';

const BUCKET = 'tvingest';
const STORE = `s3://${BUCKET}/lake`;
const DAYS = ['20250102', '20250103'] as const;
/** A day produced at the end, sealed while the store hangs. */
const LATER = '20250106';
/** Past both days' close and seal time (16:00): the ingestor seals them once caught up. */
const NOW = '2025-01-06T16:30:00+08:00';
/** The ingestor's retry of a store that is down (BackgroundUploads' default), and some slack. */
const RETRY_BOUND_MS = 90_000;

let swift: TestSwift | null = null;
let broker: TestBroker | null = null;
let s3: S3Client | null = null;
let work = '';
let dataDir = '';
let prefix = '';
/** Lines produced per dataset|tradedate (the feed has no faults: each becomes one row). */
const produced = new Map<string, number>();

const test = suite('ingest --store: the store down and back while the ingestor seals and a server answers');

test.before(async () => {
  // uvu reports a failed hook only as tests not passed: say why.
  await prepare().catch((e: unknown) => {
    console.error(`before: ${(e as Error).stack ?? String(e)}`);
    throw e;
  });
});

async function prepare(): Promise<void> {
  // The SDK's notice about Node 20, before the harness's first client (ObjectStore silences it in the CLI).
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  [swift, broker] = await Promise.all([swiftForTests('ingest uploads to the store'), brokerForTests('ingest uploads to the store (Kafka)')]);
  if (!swift || !broker) return;
  await swift.createBucket(BUCKET);
  s3 = s3ClientFor(swift);
  work = tempDir('tickvault-ingest-store-');
  dataDir = join(work, 'data');
  const feed = join(work, 'feed.jsonl');
  const gen = await runCli([
    'generate',
    '--out',
    feed,
    '--from',
    DAYS[0],
    '--days',
    String(DAYS.length),
    '--stocks',
    '3',
    '--indexes',
    '1',
    // Trades (and orders) on the later day: its bars files are among those uploaded.
    '--ticks',
    '1',
    '--tick-days',
    '1',
    '--faults',
    '0',
    '--seed',
    'store',
  ]);
  assert.is(gen.code, 0, gen.stderr);
  for (const line of readFileSync(feed, 'utf8').trim().split('\n')) {
    const m = JSON.parse(line) as { kind: string; tradedate: string };
    const k = `${m.kind}|${m.tradedate}`;
    produced.set(k, (produced.get(k) ?? 0) + 1);
  }
  prefix = uniqueTopicPrefix('ingest-store');
  const p = await runCli(['produce', '--brokers', broker.brokers, '--topics', topics(), feed]);
  assert.is(p.code, 0, p.stderr);
}

test.after(async () => {
  s3?.destroy();
  await Promise.all([swift?.stop(), broker?.stop()]);
});

function topics(): string {
  return `${prefix}.l2,${prefix}.ix,${prefix}.tr,${prefix}.or`;
}

/** One value of catalog.db by its own SQL (0 before the catalog exists). */
function catalogValue(sql: string): number {
  try {
    const db = new Database(join(dataDir, 'catalog.db'), { readonly: true, fileMustExist: true });
    try {
      return Number(db.prepare(sql).pluck().get() ?? 0);
    } finally {
      db.close();
    }
  } catch {
    return 0;
  }
}

const listedFiles = () => catalogDigests(dataDir);

/** Rows the catalog lists per dataset|tradedate. */
function catalogRows(): Map<string, number> {
  const db = new Database(join(dataDir, 'catalog.db'), { readonly: true });
  try {
    const rows = db.prepare('SELECT dataset, tradedate, sum(rows) AS n FROM files GROUP BY dataset, tradedate').all() as {
      dataset: string;
      tradedate: string;
      n: number;
    }[];
    return new Map(rows.map((r) => [`${r.dataset}|${r.tradedate}`, r.n]));
  } finally {
    db.close();
  }
}

async function inBucketKeys(under: string): Promise<Set<string>> {
  return new Set(await bucketKeys(s3!, BUCKET, under));
}

async function objectSha(key: string): Promise<string> {
  return sha256Of(await bucketObject(s3!, BUCKET, key));
}

async function metricsText(port: number): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  return res.text();
}

/** An unlabelled metric's value (NaN when absent). */
function metric(text: string, name: string): number {
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
}

async function until(what: string, cond: () => boolean | Promise<boolean>, child: ChildProcess, timeoutMs = 60_000): Promise<number> {
  const started = performance.now();
  while (!(await cond())) {
    if (child.exitCode !== null) throw new Error(`ingest exited (${child.exitCode}) while waiting for ${what}`);
    if (performance.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return performance.now() - started;
}

function linesOf(text: string, part: string): number {
  return text.split('\n').filter((l) => l.includes(part)).length;
}

async function whereDays(from: string = DAYS[0], to = from === DAYS[0] ? DAYS[DAYS.length - 1] : from): Promise<string[]> {
  const r = await runCli(['days', '--data-dir', dataDir, '--from', from, '--to', to, '--json'], { env: { TICKVAULT_NOW: NOW } });
  assert.is(r.code, 0, r.stderr);
  return (
    r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { dataset: string; day: string; where: string })
      // Days with no files of a dataset (no trades the first day) are where nothing is: '-'.
      .filter((d) => d.where !== '-')
      .map((d) => `${d.dataset} ${d.day} ${d.where}`)
      .sort()
  );
}

test('days seal with the store down; uploads catch up by the ingestor’s retry once it is back; SIGTERM during a hung pass exits 0', async () => {
  if (!swift || !broker) return;
  const t0 = performance.now();
  // Down before the ingestor starts: every pass it tries fails, whatever the timing of its seal.
  await swift.stopProxy();
  const child = startCli(
    [
      'ingest',
      '--brokers',
      broker.brokers,
      '--topics',
      topics(),
      '--group',
      `${prefix}-g`,
      '--data-dir',
      dataDir,
      '--metrics-port',
      '0',
      '--session-timeout',
      '3000',
      '--store',
      STORE,
    ],
    { env: { ...swift.env, TICKVAULT_NOW: NOW, TICKVAULT_LOG_LEVEL: 'info' } },
  );
  let log = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (log += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (log += d));
  let server: ServerHandle | null = null;
  let frozen = false;
  try {
    const listening = await waitForLine(child, /"msg":"metrics listening"/);
    const port = Number((JSON.parse(listening) as { port: number }).port);
    const datasetDays = produced.size;

    // 1. Sealed without the store.
    await until('every dataset-day sealed', () => catalogValue('SELECT count(*) FROM sealed_days') === datasetDays, child);
    assert.throws(() => swift!.proxyPid(), undefined, 'the proxy was down all the while');
    const downMs = await until(
      '/metrics to show the store down with days due',
      async () => {
        const text = await metricsText(port);
        return metric(text, 'tickvault_store_up') === 0 && metric(text, 'tickvault_store_due_days') === DAYS.length;
      },
      child,
    );
    const down = await metricsText(port);
    assert.is(metric(down, 'tickvault_store_uploaded_files_total'), 0);
    assert.ok(metric(down, 'tickvault_store_failures_total') >= 1);
    assert.match(log, /uploads wait: the store cannot take them now; retrying/);
    assert.is(catalogValue('SELECT count(*) FROM stored_days'), 0, 'no day recorded as stored');
    assert.equal(await whereDays(), [...produced.keys()].map((k) => `${k.replace('|', ' ')} local`).sort(), 'days: every sealed day local');
    // A server with the store answers the sealed (local) days meanwhile.
    const key = addAccount(dataDir, 'flagship').key;
    server = await startServer(dataDir, { now: NOW, env: swift.env, args: ['--store', STORE] });
    for (const day of DAYS) {
      const page = await postApi(server, { apiname: 'level2_quote_history', apikey: key, params: { symbol: '600000.SH', tradedate: day, page_size: 100 } });
      assert.is(page.status, 200, `${day}: ${page.text.slice(0, 300)}`);
      assert.is((page.json.data as { items?: unknown[] } | null)?.items?.length, 100, `${day}: a full page`);
    }
    const downAt = performance.now();

    // 2. Back up: the ingestor's retry carries on, without a restart or a new seal.
    await swift.startProxy();
    const caughtUpMs = await until(
      '/metrics to show the store up with nothing due',
      async () => {
        const text = await metricsText(port);
        return metric(text, 'tickvault_store_up') === 1 && metric(text, 'tickvault_store_due_days') === 0;
      },
      child,
      RETRY_BOUND_MS,
    );
    const upAt = performance.now();
    const up = await metricsText(port);
    const listed = listedFiles();
    assert.ok(listed.size >= 10, `a lake of ${listed.size} files`);
    assert.ok(
      [...listed.keys()].some((p) => p.startsWith('bars/')),
      'bars files among them',
    );
    assert.ok(metric(up, 'tickvault_store_uploaded_files_total') >= listed.size, 'every listed file sent (row text and manifests too)');
    assert.ok(metric(up, 'tickvault_store_uploaded_bytes_total') > 0);
    assert.equal(await whereDays(), [...produced.keys()].map((k) => `${k.replace('|', ' ')} both`).sort(), 'days: every sealed day here and in the store');
    const inBucket = await inBucketKeys('lake/');
    for (const [path, sha256] of listed) {
      assert.ok(inBucket.has(`lake/${path}`), `${path} in the bucket`);
      assert.is(await objectSha(`lake/${path}`), sha256, `${path}: the catalog's bytes`);
    }
    for (const day of DAYS) assert.ok(inBucket.has(`lake/_manifest/date=${day}/manifest.json.gz`), `${day}'s manifest`);
    assert.is(catalogValue('SELECT count(*) FROM stored_days'), DAYS.length);
    // One warning per failed pass, and no other kind of failure.
    const waits = linesOf(log, 'uploads wait: the store cannot take them now');
    assert.ok(waits >= 1);
    assert.is(metric(up, 'tickvault_store_failures_total'), waits, 'one uploads-wait line per failed pass');
    assert.not.match(log, /"msg":"not stored"/);
    // Nothing lost: every produced line is a row of its dataset-day.
    assert.equal(catalogRows(), produced);
    // The server still answers.
    const again = await postApi(server, { apiname: 'level2_quote_history', apikey: key, params: { symbol: '600000.SH', tradedate: DAYS[0], page_size: 10 } });
    assert.is(again.status, 200, again.text.slice(0, 300));

    // 3. SIGTERM while a pass waits on a store that takes connections and answers nothing (its
    // proxy frozen): a third day, sealed now, pokes a pass that hangs on its first request.
    const later = join(work, 'later.jsonl');
    const gen = await runCli(['generate', '--out', later, '--from', LATER, '--days', '1', '--stocks', '3', '--indexes', '1', '--ticks', '0', '--faults', '0']);
    assert.is(gen.code, 0, gen.stderr);
    const barsBefore = linesOf(log, '"msg":"bars made"');
    process.kill(swift.proxyPid(), 'SIGSTOP');
    frozen = true;
    const p = await runCli(['produce', '--brokers', broker.brokers, '--topics', topics(), later]);
    assert.is(p.code, 0, p.stderr);
    await until('the later day sealed', () => catalogValue(`SELECT count(*) FROM sealed_days WHERE tradedate = '${LATER}'`) === 2, child);
    // Its bars are made after its seal tick poked the uploads (the same tick pokes both): once
    // they are logged, a pass is under way, stuck on the frozen store.
    await until("the later day's bars", () => linesOf(log, '"msg":"bars made"') > barsBefore, child);
    const stopAt = performance.now();
    child.kill('SIGTERM');
    const r = await exited(child);
    const stopMs = performance.now() - stopAt;
    assert.is(r.code, 0, log.slice(-2000));
    assert.ok(stopMs < 15_000, `stopped in ${stopMs.toFixed(0)} ms`);
    process.kill(swift.proxyPid(), 'SIGCONT');
    frozen = false;
    assert.is(catalogValue(`SELECT count(*) FROM stored_days WHERE tradedate = '${LATER}'`), 0, 'the later day not recorded as stored');
    assert.equal(await whereDays(LATER), [`index ${LATER} local`, `level2 ${LATER} local`], 'the later day local only');
    assert.equal(await whereDays(), [...produced.keys()].map((k) => `${k.replace('|', ' ')} both`).sort(), 'the earlier days still both');
    console.log(
      `  store down: seen in /metrics ${downMs.toFixed(0)} ms after sealing; back up: caught up ${caughtUpMs.toFixed(0)} ms after the proxy came back ` +
        `(${((upAt - downAt) / 1000).toFixed(1)} s after the server's pages), ${waits} failed passes, ${listed.size} listed files; ` +
        `SIGTERM during a hung pass to exit ${stopMs.toFixed(0)} ms; ${((performance.now() - t0) / 1000).toFixed(1)} s in all`,
    );
  } finally {
    if (frozen) process.kill(swift.proxyPid(), 'SIGCONT');
    await server?.stop();
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited(child);
    }
    await swift.startProxy();
  }
});

test.run();
