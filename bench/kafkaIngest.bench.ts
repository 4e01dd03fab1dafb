/**
 * Kafka ingest throughput and seal latency, against a real broker (the kcat mock cluster
 * unless --brokers is given):
 *
 * 1. consume: M level2 snapshots of a 500-stock day are produced once; then a bare kafkajs
 *    consumer (eachBatch counting messages, nothing else) and `KafkaIngestor` (validate,
 *    late-check, durable staging with offsets, commit) each read all of them from the start,
 *    in the same run, timed from joining the group to the last message. Printed as
 *    `kafka-consume: N msg/s (R x raw kafkajs M msg/s)`.
 * 2. seal: a running ingestor consumes a whole day of S stocks while it is produced (the mock
 *    keeps ~5 MB per partition, so the producer waits for the consumer); once it has caught up
 *    the day is made due (the clock passes 16:00) and the time until every file is sealed is
 *    measured.
 *
 * `node dist/bench/kafkaIngest.bench.js [--brokers HOST:PORT] [--messages N] [--stocks N]
 * [--seal-stocks N] [--seal-rows N]` (--seal-rows: snapshots per stock, 4998 = a full day).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CompressionTypes, Kafka, logLevel, Partitioners, type Message, type Producer } from 'kafkajs';
import { pino, type Logger } from 'pino';
import { generateFeed } from '../ingest/feed/generate.js';
import { loadIngestConfig, type KafkaTopics } from '../ingest/config.js';
import { KafkaIngestor } from '../ingest/kafka/consumer.js';
import { feedLineToMessage } from '../ingest/kafka/producer.js';
import { encodeParquet } from '../storage/parquet/writer.js';
import { CatalogReader, openCatalog } from '../storage/catalog.js';
import { startMockBroker, type TestBroker } from '../test/support/kafkaBroker.js';

export interface KafkaIngestBenchOptions {
  /** Use this cluster instead of starting the kcat mock. */
  brokers?: string;
  /** Messages for the consume comparison. */
  messages?: number;
  /** Stocks the consume messages spread over. */
  stocks?: number;
  sealStocks?: number;
  /** Snapshots per stock in the sealed day (4998 = the generator's full day). */
  sealRows?: number;
  log?: (line: string) => void;
}

export interface KafkaIngestBenchResult {
  messages: number;
  rawMsgPerSec: number;
  ingestMsgPerSec: number;
  /** ingestMsgPerSec / rawMsgPerSec */
  ratio: number;
  sealStocks: number;
  sealRows: number;
  sealFiles: number;
  /** From the day falling due (ingestor caught up) to every file sealed. */
  sealSeconds: number;
  /** From the last message staged to every file sealed (includes waiting for the next seal tick). */
  lastMessageToSealedSeconds: number;
}

export const DAY = '20250102';
/** The clock while the day trades: its rows are staged and live (api-contract: The live day), not yet due to be sealed. */
export const TRADING_NOW = '2025-01-02T14:00:00+08:00';
const BEFORE_CLOSE = Date.parse(TRADING_NOW);
const AFTER_CLOSE = Date.parse('2025-01-02T16:30:00+08:00');
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

function* dayMessages(stocks: number, limit: number, topics: KafkaTopics, seed: string): Generator<{ topic: string; message: Message }> {
  let n = 0;
  for (const line of generateFeed({ days: [DAY], stocks, indexes: 0, seed, faults: 0 })) {
    if (n++ >= limit) return;
    const m = feedLineToMessage(line, topics);
    if (m) yield m;
  }
}

async function produce(producer: Producer, messages: Iterable<{ topic: string; message: Message }>, wait?: (sent: number) => Promise<void>): Promise<number> {
  let batch: Message[] = [];
  let topic = '';
  let sent = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    await producer.send({ topic, messages: batch, compression: CompressionTypes.GZIP, acks: -1 });
    sent += batch.length;
    batch = [];
    await wait?.(sent);
  };
  for (const m of messages) {
    topic = m.topic;
    batch.push(m.message);
    if (batch.length >= 4000) await flush();
  }
  await flush();
  return sent;
}

async function retained(kafka: Kafka, topic: string): Promise<number> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return (await admin.fetchTopicOffsets(topic)).reduce((a, p) => a + Number(p.high) - Number(p.low), 0);
  } finally {
    await admin.disconnect();
  }
}

