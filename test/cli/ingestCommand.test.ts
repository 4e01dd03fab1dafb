import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import Database from 'better-sqlite3';
import { CompressionTypes, Kafka, logLevel, Partitioners } from 'kafkajs';
import { brokerForTests, uniqueTopicPrefix } from '../support/kafkaBroker.js';
import { exited, runCli, startCli, waitForLine } from '../support/cli.js';
import { tempDir } from '../support/tempDir.js';
import { readCatalog } from '../support/catalog.js';

const broker = await brokerForTests('ingest command broker tests');

const usage = suite('tickvault ingest: arguments');

usage('bad arguments exit 2 with one line naming the problem', async () => {
  const cases: [string[], RegExp][] = [
    [['ingest'], /--brokers HOST:PORT is required/],
    [['ingest', '--brokers', 'k:9092', '--seal-after', '9'], /--seal-after must be a time HH:MM/],
    [['ingest', '--brokers', 'k:9092', '--topics', 'a,a'], /--topics must name a different topic for each of level2, index, trade and order/],
    [['ingest', '--brokers', 'k:9092', '--metrics-port', '99999'], /--metrics-port must be a port number/],
    [['ingest', '--brokers', 'k:9092', 'extra'], /Unexpected argument|positional/i],
  ];
  for (const [args, want] of cases) {
    const r = await runCli(args, { timeoutMs: 30_000 });
    assert.is(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, want);
    assert.is(r.stderr.trim().split('\n').length, 1);
  }
});

usage('an unreachable broker fails with exit 1 and a one-line reason', async () => {
  const r = await runCli(['ingest', '--brokers', '127.0.0.1:1', '--data-dir', tempDir()], { timeoutMs: 120_000, env: { TICKVAULT_LOG_LEVEL: 'silent' } });
  assert.is(r.code, 1);
  assert.match(r.stderr, /^tickvault ingest: failed: .*ECONNREFUSED/m);
});

usage('an unreachable --state-url database fails at start with exit 1 and one line, before any broker is tried', async () => {
  const r = await runCli(['ingest', '--brokers', '127.0.0.1:1', '--data-dir', tempDir(), '--state-url', 'postgres://tv:pw@127.0.0.1:1/tickvault'], {
    timeoutMs: 60_000,
    env: { TICKVAULT_LOG_LEVEL: 'silent' },
  });
  assert.is(r.code, 1);
  assert.is(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(r.stderr, /^tickvault ingest: failed: seal cuts in postgres:\/\/tv:\*\*\*@127\.0\.0\.1:1\/tickvault: open failed: .*ECONNREFUSED/);
  const bad = await runCli(['ingest', '--brokers', 'k:9092', '--state-url', 'redis://x'], { timeoutMs: 30_000 });
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /--state-url must be a postgres:\/\/ or postgresql:\/\/ URL/);
});

usage.run();

const run = suite('tickvault ingest: running');

function db(path: string): Database.Database {
  return new Database(path, { readonly: true, fileMustExist: true });
}

function count(path: string, sql: string): number {
  try {
    const d = db(path);
    try {
      return Number(d.prepare(sql).pluck().get() ?? 0);
    } finally {
      d.close();
    }
  } catch {
    return 0;
  }
}

