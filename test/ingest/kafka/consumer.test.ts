import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Kafka, logLevel, CompressionTypes, Partitioners } from 'kafkajs';
import { pino, type Logger } from 'pino';
import { loadIngestConfig } from '../../../ingest/config.js';
import { KafkaIngestor } from '../../../ingest/kafka/consumer.js';
import { encodeParquet } from '../../../storage/parquet/writer.js';
import { formatLevel2Time } from '../../../shared/timeFormat.js';
import { brokerForTests, startMockBroker, uniqueTopicPrefix, type TestBroker } from '../../support/kafkaBroker.js';
import { tempDir } from '../../support/tempDir.js';

const broker = await brokerForTests('kafka consumer tests');
const s = suite('KafkaIngestor');

function capture(): { log: Logger; lines: () => Record<string, unknown>[] } {
  const out: string[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => void out.push(line) });
  return { log, lines: () => out.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

async function produce(brokers: string, topic: string, n: number): Promise<void> {
  const kafka = new Kafka({ brokers: [brokers], logLevel: logLevel.NOTHING });
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  const messages = Array.from({ length: n }, (_, i) => {
    const symbol = `${600000 + (i % 5)}.SH`;
    const value = { symbol, tradedate: '20250102', time: formatLevel2Time(9.5 * 3_600_000 + Math.floor(i / 5) * 3000), close: 10 + i / 100 };
    return { key: symbol, value: JSON.stringify(value) };
  });
  await producer.send({ topic, messages, compression: CompressionTypes.GZIP });
  await producer.disconnect();
}

async function until(what: string, cond: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function start(brokers: string, prefix: string, log: Logger, extra: Partial<Parameters<typeof KafkaIngestor.start>[0]> = {}): Promise<KafkaIngestor> {
  const config = loadIngestConfig({ brokers, topics: `${prefix}.l2,${prefix}.ix`, group: `${prefix}-g`, 'session-timeout': '3000' }, {});
  return KafkaIngestor.start({
    config,
    dataDir: tempDir(),
    nowMs: () => Date.parse('2025-01-02T10:00:00+08:00'),
    log,
    encode: encodeParquet,
    sealTickMs: 200,
    progressIntervalMs: 200,
    ...extra,
  });
}

if (broker) {
  s.after(() => broker.stop());

  s('stop() finishes the chunk, commits to Kafka what is staged, and resolves 0', async () => {
    const prefix = uniqueTopicPrefix('consumer-stop');
    await produce(broker.brokers, `${prefix}.l2`, 500);
    const { log, lines } = capture();
    const ing = await start(broker.brokers, prefix, log);
    await until('500 messages staged', () => ing.counts.staged === 500);
    await until('a progress report with no lag', () => lines().some((l) => l.msg === 'ingest progress' && l.lag === 0));
    assert.is(await ing.stop(), 0);
    assert.is(await ing.done, 0);
    const kafka = new Kafka({ brokers: [broker.brokers], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    const ends = await admin.fetchTopicOffsets(`${prefix}.l2`);
    const [committed] = await admin.fetchOffsets({ groupId: `${prefix}-g`, topics: [`${prefix}.l2`] });
    await admin.disconnect();
    for (const p of committed.partitions) {
      const high = ends.find((e) => e.partition === p.partition)!.high;
      // A partition that never had a message has nothing to commit (-1).
      assert.is(p.offset, high === '0' ? '-1' : high, `partition ${p.partition}`);
    }
    assert.ok(lines().some((l) => l.msg === 'partitions assigned'));
    assert.ok(lines().some((l) => l.msg === 'ingest stopped' && l.exitCode === 0));
  });

  s('a broker that goes away ends the ingestor with exit code 1 and a fatal line, never a zombie', async () => {
    let own: TestBroker | null = await startMockBroker();
    try {
      const prefix = uniqueTopicPrefix('consumer-crash');
      await produce(own.brokers, `${prefix}.l2`, 50);
      const { log, lines } = capture();
      const ing = await start(own.brokers, prefix, log, { maxRestarts: 1, retry: { retries: 2, initialRetryTime: 100, maxRetryTime: 500 } });
      await until('50 messages staged', () => ing.counts.staged === 50);
      await own.stop();
      own = null;
      const code = await Promise.race([ing.done, new Promise((r) => setTimeout(() => r('still running'), 90_000).unref())]);
      assert.is(code, 1);
      const fatal = lines().find((l) => l.level === 60);
      assert.ok(fatal, 'a fatal line says why');
      // The error whole, as pino's serialiser writes it: its type, message and stack.
      const err = fatal!.err as { type?: unknown; message?: unknown; stack?: unknown };
      assert.match(String(err.message), /crash|Connection|broker/i);
      assert.type(err.type, 'string');
      assert.type(err.stack, 'string');
    } finally {
      await own?.stop();
    }
  });
}

s.run();
