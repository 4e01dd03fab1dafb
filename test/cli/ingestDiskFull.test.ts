/**
 * The running Kafka ingestor on a full or read-only disk, made for real (issue 39): its data directory on a
 * small tmpfs mounted here (root), filled to the last byte, then enlarged with
 * `mount -o remount,size=…`. The ingestor neither exits nor crash-loops: it stops consuming,
 * commits nothing to Kafka past what is durable, logs one line naming the stage, the path and
 * the cause, shows the fault in /metrics and /healthz (503), and resumes by itself once the
 * disk takes writes again — while staging, at a start, and while sealing the day at close. The
 * files at the end are those of a run that never met the fault (`doctor --digests`).
 *
 * The time from the remount to /healthz answering 200 again and to the next durable write is
 * measured and printed.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Database from 'better-sqlite3';
import { Kafka, logLevel } from 'kafkajs';
import { brokerForTests, uniqueTopicPrefix } from '../support/kafkaBroker.js';
import { exited, runCli, startCli } from '../support/cli.js';
import { tempDir } from '../support/tempDir.js';
import { isRoot, mountTmpfs, needsRoot } from '../support/tmpfs.js';
import { readCatalog } from '../support/catalog.js';

const t = suite('the Kafka ingestor on a full disk');
const BEFORE_CLOSE = '2025-01-02T14:00:00+08:00';
const AFTER_CLOSE = '2025-01-02T16:00:05+08:00';

/** Fills the file system holding `dir` to the last byte but `leaveKiB`. */
function fill(dir: string, name: string, leaveKiB = 0): void {
  const filler = join(dir, name);
  spawnSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=1M'], { stdio: 'ignore' });
  if (leaveKiB > 0) assert.is(spawnSync('truncate', ['-s', `-${leaveKiB}K`, filler]).status, 0);
  const free = Number(spawnSync('df', ['--output=avail', '-k', dir], { encoding: 'utf8' }).stdout.trim().split('\n').at(-1));
  assert.ok(free <= leaveKiB + 64, `${dir} filled (${free} KiB free)`);
}

/** The ingestor's log lines (JSON on stderr), all of them, to wait on past or future ones. */
class Ingestor {
  readonly lines: string[] = [];
  private waiters: (() => void)[] = [];
  private partial = '';

  constructor(readonly child: ChildProcess) {
    const onData = (d: string) => {
      const text = this.partial + d;
      const lines = text.split('\n');
      this.partial = lines.pop()!;
      this.lines.push(...lines);
      for (const w of this.waiters.splice(0)) w();
    };
    child.stderr!.setEncoding('utf8').on('data', onData);
    child.stdout!.setEncoding('utf8').on('data', onData);
    child.on('exit', () => {
      for (const w of this.waiters.splice(0)) w();
    });
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  matching(pattern: RegExp): string[] {
    return this.lines.filter((l) => pattern.test(l));
  }

  /** The first log line matching `pattern`, seen already or to come; fails if the process exits first. */
  async line(pattern: RegExp, timeoutMs = 60_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = this.lines.find((l) => pattern.test(l));
      if (hit !== undefined) return hit;
      if (!this.alive) throw new Error(`ingest exited (${this.child.exitCode}) before a line matching ${pattern}:\n${this.lines.slice(-20).join('\n')}`);
      if (Date.now() > deadline) throw new Error(`timed out waiting for a line matching ${pattern}:\n${this.lines.slice(-20).join('\n')}`);
      await new Promise<void>((r) => {
        const timer = setTimeout(r, Math.max(1, deadline - Date.now()));
        this.waiters.push(() => {
          clearTimeout(timer);
          r();
        });
      });
    }
  }

  async until(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await cond())) {
      if (!this.alive) throw new Error(`ingest exited (${this.child.exitCode}) while waiting for ${what}:\n${this.lines.slice(-20).join('\n')}`);
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${this.lines.slice(-10).join('\n')}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async stop(): Promise<number | null> {
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 60_000);
    const r = await exited(this.child);
    clearTimeout(timer);
    return r.code;
  }
}

function startIngest(args: { brokers: string; topics: string; group: string; dataDir: string; now: string }): Ingestor {
  return new Ingestor(
    startCli(
      [
        'ingest',
        '--brokers',
        args.brokers,
        '--topics',
        args.topics,
        '--group',
        args.group,
        '--data-dir',
        args.dataDir,
        '--metrics-port',
        '0',
        '--session-timeout',
        '6000',
      ],
      { env: { TICKVAULT_NOW: args.now, TICKVAULT_LOG_LEVEL: 'info' } },
    ),
  );
}