/** A bare kafkajs consumer with the ingestor's fetch settings: messages/s from join to last. */
async function rawConsume(kafka: Kafka, topic: string, group: string, expected: number): Promise<number> {
  const consumer = kafka.consumer({
    groupId: group,
    sessionTimeout: 10_000,
    heartbeatInterval: 1000,
    maxWaitTimeInMs: 1000,
    maxBytesPerPartition: 4 << 20,
    maxBytes: 32 << 20,
  });
  let joined = 0;
  let seen = 0;
  consumer.on(consumer.events.GROUP_JOIN, () => (joined = performance.now()));
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  const ms = await new Promise<number>((resolve) => {
    void consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch }) => {
        seen += batch.messages.length;
        if (seen >= expected) resolve(performance.now() - joined);
      },
    });
  });
  await consumer.disconnect();
  return (expected * 1000) / ms;
}

interface Running {
  readonly ingestor: KafkaIngestor;
  readonly joinedAt: () => number;
  setNow(ms: number): void;
}

async function startIngestor(brokers: string, topics: KafkaTopics, group: string, dataDir: string): Promise<Running> {
  let now = BEFORE_CLOSE;
  let joined = 0;
  const sink = {
    write: (line: string) => {
      if (joined === 0 && line.includes('"msg":"partitions assigned"')) joined = performance.now();
    },
  };
  const log: Logger = pino({ level: 'info' }, sink);
  const config = loadIngestConfig({ brokers, topics: `${topics.level2},${topics.index}`, group, 'session-timeout': '10000' }, {});
  const ingestor = await KafkaIngestor.start({ config, dataDir, nowMs: () => now, log, encode: encodeParquet });
  return { ingestor, joinedAt: () => joined, setNow: (ms) => (now = ms) };
}