async function until(what: string, cond: () => boolean | Promise<boolean>, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (child.exitCode !== null) throw new Error(`ingest exited (${child.exitCode}) while waiting for ${what}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function metricsText(port: number): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  return res.text();
}

function metricSum(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split('\n')) if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) sum += Number(line.split(' ').at(-1));
  return sum;
}

if (broker) {
  const work = tempDir('tickvault-ingest-cmd-');
  const prefix = uniqueTopicPrefix('ingest-cmd');
  const topics = `${prefix}.l2,${prefix}.ix`;
  const dataDir = join(work, 'data');
  const ingestDb = join(dataDir, 'ingest.db');
  let lines = 0;
  let bad = 0;

  run.before(async () => {
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
      'cmd',
      '--faults',
      '0.01',
      '--ticks',
      '0',
    ]);
    assert.is(gen.code, 0, gen.stderr);
    lines = Number(/generated (\d+) lines/.exec(gen.stdout)![1]);
    const r = await runCli(['replay', '--data-dir', join(work, 'replayed'), feed]);
    bad = Number(/(\d+) quarantined/.exec(r.stdout)![1]);
    const p = await runCli(['produce', '--brokers', broker.brokers, '--topics', topics, feed]);
    assert.is(p.code, 0, p.stderr);
  });

  run.after(() => broker.stop());

  run('before the close it stages without sealing; metrics count; SIGTERM commits, closes and exits 0', async () => {
    const child = startCli(
      [
        'ingest',
        '--brokers',
        broker.brokers,
        '--topics',
        topics,
        '--group',
        `${prefix}-g`,
        '--data-dir',
        dataDir,
        '--metrics-port',
        '0',
        '--session-timeout',
        '3000',
      ],
      { env: { TICKVAULT_NOW: '2025-01-02T14:00:00+08:00', TICKVAULT_LOG_LEVEL: 'info' } },
    );
    let stdout = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    const listening = await waitForLine(child, /"msg":"metrics listening"/);
    const port = Number((JSON.parse(listening) as { port: number }).port);
    await until('every message consumed', () => count(ingestDb, 'SELECT sum(next_offset) FROM kafka_offsets') === lines, child);
    await until('metrics to show every message', async () => metricSum(await metricsText(port), 'tickvault_ingest_consumed_total') === lines, child);
    const text = await metricsText(port);
    assert.is(metricSum(text, 'tickvault_ingest_quarantined_total'), bad);
    assert.is(metricSum(text, 'tickvault_ingest_staged_total'), lines - bad);
    assert.match(text, /tickvault_ingest_seal_duration_seconds/);
    await until('the lag gauge at zero', async () => /tickvault_ingest_lag_messages\{[^}]+\} 0/.test(await metricsText(port)), child);
    assert.is(
      readCatalog(dataDir, (c) => c.fileCount(), 0),
      0,
      'nothing is due before 16:00',
    );

    child.kill('SIGTERM');
    const r = await exited(child);
    assert.is(r.code, 0);
    assert.match(stdout, new RegExp(`ingest stopped: ${lines} messages consumed, ${lines - bad} staged, ${bad} quarantined \\(0 late\\)`));

    const kafka = new Kafka({ brokers: [broker.brokers], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    try {
      const d = db(ingestDb);
      const stored = new Map(
        (d.prepare('SELECT topic, partition, next_offset FROM kafka_offsets').all() as { topic: string; partition: number; next_offset: number }[]).map(
          (r2) => [`${r2.topic}/${r2.partition}`, String(r2.next_offset)],
        ),
      );
      d.close();
      for (const t of topics.split(',')) {
        const [c] = await admin.fetchOffsets({ groupId: `${prefix}-g`, topics: [t] });
        for (const p of c.partitions) assert.is(p.offset, stored.get(`${t}/${p.partition}`) ?? '-1', `${t}/${p.partition}: Kafka holds what was staged`);
      }
    } finally {
      await admin.disconnect();
    }
  });

  run('after the close it seals on restart; later messages for the sealed day and mismatched keys are quarantined', async () => {
    const child = startCli(
      ['ingest', '--brokers', broker.brokers, '--topics', topics, '--group', `${prefix}-g`, '--data-dir', dataDir, '--session-timeout', '3000'],
      { env: { TICKVAULT_NOW: '2025-01-02T16:00:05+08:00', TICKVAULT_LOG_LEVEL: 'info' } },
    );
    child.stdout!.resume();
    try {
      await until('both dataset-days sealed', () => readCatalog(dataDir, (c) => c.sealedDays().length, 0) === 2, child);
      assert.is(
        readCatalog(dataDir, (c) => c.fileCount(), 0),
        4,
      );
      const before = count(ingestDb, 'SELECT count(*) FROM quarantine');
      const kafka = new Kafka({ brokers: [broker.brokers], logLevel: logLevel.NOTHING });
      const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
      await producer.connect();
      const late = { symbol: '600000.SH', tradedate: '20250102', time: '145959000', close: 1 };
      await producer.send({
        topic: `${prefix}.l2`,
        compression: CompressionTypes.GZIP,
        messages: [
          { key: '600000.SH', value: JSON.stringify(late) },
          { key: '000001.SZ', value: JSON.stringify({ ...late, tradedate: '20250103', time: '093000000' }) },
        ],
      });
      await producer.disconnect();
      await until('two more quarantined', () => count(ingestDb, 'SELECT count(*) FROM quarantine') === before + 2, child);
      const d = db(ingestDb);
      const reasons = d.prepare('SELECT reason FROM quarantine ORDER BY id DESC LIMIT 2').pluck().all() as string[];
      d.close();
      assert.equal(reasons.sort(), ['key "000001.SZ" does not match symbol 600000.SH', 'late: level2 20250102 600000.SH is already sealed']);
    } finally {
      child.kill('SIGTERM');
      assert.is((await exited(child)).code, 0);
    }
  });
}

run.run();
