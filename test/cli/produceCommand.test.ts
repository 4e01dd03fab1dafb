import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel, type KafkaMessage } from 'kafkajs';
import { partitionForKey } from '../../ingest/kafka/partitions.js';
import { REJECT_HEADER } from '../../ingest/kafka/messages.js';
import { brokerForTests, uniqueTopicPrefix } from '../support/kafkaBroker.js';
import { runCli } from '../support/cli.js';
import { tempDir } from '../support/tempDir.js';

const broker = await brokerForTests('produce command broker tests');

const usage = suite('tickvault produce: arguments');

usage('needs --brokers, at least one file, existing files and four (or two) topics', async () => {
  const dir = tempDir();
  const feed = join(dir, 'f.jsonl');
  writeFileSync(feed, '\n');
  const cases: [string[], RegExp][] = [
    [['produce', feed], /--brokers HOST:PORT is required/],
    [['produce', '--brokers', 'localhost:9092'], /needs at least one file/],
    [['produce', '--brokers', 'localhost:9092', join(dir, 'missing.jsonl')], /feed file not found/],
    [['produce', '--brokers', 'localhost:9092', '--topics', 'only-one', feed], /--topics must be four topic names/],
    [['produce', '--brokers', 'nohostport', feed], /--brokers must be HOST:PORT/],
  ];
  for (const [args, want] of cases) {
    const r = await runCli(args, { timeoutMs: 30_000 });
    assert.is(r.code, 2, args.join(' '));
    assert.match(r.stderr, want);
    assert.is(r.stderr.trim().split('\n').length, 1, 'one line');
  }
});

usage.run();

const publish = suite('tickvault produce: publishing');

interface Got {
  topic: string;
  partition: number;
  message: KafkaMessage;
}

async function consumeAll(brokers: string, topics: string[], count: number): Promise<Got[]> {
  const kafka = new Kafka({ brokers: [brokers], logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: `${topics[0]}-reader`, sessionTimeout: 6000, heartbeatInterval: 1000, maxWaitTimeInMs: 500 });
  const got: Got[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topics, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`only ${got.length} of ${count} messages arrived`)), 60_000);
      void consumer.run({
        eachMessage: async ({ topic, partition, message }) => {
          got.push({ topic, partition, message });
          if (got.length >= count) {
            clearTimeout(timer);
            resolve();
          }
        },
      });
    });
  } finally {
    await consumer.disconnect();
  }
  return got;
}

if (broker) {
  publish.after(() => broker.stop());

  publish('snapshots go to their kind topic keyed by canonical symbol, without kind; bad lines go flagged to level2', async () => {
    const dir = tempDir();
    const prefix = uniqueTopicPrefix('produce');
    const l2 = `${prefix}.level2`;
    const ix = `${prefix}.index`;
    const good1 = { kind: 'level2', symbol: '600000.SH', tradedate: '20250102', time: '093000120', close: 10.5, volume: 100 };
    const good2 = { kind: 'index', tradedate: '20250102', symbol: '000001', time: '2025-01-02 09:30:03.000', close: 3200.5 };
    const good3 = { kind: 'level2', symbol: 'sh600001', tradedate: '20250102', time: '093003000', close: 7 };
    const lines = [
      JSON.stringify(good1),
      JSON.stringify(good2),
      '{"kind":"level2","symbol":"600000.SH", truncated',
      JSON.stringify({ ...good1, kind: 'futures' }),
      JSON.stringify({ symbol: '600002.SH', tradedate: '20250102', time: '093000000' }),
      '',
      JSON.stringify(good3),
      '[1,2]',
    ];
    const feed = join(dir, 'feed.jsonl');
    writeFileSync(feed, lines.join('\n') + '\n');
    const r = await runCli(['produce', '--brokers', broker.brokers, '--topics', `${l2},${ix}`, feed]);
    assert.is(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      new RegExp(
        `^produced 7 messages from 1 file\\(s\\): 2 to ${l2.replaceAll('.', '\\.')}, 1 to ${ix.replaceAll('.', '\\.')}, 0 to md\\.trade, 0 to md\\.order, 4 bad lines flagged`,
      ),
    );

    const got = await consumeAll(broker.brokers, [l2, ix], 7);
    const kafka = new Kafka({ brokers: [broker.brokers], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    const partitions = { [l2]: (await admin.fetchTopicOffsets(l2)).length, [ix]: (await admin.fetchTopicOffsets(ix)).length };
    await admin.disconnect();

    const snapshots = got.filter((g) => g.message.headers?.[REJECT_HEADER] === undefined);
    const byKey = new Map(snapshots.map((g) => [g.message.key?.toString(), g]));
    const { kind: _k1, ...v1 } = good1;
    const { kind: _k2, ...v2 } = good2;
    const { kind: _k3, ...v3 } = good3;
    assert.equal(JSON.parse(byKey.get('600000.SH')!.message.value!.toString()), v1);
    assert.is(byKey.get('600000.SH')!.topic, l2);
    assert.equal(JSON.parse(byKey.get('000001')!.message.value!.toString()), v2);
    assert.is(byKey.get('000001')!.topic, ix);
    assert.equal(JSON.parse(byKey.get('600001.SH')!.message.value!.toString()), v3, 'the key is canonical, the value as written');
    for (const g of snapshots) {
      const key = g.message.key!.toString();
      assert.is(g.partition, partitionForKey(key, partitions[g.topic]), `${key} on the default partitioner's partition`);
    }

    const flagged = got.filter((g) => g.message.headers?.[REJECT_HEADER] !== undefined);
    assert.ok(flagged.every((g) => g.topic === l2));
    const reasons = new Map(flagged.map((g) => [g.message.value!.toString(), g.message.headers![REJECT_HEADER]!.toString()]));
    assert.equal(
      reasons,
      new Map([
        [lines[2], 'not JSON'],
        [lines[3], 'unknown kind "futures"'],
        [lines[4], 'kind is missing'],
        [lines[7], 'message is not a JSON object'],
      ]),
    );
  });

  publish('reads compressed feeds and publishes every line', async () => {
    const dir = tempDir();
    const prefix = uniqueTopicPrefix('produce-zst');
    for (const ext of ['jsonl.zst', 'jsonl.gz']) {
      const feed = join(dir, `feed.${ext}`);
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
        ext,
        '--ticks',
        '0',
      ]);
      assert.is(gen.code, 0, gen.stderr);
      const lines = Number(/generated (\d+) lines/.exec(gen.stdout)![1]);
      const r = await runCli(['produce', '--brokers', broker.brokers, '--topics', `${prefix}-${ext}.l2,${prefix}-${ext}.ix`, feed]);
      assert.is(r.code, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`^produced ${lines} messages`), ext);
    }
  });

  publish('an unreachable broker fails with one line and exit 1', async () => {
    const dir = tempDir();
    const feed = join(dir, 'f.jsonl');
    writeFileSync(feed, '{"kind":"level2","symbol":"600000.SH"}\n');
    const r = await runCli(['produce', '--brokers', '127.0.0.1:1', feed], { timeoutMs: 120_000 });
    assert.is(r.code, 1);
    assert.match(r.stderr, /tickvault produce: failed: /);
  });
}

publish.run();