export async function until(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`bench: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** What both phases run against: one broker, one producer, names unique to this run, a scratch directory. */
export interface KafkaRig {
  readonly log: (line: string) => void;
  readonly brokers: string;
  readonly run: string;
  readonly kafka: Kafka;
  readonly producer: Producer;
  readonly dir: string;
}

/** The rig over a running broker, its producer connected (the caller disconnects it). */
export async function kafkaRig(brokers: string, dir: string, log: (line: string) => void): Promise<KafkaRig> {
  const run = `bench-${process.pid}-${Date.now().toString(36)}`;
  const kafka = new Kafka({ brokers: [brokers], logLevel: logLevel.NOTHING });
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, maxInFlightRequests: 1 });
  await producer.connect();
  return { log, brokers, run, kafka, producer, dir };
}

/**
 * What runs beside the ingestor while its consumption is timed (the live bench: a server
 * answering live pages of the day being consumed): started on the ingestor's data directory
 * before the ingestor starts, stopped once it has consumed everything; `stop` says what it did.
 */
export interface ConsumeAlongside {
  start(dataDir: string): Promise<{ stop(): Promise<string> }>;
}

export async function runKafkaIngestBench(opts: KafkaIngestBenchOptions = {}): Promise<KafkaIngestBenchResult> {
  const log = opts.log ?? ((line: string) => console.log(line));
  let broker: TestBroker | null = null;
  const dir = await mkdtemp(join(tmpdir(), 'tickvault-kafka-bench-'));
  try {
    const rig = await kafkaRig(opts.brokers ?? (broker = await startMockBroker()).brokers, dir, log);
    const consumed = await consumeThroughput(rig, opts.stocks ?? 500, opts.messages ?? 150_000);
    return { ...consumed, ...(await sealAfterCatchUp(rig, opts.sealStocks ?? 500, opts.sealRows ?? 4998)) };
  } finally {
    await broker?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

type ConsumeFigures = Pick<KafkaIngestBenchResult, 'messages' | 'rawMsgPerSec' | 'ingestMsgPerSec' | 'ratio'>;

/** Phase 1: consume throughput, raw kafkajs against the ingestor (with `alongside` running beside it), over the same messages. */
export async function consumeThroughput(rig: KafkaRig, stocks: number, messages: number, alongside?: ConsumeAlongside): Promise<ConsumeFigures> {
  const { log, run, kafka } = rig;
  const topics: KafkaTopics = { level2: `${run}.level2`, index: `${run}.index`, trade: `${run}.trade`, order: `${run}.order` };
  const produced = await produce(rig.producer, dayMessages(stocks, messages, topics, 'bench'));
  const kept = await retained(kafka, topics.level2);
  if (kept < produced) log(`note: the broker kept ${fmt(kept)} of ${fmt(produced)} messages (retention); both consumers read those`);
  const rawMsgPerSec = await rawConsume(kafka, topics.level2, `${run}-raw`, kept);
  const dataDir = join(rig.dir, 'consume');
  const beside = await alongside?.start(dataDir);
  const ing = await startIngestor(rig.brokers, topics, `${run}-ingest`, dataDir);
  await until(() => ing.ingestor.counts.consumed >= kept, 600_000, 'the ingestor to consume everything');
  const ingestMsgPerSec = (kept * 1000) / (performance.now() - ing.joinedAt());
  const besideDid = await beside?.stop();
  await ing.ingestor.stop();
  const ratio = ingestMsgPerSec / rawMsgPerSec;
  log(
    `kafka-consume: ${fmt(ingestMsgPerSec)} msg/s (${ratio.toFixed(2)}x raw kafkajs ${fmt(rawMsgPerSec)} msg/s) — ${fmt(kept)} level2 snapshots of ${stocks} stocks, validated and durably staged with offsets` +
      (besideDid === undefined ? '' : `, ${besideDid}`),
  );
  return { messages: kept, rawMsgPerSec, ingestMsgPerSec, ratio };
}

type SealFigures = Pick<KafkaIngestBenchResult, 'sealStocks' | 'sealRows' | 'sealFiles' | 'sealSeconds' | 'lastMessageToSealedSeconds'>;

/** Phase 2: seal after catch-up, a day of `sealStocks` stocks consumed while produced; the producer is done after it. */
async function sealAfterCatchUp(rig: KafkaRig, sealStocks: number, sealRows: number): Promise<SealFigures> {
  const { run, producer } = rig;
  const sealTopics: KafkaTopics = { level2: `${run}-seal.level2`, index: `${run}-seal.index`, trade: `${run}-seal.trade`, order: `${run}-seal.order` };
  const sealDir = join(rig.dir, 'seal');
  const sealer = await startIngestor(rig.brokers, sealTopics, `${run}-seal`, sealDir);
  const total = sealStocks * sealRows;
  // The mock drops the oldest batches past ~5 MB a partition: stay within reach of the consumer.
  const window = 60_000;
  await produce(producer, dayMessages(sealStocks, total, sealTopics, 'bench-seal'), (sent) =>
    until(() => sent - sealer.ingestor.counts.consumed < window, 600_000, 'the ingestor to keep up'),
  );
  await producer.disconnect();
  await until(() => sealer.ingestor.counts.consumed >= total, 600_000, 'the ingestor to catch up');
  const lastStaged = performance.now();
  sealer.setNow(AFTER_CLOSE);
  const due = performance.now();
  const catalog = openCatalog(join(sealDir, 'catalog.db'), true);
  const reader = new CatalogReader(catalog);
  await until(() => reader.isDaySealed('level2', DAY), 1_800_000, 'the day to be sealed');
  const sealed = performance.now();
  const files = reader.dayTotals('level2', DAY);
  catalog.close();
  await sealer.ingestor.stop();
  if (files.files !== sealStocks || files.rows !== total) {
    throw new Error(`bench: sealed ${files.files} files / ${files.rows} rows, expected ${sealStocks} / ${total}`);
  }
  const figures: SealFigures = {
    sealStocks,
    sealRows,
    sealFiles: files.files,
    sealSeconds: (sealed - due) / 1000,
    lastMessageToSealedSeconds: (sealed - lastStaged) / 1000,
  };
  rig.log(
    `kafka-seal: ${figures.sealSeconds.toFixed(1)} s from due to all ${sealStocks} files sealed (${fmt(total)} rows, ` +
      `${fmt(total / figures.sealSeconds)} rows/s); last message to sealed ${figures.lastMessageToSealedSeconds.toFixed(1)} s`,
  );
  return figures;
}

function argValue(args: string[], name: string): number | undefined {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const v = Number(args[i + 1]);
  if (!Number.isFinite(v) || v <= 0) throw new Error(`${name} needs a positive number`);
  return v;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const b = args.indexOf('--brokers');
  await runKafkaIngestBench({
    brokers: b >= 0 ? args[b + 1] : undefined,
    messages: argValue(args, '--messages'),
    stocks: argValue(args, '--stocks'),
    sealStocks: argValue(args, '--seal-stocks'),
    sealRows: argValue(args, '--seal-rows'),
  });
}
