/**
 * Publishes fixture feed files (JSON Lines with `kind`) to the datasets' topics, in file
 * order, in gzip-compressed batches.
 *
 * - A line that is a JSON object with kind `level2`, `index`, `trade` or `order` goes to that kind's topic,
 *   keyed by its symbol (canonical form when it parses, else as written), value = the object
 *   without `kind` (api-contract: The feed).
 * - Any other line (not JSON, not an object, kind missing or unknown) is published unchanged
 *   to the level2 topic with the header `tickvault-reject` naming the reason the replay path
 *   would give, so that the ingestor quarantines it just as a replay of the file would.
 * - Blank lines are skipped, as replay skips them.
 *
 * Sends are awaited one at a time, so messages keep file order within each partition (a
 * corrected re-send stays after the row it corrects).
 */
import { CompressionTypes, Partitioners, type Message, type Producer } from 'kafkajs';
import type { Logger } from '../../shared/logger.js';
import { parseIndexSymbol, parseStockSymbol } from '../../shared/symbols.js';
import { SCHEMAS, type Dataset } from '../../shared/schema.js';
import { datasetOfKind } from '../staging/validate.js';
import { IngestError } from '../errors.js';
import { readFeedLines } from '../feed/lines.js';
import type { KafkaTopics } from '../config.js';
import { createKafka } from './client.js';
import { REJECT_HEADER } from './messages.js';

export interface ProducedMessage {
  readonly topic: string;
  readonly message: Message;
  /** The good line's dataset; null for a flagged one. */
  readonly dataset: Dataset | null;
  /** Reason the line is flagged bad, or null for a good one. */
  readonly flagged: string | null;
}

export function feedLineToMessage(line: string, topics: KafkaTopics): ProducedMessage | null {
  if (line.trim() === '') return null;
  let obj: unknown;
  try {
    obj = JSON.parse(line);
  } catch {
    return flaggedLine(line, 'not JSON', topics);
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return flaggedLine(line, 'message is not a JSON object', topics);
  const { kind: kindMember, ...value } = obj as Record<string, unknown>;
  const kind = datasetOfKind(kindMember);
  if (!kind.ok) return flaggedLine(line, kind.reason, topics, value.symbol);
  return {
    topic: topics[kind.dataset],
    message: { key: keyOf(value.symbol, kind.dataset), value: JSON.stringify(value) },
    dataset: kind.dataset,
    flagged: null,
  };
}

function keyOf(symbol: unknown, kind: Dataset): string | null {
  if (typeof symbol !== 'string') return null;
  const r = SCHEMAS[kind].symbols === 'stock' ? parseStockSymbol(symbol) : parseIndexSymbol(symbol);
  return r.ok ? r.symbol : symbol;
}

function flaggedLine(line: string, reason: string, topics: KafkaTopics, symbol?: unknown): ProducedMessage {
  return {
    topic: topics.level2,
    message: { key: typeof symbol === 'string' ? symbol : null, value: line, headers: { [REJECT_HEADER]: reason } },
    dataset: null,
    flagged: reason,
  };
}

export interface ProduceOptions {
  readonly brokers: readonly string[];
  readonly topics: KafkaTopics;
  readonly files: readonly string[];
  readonly log: Logger;
  /** Messages per send (split over both topics). */
  readonly batchMessages?: number;
  readonly onProgress?: (p: { file: string; bytesRead: number; messages: number }) => void;
}

export interface ProduceStats {
  messages: number;
  /** Good lines published, per dataset. */
  readonly published: Record<Dataset, number>;
  /** Bad lines published flagged to the level2 topic. */
  flagged: number;
  files: number;
  ms: number;
}

/** One gzip request of messages, grouped by topic, acknowledged by every in-sync replica. */
export async function sendProduced(producer: Producer, batch: readonly ProducedMessage[]): Promise<void> {
  const byTopic = new Map<string, Message[]>();
  for (const m of batch) {
    let list = byTopic.get(m.topic);
    if (!list) byTopic.set(m.topic, (list = []));
    list.push(m.message);
  }
  await producer.sendBatch({
    topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })),
    compression: CompressionTypes.GZIP,
    acks: -1,
  });
}

export async function produceFeedFiles(opts: ProduceOptions): Promise<ProduceStats> {
  const started = performance.now();
  const kafka = createKafka({ brokers: opts.brokers, clientId: `tickvault-produce-${process.pid}`, log: opts.log });
  // One request in flight: a retried request cannot overtake a later one, so order holds.
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, maxInFlightRequests: 1, allowAutoTopicCreation: true });
  const stats: ProduceStats = { messages: 0, published: { level2: 0, index: 0, trade: 0, order: 0 }, flagged: 0, files: 0, ms: 0 };
  const per = opts.batchMessages ?? 4000;
  await producer.connect();
  // One send in flight while the next batch is parsed: order holds, parsing overlaps I/O.
  let inFlight: Promise<void> = Promise.resolve();
  try {
    for (const file of opts.files) {
      let pending: ProducedMessage[] = [];
      let bytesRead = 0;
      const flush = async () => {
        await inFlight;
        if (pending.length === 0) return;
        const batch = pending;
        const at = bytesRead;
        pending = [];
        inFlight = sendProduced(producer, batch).then(
          () => {
            for (const m of batch) {
              stats.messages++;
              if (m.dataset === null) stats.flagged++;
              else stats.published[m.dataset]++;
            }
            opts.onProgress?.({ file, bytesRead: at, messages: stats.messages });
          },
          (e: unknown) => {
            throw new IngestError(
              'produce',
              `publishing ${file} to ${opts.brokers.join(',')} failed after ${stats.messages} messages: ${(e as Error).message}`,
              {
                retriable: true,
                cause: e,
                context: { file, brokers: opts.brokers, messages: stats.messages },
              },
            );
          },
        );
      };
      for await (const batch of readFeedLines(file)) {
        bytesRead = batch.bytesRead;
        for (const line of batch.lines) {
          const m = feedLineToMessage(line, opts.topics);
          if (m === null) continue;
          pending.push(m);
          if (pending.length >= per) await flush();
        }
      }
      await flush();
      await inFlight;
      stats.files++;
      opts.log.info({ file, messages: stats.messages }, 'feed file published');
    }
  } finally {
    await inFlight.catch(() => undefined);
    await producer.disconnect().catch(() => undefined);
  }
  stats.ms = performance.now() - started;
  return stats;
}
