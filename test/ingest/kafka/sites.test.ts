/**
 * Two sites, one seal cut per partition-day (ingest --state-url). Each site has its own data
 * directory and consumer group on the same topics (a real Kafka-protocol broker: librdkafka's
 * mock cluster in kcat) and both share one real PostgreSQL database. One day's messages are
 * produced before site A seals, between A's seal and B's, and after both; B starts only after
 * A sealed (it was "down" at seal time), consumes part of the day before its own seal time, is
 * SIGKILLed in the middle and restarted. Every file must then have the same SHA-256 on both
 * sites — and equal the files `tickvault replay` makes of exactly the messages before the cut —
 * and both sites must have quarantined the same messages as late: every message after A's seal.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import Database from 'better-sqlite3';
import pg from 'pg';
import { Kafka, logLevel } from 'kafkajs';
import { brokerForTests, uniqueTopicPrefix } from '../../support/kafkaBroker.js';
import { postgresForTests } from '../../support/postgres.js';
import { exited, runCli, startCli } from '../../support/cli.js';
import { tempDir } from '../../support/tempDir.js';
import { readCatalog } from '../../support/catalog.js';

const broker = await brokerForTests('two-site seal cut tests (Kafka)');
const cluster = broker ? await postgresForTests('two-site seal cut tests (PostgreSQL)') : null;

const DAY = '20250106';
const SEAL_TIME = '2025-01-06T16:30:00+08:00'; // past close + grace: the day is due once caught up
const BEFORE_SEAL_TIME = '2025-01-06T15:30:00+08:00'; // not due yet: the site only consumes

interface Ingest {
  readonly child: ChildProcess;
  readonly logs: () => Record<string, unknown>[];
}

function startIngest(brokers: string, topics: string, group: string, dataDir: string, stateUrl: string, now: string): Ingest {
  const child = startCli(
    ['ingest', '--brokers', brokers, '--topics', topics, '--group', group, '--data-dir', dataDir, '--session-timeout', '3000', '--state-url', stateUrl],
    { env: { TICKVAULT_NOW: now, TICKVAULT_LOG_LEVEL: 'info' } },
  );
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  child.stdout!.resume();
  return {
    child,
    logs: () =>
      err
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

async function until(what: string, cond: () => boolean, ing: Ingest | null, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (ing && (ing.child.exitCode !== null || ing.child.signalCode !== null)) {
      throw new Error(
        `ingest exited (${ing.child.exitCode ?? ing.child.signalCode}) while waiting for ${what}:\n${ing
          .logs()
          .slice(-5)
          .map((l) => JSON.stringify(l))
          .join('\n')}`,
      );
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const daySealed = (ing: Ingest, dataset: string) => () => ing.logs().some((l) => l.msg === 'day sealed' && l.dataset === dataset && l.tradedate === DAY);

interface Quarantined {
  readonly source: string;
  readonly reason: string;
  readonly raw: string;
}

function quarantine(dataDir: string): Quarantined[] {
  const db = new Database(join(dataDir, 'ingest.db'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT source, reason, raw FROM quarantine ORDER BY source, reason').all() as Quarantined[];
  } finally {
    db.close();
  }
}

/** Every sealed file's path and SHA-256, hashed here from the bytes on disk. */
function digests(dataDir: string): Map<string, string> {
  const out = new Map<string, string>();
  const paths = readCatalog(dataDir, (c) => [...c.everyFile()].map((f) => f.path), [] as string[]);
  for (const path of paths)
    out.set(
      path,
      createHash('sha256')
        .update(readFileSync(join(dataDir, path)))
        .digest('hex'),
    );
  return out;
}

