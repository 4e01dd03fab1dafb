/**
 * The run loop (kafkajs's runner.js hands each fetched batch to eachBatch; this is our
 * eachBatch): a batch is queued for decoding in a worker thread while kafkajs fetches the next
 * (queue.ts, decodeWorker.ts), each decoded slice goes to the group commit (stagingCommits.ts), and
 * only kafkajs's fetch position moves here — Kafka commits follow the group commit.
 */
import type { EachBatchPayload, KafkaMessage } from 'kafkajs';
import { DATASETS, type Dataset } from '../../shared/schema.js';
import type { KafkaTopics } from '../config.js';
import { chunkFromReply } from './chunk.js';
import type { GroupCommitter } from './stagingCommits.js';
import type { DecodeReply } from './decodeWorker.js';
import { DecodeWorker } from './decoder.js';
import type { IngestProgressTracker } from './progress.js';
import { BatchQueue, type QueueItem } from './queue.js';
import type { PartitionLateGuard } from '../seal/sealState.js';

interface QueuedBatch extends QueueItem<KafkaMessage> {
  readonly topic: string;
  readonly partition: number;
  readonly dataset: Dataset;
}

interface DecodedSlice {
  /** The slice's messages at or above the known position, as sent to the worker. */
  readonly messages: readonly KafkaMessage[];
  readonly reply: DecodeReply | null;
  /** Messages below the known position: already handled. */
  readonly skipped: number;
}

export interface RunnerDeps {
  readonly topics: KafkaTopics;
  readonly committer: GroupCommitter;
  readonly late: PartitionLateGuard;
  readonly progress: IngestProgressTracker;
  /** True once batches must no longer be taken (stopping, closed, or staging failed). */
  readonly halted: () => boolean;
  /** True while a disk fault holds staging back: batches are left unread, to be fetched again. */
  readonly paused?: () => boolean;
  /** A slice could not be decoded. */
  readonly onDecodeError: (e: unknown) => void;
  /** Messages decoded at a time before yielding to the event loop. */
  readonly chunkSize?: number;
}

export class BatchRunner {
  private readonly datasetOf: ReadonlyMap<string, Dataset>;
  private readonly queue: BatchQueue<KafkaMessage, QueuedBatch, DecodedSlice>;
  /** Started by startDecoder() or the first batch, never in the constructor: a failed construction leaves no thread behind. */
  private decoder: DecodeWorker | null = null;
  private running = 0;
  private idle: (() => void)[] = [];

  constructor(private readonly d: RunnerDeps) {
    this.datasetOf = new Map<string, Dataset>(DATASETS.map((ds) => [d.topics[ds], ds]));
    this.queue = new BatchQueue<KafkaMessage, QueuedBatch, DecodedSlice>(
      {
        send: async (item, from, to) => {
          const slice = item.messages.slice(from, to);
          const known = d.committer.knownNext(item.topic, item.partition);
          const messages = known === null ? slice : slice.filter((m) => Number(m.offset) >= known);
          if (messages.length === 0) return { messages, reply: null, skipped: slice.length };
          this.decoder ??= new DecodeWorker();
          return { messages, reply: await this.decoder.decode(item.dataset, messages), skipped: slice.length - messages.length };
        },
        complete: (item, _from, _to, r) => {
          if (r.skipped > 0) d.progress.countSkipped(item.topic, r.skipped);
          if (r.reply) d.committer.add(chunkFromReply(d.late, item.topic, item.partition, item.dataset, r.messages, r.reply));
        },
        // Nothing more to decode: what was decoded need not wait for the commit timer.
        drained: () => d.committer.nothingQueued(),
      },
      d.onDecodeError,
      { sliceMessages: d.chunkSize },
    );
  }

  /** kafkajs's eachBatch. */
  async onBatch(p: EachBatchPayload): Promise<void> {
    this.running++;
    try {
      await this.take(p);
    } finally {
      if (--this.running === 0) for (const r of this.idle.splice(0)) r();
    }
  }

  /** Resolves once no eachBatch call is running. */
  whenIdle(): Promise<void> {
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /** Drops the batches not yet decoded (staging failed: they would not be recorded). */
  clear(): void {
    this.queue.clear();
  }

  /** Resolves once every queued batch has been decoded and handed on. */
  decoded(): Promise<void> {
    return this.queue.idle();
  }

  /**
   * Starts the decode worker ahead of the first batch: its thread start and module loading
   * (tens of ms) then overlap the group join instead of delaying the first messages.
   */
  startDecoder(): void {
    this.decoder ??= new DecodeWorker();
  }

  /** Stops the decode worker, if one was started. */
  closeDecoder(): Promise<void> | null {
    return this.decoder ? this.decoder.close() : null;
  }

  private async take(p: EachBatchPayload): Promise<void> {
    const { batch } = p;
    const dataset = this.datasetOf.get(batch.topic);
    if (!dataset || batch.messages.length === 0) return;
    if (this.d.halted() || !p.isRunning() || p.isStale()) return;
    // Not resolved: kafkajs fetches these messages again once the consumer resumes (the
    // consumer is paused too; this covers batches fetched before the pause took effect).
    if (this.d.paused?.()) return;
    // Decoded in the background (queue.ts) so kafkajs can fetch the next batch meanwhile.
    this.queue.push({ topic: batch.topic, partition: batch.partition, dataset, messages: batch.messages });
    // Moves kafkajs's fetch position only; Kafka commits follow the group commit.
    p.resolveOffset(batch.messages[batch.messages.length - 1].offset);
    await this.queue.room();
    await this.d.committer.room();
  }
}
