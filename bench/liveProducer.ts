/**
 * The live bench's market producer (live.bench.ts), in a worker thread of its own: generating
 * and producing the whole market's rate takes most of a core, and on the bench's event loop its
 * batches would stall the poller and the clients, whose timings are the figures.
 *
 * The market is the generator's day from the opening auction's match on (the auction before it
 * is generated first, before the clock starts, not produced), paced at `rate` messages a second,
 * ten times that for the first sixth of the stretch (the opening minutes). When behind it sends
 * as fast as it can, and waits while the ingestor is more than BACKLOG messages behind (the mock
 * keeps ~5 MB a partition and drops older batches), so the rate it reaches is what it reports.
 */
import { performance } from 'node:perf_hooks';
import { parentPort, Worker, workerData } from 'node:worker_threads';
import { Kafka, logLevel, Partitioners, type Producer } from 'kafkajs';
import type { KafkaTopics } from '../ingest/config.js';
import { generateFeed } from '../ingest/feed/generate.js';
import { feedLineToMessage, sendProduced, type ProducedMessage } from '../ingest/kafka/producer.js';
import type { Dataset } from '../shared/schema.js';
import { openDb, type Db } from '../shared/sqlite.js';
import { formatLevel2Time } from '../shared/timeFormat.js';

export interface MarketProducerOptions {
  readonly brokers: string;
  readonly topics: KafkaTopics;
  readonly day: string;
  readonly stocks: number;
  readonly seconds: number;
  /** Average messages a second. */
  readonly rate: number;
  /** The ingestor's ingest.db: what it has committed. */
  readonly ingestDb: string;
  /** Messages produced to the topics before the market (the backlog counts them). */
  readonly producedBefore: number;
}

export interface MarketFigures {
  readonly scheduled: number;
  readonly sent: number;
  readonly perDataset: Readonly<Record<Dataset, number>>;
  readonly burstSeconds: number;
  readonly burstSent: number;
  readonly seconds: number;
  /** Seconds the producer waited for the ingestor (BACKLOG). */
  readonly backlogWaitS: number;
  /** The worker's event loop utilisation over the stretch: near 1, the producer's thread itself was the limit. */
  readonly utilisation: number;
}

/** The opening minutes carry ten times the average rate. */
export const BURST_FACTOR = 10;
export const BACKLOG = 100_000;
/** Messages a send at most. */
const BATCH = 2000;
/** The stretch starts at the opening auction's match. */
const OPENING = formatLevel2Time(9 * 3_600_000 + 25 * 60_000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The market's messages from the opening auction's match on. */
function* marketMessages(o: MarketProducerOptions): Generator<ProducedMessage> {
  let opened = false;
  for (const line of generateFeed({ days: [o.day], stocks: o.stocks, indexes: 0, seed: 'live', faults: 0, ticks: 1 })) {
    if (!opened) {
      const time = /"time":"(\d{9})"/.exec(line)?.[1];
      if (time === undefined || time < OPENING) continue;
      opened = true;
    }
    const m = feedLineToMessage(line, o.topics);
    if (m) yield m;
  }
}

/** Up to `n` messages of the feed, fewer at its end (next() rather than for-of: leaving a for-of early closes the generator). */
function take(messages: Iterator<ProducedMessage>, n: number, held: ProducedMessage[]): ProducedMessage[] {
  const out = held.splice(0, n);
  while (out.length < n) {
    const r = messages.next();
    if (r.done) break;
    out.push(r.value);
  }
  return out;
}

/** The pacing loop, from `go` on. */
async function produce(
  o: MarketProducerOptions,
  producer: Producer,
  db: Db,
  messages: Iterator<ProducedMessage>,
  held: ProducedMessage[],
): Promise<MarketFigures> {
  const committed = db.prepare('SELECT coalesce(sum(next_offset), 0) FROM kafka_offsets').pluck();
  const burstSeconds = o.seconds / 6;
  const due = (s: number) => Math.floor(o.rate * (BURST_FACTOR * Math.min(s, burstSeconds) + Math.max(0, s - burstSeconds)));
  const perDataset: Record<Dataset, number> = { level2: 0, index: 0, trade: 0, order: 0 };
  let sent = 0;
  let burstSent = -1;
  let waitedMs = 0;
  const started = performance.now();
  const elu = performance.eventLoopUtilization();
  for (let s = 0; s < o.seconds; s = (performance.now() - started) / 1000) {
    if (burstSent < 0 && s >= burstSeconds) burstSent = sent;
    const want = Math.min(BATCH, due(s) - sent);
    if (want <= 0) {
      await sleep(5);
      continue;
    }
    const batch = take(messages, want, held);
    if (batch.length === 0) break; // the day's feed is over
    for (const m of batch) perDataset[m.dataset!]++;
    const t0 = performance.now();
    while (o.producedBefore + sent - Number(committed.get()) > BACKLOG) await sleep(20);
    waitedMs += performance.now() - t0;
    await sendProduced(producer, batch);
    sent += batch.length;
  }
  const utilisation = performance.eventLoopUtilization(elu).utilization;
  return { scheduled: due(o.seconds), sent, perDataset, burstSeconds, burstSent, seconds: o.seconds, backlogWaitS: waitedMs / 1000, utilisation };
}

/** In the worker: connect, generate up to the opening, say `ready`; on `go`, produce and answer the figures. */
async function workerMain(o: MarketProducerOptions): Promise<void> {
  const kafka = new Kafka({ brokers: [o.brokers], logLevel: logLevel.NOTHING });
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, maxInFlightRequests: 1 });
  await producer.connect();
  const db = openDb(o.ingestDb, { readonly: true });
  const messages = marketMessages(o);
  const held = take(messages, 1, []);
  parentPort!.once('message', () => {
    void produce(o, producer, db, messages, held).then(async (figures) => {
      db.close();
      await producer.disconnect();
      parentPort!.postMessage(figures);
    });
  });
  parentPort!.postMessage('ready');
}

/**
 * Starts the producer's worker; resolves once the auction is generated, with `run` to start the
 * stretch and `stop` to end the worker early (a phase beside it failed).
 */
export function startMarketProducer(o: MarketProducerOptions): Promise<{ run(): Promise<MarketFigures>; stop(): Promise<void> }> {
  const worker = new Worker(new URL(import.meta.url), { workerData: o });
  return new Promise((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', () =>
      resolve({
        stop: async () => void (await worker.terminate()),
        run: () =>
          new Promise<MarketFigures>((done, failed) => {
            worker.once('message', (f: MarketFigures) => void worker.terminate().then(() => done(f)));
            worker.once('error', failed);
            worker.postMessage('go');
          }),
      }),
    );
  });
}

if (parentPort !== null && (workerData as MarketProducerOptions | null)?.ingestDb !== undefined) await workerMain(workerData as MarketProducerOptions);