/** Valid day-DAY lines of the feed, changed so that each is a distinct message (a correction). */
function corrections(feedLines: readonly string[], n: number, salt: number): string[] {
  const out: string[] = [];
  for (const line of feedLines) {
    if (out.length >= n) break;
    let obj: Record<string, unknown>;
    try {
      obj = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (obj.tradedate !== DAY || typeof obj.close !== 'number') continue;
    // A new close each phase, so that each phase's messages are distinct.
    out.push(JSON.stringify({ ...obj, close: Math.round((obj.close as number) * 100 + salt + out.length) / 100 }));
  }
  return out;
}

const test = suite('two sites, one seal cut per partition-day');

if (broker && cluster) {
  const work = tempDir('tickvault-sites-');
  const prefix = uniqueTopicPrefix('sites');
  const topics = `${prefix}.level2,${prefix}.index`;
  const siteA = join(work, 'site-a');
  const siteB = join(work, 'site-b');
  let stateUrl: string;

  test.after(async () => {
    await cluster.stop();
    await broker.stop();
  });

  test('files identical on both sites, equal to a replay of the messages before the cut; the same messages late on both', async () => {
    stateUrl = await cluster.createDatabase();
    const feed = join(work, 'feed.jsonl');
    const gen = await runCli([
      'generate',
      '--out',
      feed,
      '--from',
      DAY,
      '--days',
      '1',
      '--stocks',
      '4',
      '--indexes',
      '2',
      '--seed',
      'sites',
      '--faults',
      '0.005',
      '--ticks',
      '0',
    ]);
    assert.is(gen.code, 0, gen.stderr);
    const lines = readFileSync(feed, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '');
    // Later phases: corrections of the day's rows, spread over the feed (every symbol).
    const spread = lines.filter((_, i) => i % 97 === 0);
    const phases = [1, 2, 3].map((k) => corrections(spread, 40, k * 7));
    const phaseFiles = phases.map((p, k) => {
      const f = join(work, `phase${k + 2}.jsonl`);
      writeFileSync(f, p.join('\n') + '\n');
      return f;
    });
    const produce = async (file: string) => {
      const r = await runCli(['produce', '--brokers', broker.brokers, '--topics', topics, file]);
      assert.is(r.code, 0, r.stderr);
    };

    // Phase 1: the day. Site A consumes it, is due and seals: its positions become the cuts.
    await produce(feed);
    const a = startIngest(broker.brokers, topics, 'site-a', siteA, stateUrl, SEAL_TIME);
    await until('site A sealing the day', () => daySealed(a, 'level2')() && daySealed(a, 'index')(), a);

    // Phase 2 after A's seal. Site B starts now (it was down at seal time), before its own seal
    // time: it stages the day, phase 2 included, then crashes in the middle.
    await produce(phaseFiles[0]);
    const b1 = startIngest(broker.brokers, topics, 'site-b', siteB, stateUrl, BEFORE_SEAL_TIME);
    const ends = await endOffsets(broker.brokers, topics.split(','));
    await until('site B staging the day and phase 2', () => recordedOffsets(siteB) >= ends, b1);
    b1.child.kill('SIGKILL');
    await exited(b1.child);

    // Phase 3 between the seals; B restarts at seal time, catches up and seals at A's cuts.
    await produce(phaseFiles[1]);
    const b2 = startIngest(broker.brokers, topics, 'site-b', siteB, stateUrl, SEAL_TIME);
    await until('site B sealing the day', () => daySealed(b2, 'level2')() && daySealed(b2, 'index')(), b2);
    // B sealed every partition-day at A's cut (from the shared database, not its own position).
    const bCuts = b2
      .logs()
      .filter((l) => l.msg === 'partition sealed')
      .map((l) => `${l.topic}/${l.partition}@${l.cut}`)
      .sort();
    const aCuts = a
      .logs()
      .filter((l) => l.msg === 'partition sealed')
      .map((l) => `${l.topic}/${l.partition}@${l.cut}`)
      .sort();
    assert.is(aCuts.length, 8);
    assert.equal(bCuts, aCuts);

    // Phase 4 after both seals: late on arrival at both.
    await produce(phaseFiles[2]);
    const lateWanted = phases.reduce((n, p) => n + p.length, 0);
    const lateCount = (dir: string) => quarantine(dir).filter((q) => q.reason.startsWith('late:')).length;
    await until('site A quarantining every later message', () => lateCount(siteA) >= lateWanted, a);
    await until('site B quarantining every later message', () => lateCount(siteB) >= lateWanted, b2);
    for (const ing of [a, b2]) {
      ing.child.kill('SIGTERM');
      assert.is((await exited(ing.child)).code, 0);
    }

    // The same files, byte for byte, on both sites …
    const da = digests(siteA);
    const db = digests(siteB);
    assert.ok(da.size >= 6, `files sealed: ${da.size}`);
    assert.equal([...db.entries()].sort(), [...da.entries()].sort());
    // … and they are what a replay of the messages before the cut (phase 1) writes.
    const replayDir = join(work, 'replay');
    const rep = await runCli(['replay', '--data-dir', replayDir, feed], { env: { TICKVAULT_NOW: SEAL_TIME } });
    assert.is(rep.code, 0, rep.stderr);
    assert.equal([...digests(replayDir).entries()].sort(), [...da.entries()].sort());
    // Operators compare sites by one line.
    const lastLine = async (dir: string) => (await runCli(['doctor', '--digests', '--data-dir', dir])).stdout.trim().split('\n').pop();
    assert.is(await lastLine(siteB), await lastLine(siteA));

    // The same quarantine on both: the bad lines of phase 1, and every later message as late.
    const qa = quarantine(siteA);
    const qb = quarantine(siteB);
    assert.equal(qb, qa);
    assert.is(qa.filter((q) => q.reason.startsWith('late:')).length, lateWanted, 'every message after the cut, once');
    const lateRaw = new Set(qa.filter((q) => q.reason.startsWith('late:')).map((q) => JSON.parse(q.raw).close as number));
    for (const p of phases) for (const l of p) assert.ok(lateRaw.has(JSON.parse(l).close as number), `late line kept: ${l.slice(0, 80)}`);

    // One cut per partition-day, set by site A, the first to seal.
    const c = new pg.Client({ connectionString: stateUrl });
    await c.connect();
    try {
      const cuts = await c.query<{ created_by: string; n: string }>('SELECT created_by, count(*) AS n FROM tickvault.seal_cuts GROUP BY created_by');
      assert.equal(
        cuts.rows.map((r) => [r.created_by, Number(r.n)]),
        [['site-a', 8]],
        'two topics × four partitions, all agreed by A',
      );
    } finally {
      await c.end();
    }
  });
}

test.run();

/** The sum of every partition's end offset over the topics: what a caught-up site has recorded. */
async function endOffsets(brokers: string, topics: readonly string[]): Promise<number> {
  const admin = new Kafka({ brokers: [brokers], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    let sum = 0;
    for (const t of topics) for (const p of await admin.fetchTopicOffsets(t)) sum += Number(p.high);
    return sum;
  } finally {
    await admin.disconnect();
  }
}

/** The sum of the next offsets a site has durably recorded (0 before ingest.db exists). */
function recordedOffsets(dataDir: string): number {
  try {
    const db = new Database(join(dataDir, 'ingest.db'), { readonly: true, fileMustExist: true });
    try {
      return (db.prepare('SELECT coalesce(sum(next_offset), 0) AS n FROM kafka_offsets').get() as { n: number }).n;
    } finally {
      db.close();
    }
  } catch {
    return 0;
  }
}