async function metricsPort(ing: Ingestor): Promise<number> {
  return Number((JSON.parse(await ing.line(/"msg":"metrics listening"/)) as { port: number }).port);
}

async function get(port: number, path: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(10_000) });
  return { status: res.status, text: await res.text() };
}

function metric(text: string, name: string, labels: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line === undefined ? null : Number(line.split(' ').at(-1));
}

/** The offsets durably recorded in ingest.db, by `topic/partition` (empty if it cannot be read yet). */
function storedOffsets(dataDir: string): Map<string, number> {
  try {
    const d = new Database(join(dataDir, 'ingest.db'), { readonly: true, fileMustExist: true });
    try {
      const rows = d.prepare('SELECT topic, partition, next_offset FROM kafka_offsets').all() as { topic: string; partition: number; next_offset: number }[];
      return new Map(rows.map((r) => [`${r.topic}/${r.partition}`, r.next_offset]));
    } finally {
      d.close();
    }
  } catch {
    return new Map();
  }
}

const sum = (m: ReadonlyMap<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

async function committedOffsets(brokers: string, group: string, topics: readonly string[]): Promise<Map<string, number>> {
  const admin = new Kafka({ brokers: [brokers], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const out = new Map<string, number>();
    for (const c of await admin.fetchOffsets({ groupId: group, topics: [...topics] })) {
      for (const p of c.partitions) if (Number(p.offset) >= 0) out.set(`${c.topic}/${p.partition}`, Number(p.offset));
    }
    return out;
  } finally {
    await admin.disconnect();
  }
}

const digests = async (dataDir: string) => {
  const r = await runCli(['doctor', '--digests', '--data-dir', dataDir]);
  assert.is(r.code, 0, r.stdout + r.stderr);
  return r.stdout;
};

if (!isRoot) {
  needsRoot(t);
} else {
  const broker = await brokerForTests('ingest on a full disk');
  if (broker) {
    t.after(() => broker.stop());
    t('started on a read-only disk (EROFS): waits, says so, and opens and consumes once the disk is writable', async () => {
      const work = tempDir('tickvault-ingest-ro-work-');
      const prefix = uniqueTopicPrefix('ingest-ro');
      const topics = `${prefix}.l2,${prefix}.ix`;
      const feed = join(work, 'feed.jsonl');
      const gen = await runCli([
        'generate',
        '--out',
        feed,
        '--from',
        '20250102',
        '--days',
        '1',
        '--stocks',
        '1',
        '--indexes',
        '1',
        '--seed',
        'ro',
        '--ticks',
        '0',
      ]);
      assert.is(gen.code, 0, gen.stderr);
      const lines = Number(/generated (\d+) lines/.exec(gen.stdout)![1]);
      assert.is((await runCli(['produce', '--brokers', broker.brokers, '--topics', topics, feed])).code, 0);
      const fs = mountTmpfs('64m', 'tickvault-ingest-full-');
      const dataDir = join(fs.dir, 'data');
      mkdirSync(dataDir);
      // A running ingestor keeps files open for writing, so Linux refuses to remount its disk
      // read-only ("busy"): a read-only disk meets it at a start (or by errors=remount-ro).
      fs.remount('ro');
      try {
        const ing = startIngest({ brokers: broker.brokers, topics, group: `${prefix}-g`, dataDir, now: BEFORE_CLOSE });
        let stopped: number | null = null;
        try {
          const port = await metricsPort(ing);
          const fault = await ing.line(/"msg":"disk fault: /, 60_000);
          console.log(`  read-only start logged: ${fault}`);
          const f = JSON.parse(fault) as { stage: string; cause: string; msg: string };
          assert.is(f.stage, 'open');
          assert.is(f.cause, 'read-only file system');
          assert.match(f.msg, new RegExp(`^disk fault: read-only file system while opening the data directory at ${dataDir}`));
          await ing.until(
            'three failed opens',
            async () => (metric((await get(port, '/metrics')).text, 'tickvault_ingest_disk_write_failures_total', 'stage="open"') ?? 0) >= 3,
            60_000,
          );
          const health = await get(port, '/healthz');
          assert.is(health.status, 503);
          assert.match(health.text, /^open: read-only file system while opening the data directory at /);
          assert.is(metric((await get(port, '/metrics')).text, 'tickvault_ingest_disk_fault', 'stage="open",cause="read-only file system"'), 1);
          assert.ok(ing.alive, 'still running');
          const t0 = performance.now();
          fs.remount('rw');
          await ing.until('/healthz 200 after the remount', async () => (await get(port, '/healthz')).status === 200, 30_000);
          console.log(`  writable again: /healthz 200 ${(performance.now() - t0).toFixed(0)} ms after the remount`);
          await ing.until('every message staged', () => sum(storedOffsets(dataDir)) === lines, 120_000);
          assert.is(metric((await get(port, '/metrics')).text, 'tickvault_ingest_disk_fault', 'stage="open",cause="none"'), 0);
        } finally {
          stopped = await ing.stop();
        }
        assert.is(stopped, 0, 'a clean stop');
      } finally {
        fs.unmount();
      }
    });

    t('SIGTERM during a staging fault: a clean exit 0, Kafka not past what is durable; a restart with room stages every message', async () => {
      const work = tempDir('tickvault-ingest-stop-work-');
      const prefix = uniqueTopicPrefix('ingest-stop');
      const topicList = [`${prefix}.l2`, `${prefix}.ix`];
      const topics = topicList.join(',');
      const group = `${prefix}-g`;
      const feed = join(work, 'feed.jsonl');
      const gen = await runCli([
        'generate',
        '--out',
        feed,
        '--from',
        '20250102',
        '--days',
        '1',
        '--stocks',
        '1',
        '--indexes',
        '1',
        '--seed',
        'stop',
        '--ticks',
        '0',
      ]);
      assert.is(gen.code, 0, gen.stderr);
      const lines = Number(/generated (\d+) lines/.exec(gen.stdout)![1]);
      const fs = mountTmpfs('32m', 'tickvault-ingest-full-');
      const dataDir = join(fs.dir, 'data');
      mkdirSync(dataDir);
      try {
        const ing = startIngest({ brokers: broker.brokers, topics, group, dataDir, now: BEFORE_CLOSE });
        let stopped: number | null = null;
        try {
          await metricsPort(ing);
          await ing.line(/"msg":"partitions assigned"/, 60_000);
          fill(fs.dir, 'filler');
          assert.is((await runCli(['produce', '--brokers', broker.brokers, '--topics', topics, feed])).code, 0);
          await ing.line(/"msg":"disk fault: .* while staging rows in /, 60_000);
        } finally {
          const t0 = performance.now();
          stopped = await ing.stop();
          console.log(`  SIGTERM during the fault: exit ${stopped} in ${(performance.now() - t0).toFixed(0)} ms`);
        }
        assert.is(stopped, 0);
        const stored = storedOffsets(dataDir);
        assert.ok(sum(stored) < lines, 'the feed was not all staged');
        for (const [k, offset] of await committedOffsets(broker.brokers, group, topicList)) {
          assert.ok(offset <= (stored.get(k) ?? 0), `${k}: Kafka's committed offset ${offset} is not past the durable ${stored.get(k) ?? 0}`);
        }
        fs.resize('128m');
        const again = startIngest({ brokers: broker.brokers, topics, group, dataDir, now: BEFORE_CLOSE });
        stopped = null;
        try {
          await again.until('every message staged after the restart', () => sum(storedOffsets(dataDir)) === lines, 120_000);
        } finally {
          stopped = await again.stop();
        }
        assert.is(stopped, 0);
      } finally {
        fs.unmount();
      }
    });

    t('stops on a full disk while staging and while sealing, stays up, says so, resumes by itself; the files equal a clean run', async () => {
      const work = tempDir('tickvault-ingest-full-work-');
      const prefix = uniqueTopicPrefix('ingest-full');
      const topicList = [`${prefix}.l2`, `${prefix}.ix`];
      const topics = topicList.join(',');
      const feed = join(work, 'feed.jsonl');
      const gen = await runCli([
        'generate',
        '--out',
        feed,
        '--from',
        '20250102',
        '--days',
        '1',
        '--stocks',
        '3',
        '--indexes',
        '1',
        '--seed',
        'full',
        '--ticks',
        '0',
      ]);
      assert.is(gen.code, 0, gen.stderr);
      const lines = Number(/generated (\d+) lines/.exec(gen.stdout)![1]);
      const produced = await runCli(['produce', '--brokers', broker.brokers, '--topics', topics, feed]);
      assert.is(produced.code, 0, produced.stderr);

      // The reference: the same feed ingested where there is room, sealed at close.
      const clean = join(work, 'clean');
      const ref = startIngest({ brokers: broker.brokers, topics, group: `${prefix}-clean`, dataDir: clean, now: AFTER_CLOSE });
      try {
        await ref.until('the clean run to seal both dataset-days', () => readCatalog(clean, (c) => c.sealedDays().length, 0) === 2, 120_000);
      } finally {
        assert.is(await ref.stop(), 0);
      }
      const want = await digests(clean);

      const fs = mountTmpfs('32m', 'tickvault-ingest-full-');
      const dataDir = join(fs.dir, 'data');
      mkdirSync(dataDir);
      const group = `${prefix}-full`;
      try {
        // ---- 1. staging on a full disk ----------------------------------------------------
        const ing = startIngest({ brokers: broker.brokers, topics, group, dataDir, now: BEFORE_CLOSE });
        let stopped: number | null = null;
        try {
          const port = await metricsPort(ing);
          assert.is((await get(port, '/healthz')).status, 200);
          // The disk fills before the ingestor has staged anything of the feed it is reading.
          fill(fs.dir, 'filler-1');
          const fault = await ing.line(/"msg":"disk fault: /, 120_000);
          console.log(`  staging fault logged: ${fault}`);
          const f = JSON.parse(fault) as { stage: string; cause: string; path: string; msg: string };
          assert.is(f.stage, 'staging');
          assert.is(f.cause, 'no space left on device');
          assert.ok(f.path.startsWith(dataDir), `the line names a path in the data directory: ${f.path}`);
          assert.match(f.msg, new RegExp(`^disk fault: no space left on device while staging rows in ${dataDir}`));
          assert.match(f.msg, /consumption paused/);
          const faultAt = ing.lines.indexOf(fault);
          // It retries (failures counted) and stays up, without a line per retry, longer than the
          // session timeout (6 s): paused, kafkajs keeps heartbeating, so the group holds.
          await ing.until(
            'eight failed writes (about 16 s)',
            async () => (metric((await get(port, '/metrics')).text, 'tickvault_ingest_disk_write_failures_total', 'stage="staging"') ?? 0) >= 8,
            60_000,
          );
          assert.equal(
            ing.lines.slice(faultAt).filter((l) => /group rebalancing|crashed|partitions assigned/.test(l)),
            [],
            'the group membership held through the fault',
          );
          const m = (await get(port, '/metrics')).text;
          assert.is(metric(m, 'tickvault_ingest_disk_fault', 'stage="staging",cause="no space left on device"'), 1);
          assert.is(metric(m, 'tickvault_ingest_disk_faults_total', 'stage="staging"'), 1);
          const health = await get(port, '/healthz');
          console.log(`  /healthz during the fault: ${health.status} ${health.text.trim()}`);
          assert.is(health.status, 503);
          assert.match(health.text, new RegExp(`^staging: no space left on device while staging rows in ${dataDir}`));
          assert.ok(ing.alive, 'still running');
          assert.is(ing.matching(/"msg":"disk fault/).length, 1, 'logged once (the reminder comes after a minute)');
          assert.is(ing.matching(/"level":60/).length, 0, 'no fatal line');
          assert.is(ing.matching(/background task failed|crashed/).length, 0, 'no failed tick, no consumer crash');
          // Nothing committed to Kafka past what is durable; the feed is not all staged.
          const stored = storedOffsets(dataDir);
          assert.ok(sum(stored) < lines, `not everything staged during the fault (${sum(stored)} of ${lines})`);
          for (const [k, offset] of await committedOffsets(broker.brokers, group, topicList)) {
            assert.ok(offset <= (stored.get(k) ?? 0), `${k}: Kafka's committed offset ${offset} is not past the durable ${stored.get(k) ?? 0}`);
          }

          // Room again: it resumes by itself.
          const before = sum(stored);
          const t0 = performance.now();
          fs.resize('128m');
          let healthyMs = -1;
          let durableMs = -1;
          await ing.until(
            '/healthz 200 and a durable write after the remount',
            async () => {
              if (durableMs < 0 && sum(storedOffsets(dataDir)) > before) durableMs = performance.now() - t0;
              if (healthyMs < 0 && (await get(port, '/healthz')).status === 200) healthyMs = performance.now() - t0;
              return healthyMs >= 0 && durableMs >= 0;
            },
            30_000,
          );
          const resumed = await ing.line(/"msg":"disk writable again: staging resumed/, 10_000);
          console.log(`  staging resumed: ${resumed}`);
          console.log(`  resume after the remount (staging): /healthz 200 in ${healthyMs.toFixed(0)} ms, next durable write in ${durableMs.toFixed(0)} ms`);
          assert.ok(healthyMs < 10_000 && durableMs < 10_000, 'within two retry periods (5 s each)');
          await ing.until('every message staged', () => sum(storedOffsets(dataDir)) === lines, 120_000);
          const after = (await get(port, '/metrics')).text;
          assert.is(metric(after, 'tickvault_ingest_disk_fault', 'stage="staging",cause="none"'), 0);
          assert.is(metric(after, 'tickvault_ingest_disk_fault', 'stage="staging",cause="no space left on device"'), null);
        } finally {
          stopped = await ing.stop();
        }
        assert.is(stopped, 0, 'a clean stop after the fault');
        assert.is(
          readCatalog(dataDir, (c) => c.fileCount(), 0),
          0,
          'nothing sealed before the close',
        );

        // ---- 2. a start, then the seal at day close, on a full disk -------------------------
        fill(fs.dir, 'filler-2');
        const sealing = startIngest({ brokers: broker.brokers, topics, group, dataDir, now: AFTER_CLOSE });
        stopped = null;
        try {
          const port = await metricsPort(sealing);
          // Opening writes (the WAL, the writer's row): it waits instead of exiting into a crash loop.
          const openFault = await sealing.line(/"msg":"disk fault: /, 60_000);
          console.log(`  start-up fault logged: ${openFault}`);
          assert.is((JSON.parse(openFault) as { stage: string }).stage, 'open');
          await sealing.until(
            'three failed opens',
            async () => (metric((await get(port, '/metrics')).text, 'tickvault_ingest_disk_write_failures_total', 'stage="open"') ?? 0) >= 3,
            60_000,
          );
          const atOpen = await get(port, '/healthz');
          assert.is(atOpen.status, 503);
          assert.match(atOpen.text, new RegExp(`^open: no space left on device while opening the data directory at ${dataDir}`));
          assert.ok(sealing.alive, 'still running');
          // Room for the ingestor to open its stores, not for the day's Parquet files.
          assert.is(spawnSync('truncate', ['-s', '-512K', join(fs.dir, 'filler-2')]).status, 0);
          await sealing.line(/"msg":"disk writable again: open resumed/, 30_000);
          const fault = await sealing.line(/"msg":"disk fault: .* while sealing/, 120_000);
          console.log(`  seal fault logged: ${fault}`);
          const f = JSON.parse(fault) as { stage: string; cause: string; path: string; msg: string };
          assert.is(f.stage, 'seal');
          assert.is(f.cause, 'no space left on device');
          assert.ok(f.path.startsWith(dataDir), `the line names a path in the data directory: ${f.path}`);
          await sealing.until(
            'three failed seals',
            async () => (metric((await get(port, '/metrics')).text, 'tickvault_ingest_disk_write_failures_total', 'stage="seal"') ?? 0) >= 3,
            60_000,
          );
          const health = await get(port, '/healthz');
          console.log(`  /healthz during the seal fault: ${health.status} ${health.text.trim()}`);
          assert.is(health.status, 503);
          assert.match(health.text, /^seal: no space left on device while /m);
          assert.ok(sealing.alive, 'still running');
          assert.is(
            readCatalog(dataDir, (c) => c.sealedDays().length, 0),
            0,
            'nothing sealed on the full disk',
          );

          const t0 = performance.now();
          fs.resize('256m');
          let healthyMs = -1;
          await sealing.until(
            '/healthz 200 and both days sealed after the remount',
            async () => {
              if (healthyMs < 0 && (await get(port, '/healthz')).status === 200) healthyMs = performance.now() - t0;
              return healthyMs >= 0 && readCatalog(dataDir, (c) => c.sealedDays().length, 0) === 2;
            },
            60_000,
          );
          const sealedMs = performance.now() - t0;
          console.log(`  seal resumed: ${await sealing.line(/"msg":"disk writable again: seal resumed/, 10_000)}`);
          console.log(`  resume after the remount (seal): /healthz 200 in ${healthyMs.toFixed(0)} ms, both days sealed in ${sealedMs.toFixed(0)} ms`);
          assert.is(sealing.matching(/"level":60/).length, 0, 'no fatal line');
          assert.is(sealing.matching(/"msg":"disk fault/).length, 2, 'the start-up fault and the seal fault, each logged once');
          assert.is(sealing.matching(/background task failed/).length, 0, 'a seal fault is not logged as a failed tick per retry');
        } finally {
          stopped = await sealing.stop();
        }
        assert.is(stopped, 0, 'a clean stop after the seal');
        assert.is(await digests(dataDir), want, 'the files equal those of the clean run');
      } finally {
        fs.unmount();
      }
    });
  }
}

t.run();
