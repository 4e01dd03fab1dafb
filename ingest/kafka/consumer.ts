import type { Admin, Consumer, EachBatchPayload, Kafka, KafkaMessage, RetryOptions } from 'kafkajs';
import type { Logger } from '../../shared/logger.js';
import type { Dataset } from '../../shared/schema.js';
import type { Encoder } from '../seal/day.js';
import type { IngestConfig } from '../config.js';
import { IngestMetrics } from './metrics.js';
import { ChunkError, chunkFromReply } from './chunk.js';
import type { DecodeReply } from './decodeWorker.js';
import { DecodeWorker } from './decoder.js';
import { createKafka } from './client.js';
import { GroupCommitter, type CommitOptions, type FlushedPartition } from './commits.js';
import { KafkaOffsetStore } from './offsets.js';
import { BatchQueue, type QueueItem } from './queue.js';
import { ownedPositions, type Assignment, type KafkaView, type Watermarks } from './positions.js';
import { KafkaSealer } from './sealer.js';
import { KafkaSealState, PartitionLateGuard } from './sealState.js';
import { lagOf } from '../seal/scheduler.js';
import { openIngestStores, type IngestStores } from '../staging/stores.js';

/**
 * The Kafka ingestor: a kafkajs consumer-group member that stages both snapshot topics into
 * the data directory exactly once and seals days as they fall due (decisions §6).
 *
 * - Offsets are managed by hand. Each batch is queued as it arrives and validated in a worker
 *   thread while kafkajs fetches the next (queue.ts, decodeWorker.ts); a
 *   group commit (commits.ts) appends the rows of many batches to staging, fsyncs them and
 *   records, in one transaction, the quarantine entries and each partition's next offset; only
 *   after that are the offsets committed to Kafka. On assignment the consumer seeks to the
 *   data directory's offsets, so what a crash left uncommitted in Kafka is not read again, and
 *   what is read again anyway is neither staged twice (rows carry their offset) nor
 *   quarantined twice (the stored offset is re-checked inside the recording transaction).
 * - heartbeat() runs between chunks, so long batches keep the session alive.
 * - A consumer crash is logged and the consumer restarted (by kafkajs for retriable errors,
 *   else here with a fresh consumer); more than MAX_RESTARTS in RESTART_WINDOW_MS, or a
 *   staging failure, stops the ingestor with exit code 1 and a fatal log line, for a
 *   supervisor to restart. Never a process that lingers without consuming.
 * - stop() (SIGTERM/SIGINT): the running chunk finishes, everything appended is made durable
 *   and committed to Kafka, the running partition seal finishes, SQLite closes; exit code 0.
 */
export interface IngestorOptions {
  readonly config: IngestConfig;
  readonly dataDir: string;
  readonly nowMs: () => number;
  readonly log: Logger;
  readonly encode: Encoder;
  readonly metrics?: IngestMetrics;
  /** Messages decoded at a time before yielding to the event loop (default 5,000). */
  readonly chunkSize?: number;
  /** When appended messages are made durable and recorded. */
  readonly commit?: CommitOptions;
  readonly sealTickMs?: number;
  readonly progressIntervalMs?: number;
  /** Consumer restarts allowed within RESTART_WINDOW_MS before giving up (default 5). */
  readonly maxRestarts?: number;
  /** kafkajs retry settings of the client (connections, requests); kafkajs defaults if omitted. */
  readonly retry?: RetryOptions;
  /** Called with lag after each progress check (a progress bar, for instance). */
  readonly onProgress?: (p: IngestProgress) => void;
}

/** Durably processed messages and what became of them. */
export interface IngestCounts {
  consumed: number;
  staged: number;
  quarantined: number;
  late: number;
  skipped: number;
}

export interface IngestProgress extends IngestCounts {
  readonly lag: number | null;
}

interface QueuedBatch extends QueueItem<KafkaMessage> {
  readonly topic: string;
  readonly partition: number;
  readonly dataset: Dataset;
}

interface KafkaOffset {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
}

interface DecodedSlice {
  /** The slice's messages at or above the known position, as sent to the worker. */
  readonly messages: readonly KafkaMessage[];
  readonly reply: DecodeReply | null;
  /** Messages below the known position: already handled. */
  readonly skipped: number;
}

export class IngestFatalError extends Error {
  override name = 'IngestFatalError';
}

const MAX_RESTARTS = 5;
const RESTART_WINDOW_MS = 10 * 60_000;

export class KafkaIngestor {
  readonly metrics: IngestMetrics;
  readonly counts: IngestCounts = { consumed: 0, staged: 0, quarantined: 0, late: 0, skipped: 0 };
  /** Resolves with the exit code once the ingestor has stopped, for whatever reason. */
  readonly done: Promise<number>;

  private readonly log: Logger;
  private readonly stores: IngestStores;
  private readonly offsets: KafkaOffsetStore;
  private readonly sealState: KafkaSealState;
  private readonly late: PartitionLateGuard;
  private readonly committer: GroupCommitter;
  private readonly queue: BatchQueue<KafkaMessage, QueuedBatch, DecodedSlice>;
  /** Started with the consumer, so a failed construction leaves no thread behind. */
  private decoder: DecodeWorker | null = null;
  private readonly sealer: KafkaSealer;
  private readonly kafka: Kafka;
  private readonly admin: Admin;
  private readonly datasetOf: ReadonlyMap<string, Dataset>;
  private consumer: Consumer | null = null;
  private assigned: Assignment | null = null;
  private stopping: Promise<number> | null = null;
  private closed = false;
  private resolveDone!: (code: number) => void;
  private timers: NodeJS.Timeout[] = [];
  private restartTimer: NodeJS.Timeout | null = null;
  private restarts: number[] = [];
  private batchesRunning = 0;
  private batchesIdle: (() => void)[] = [];
  private lastKafkaCommit: Promise<void> = Promise.resolve();
  /** Recorded offsets not yet committed to Kafka, by `topic/partition`. */
  private readonly toCommit = new Map<string, KafkaOffset>();
  private lastProgress = { at: 0, consumed: 0, lag: -1 };

  private constructor(private readonly opts: IngestorOptions) {
    this.log = opts.log;
    this.metrics = opts.metrics ?? new IngestMetrics();
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
    const { config } = opts;
    this.datasetOf = new Map<string, Dataset>([[config.topics.level2, 'level2'], [config.topics.index, 'index']]);
    this.stores = openIngestStores(opts.dataDir, opts.nowMs);
    const db = this.stores.staging.db;
    this.offsets = new KafkaOffsetStore(db);
    this.sealState = new KafkaSealState(db);
    this.late = new PartitionLateGuard(this.stores.late, this.sealState);
    this.committer = new GroupCommitter(
      { staging: this.stores.staging, offsets: this.offsets, sealState: this.sealState, nowMs: opts.nowMs, log: opts.log },
      (flushed) => this.onFlushed(flushed),
      (e) => this.fail(e),
      opts.commit,
    );
    this.queue = new BatchQueue<KafkaMessage, QueuedBatch, DecodedSlice>(
      {
        send: async (item, from, to) => {
          const slice = item.messages.slice(from, to);
          const known = this.committer.knownNext(item.topic, item.partition);
          const messages = known === null ? slice : slice.filter((m) => Number(m.offset) >= known);
          if (messages.length === 0) return { messages, reply: null, skipped: slice.length };
          this.decoder ??= new DecodeWorker();
          return { messages, reply: await this.decoder.decode(item.dataset, messages), skipped: slice.length - messages.length };
        },
        complete: (item, _from, _to, r) => {
          if (r.skipped > 0) {
            this.counts.consumed += r.skipped;
            this.counts.skipped += r.skipped;
            this.metrics.consumed.inc({ topic: item.topic }, r.skipped);
            this.metrics.skipped.inc({ topic: item.topic }, r.skipped);
          }
          if (r.reply) this.committer.add(chunkFromReply(this.late, item.topic, item.partition, item.dataset, r.messages, r.reply));
        },
      },
      (e) => this.fail(e instanceof ChunkError ? e : new IngestFatalError(`decoding failed: ${(e as Error).message}`)),
      { sliceMessages: opts.chunkSize },
    );
    this.kafka = createKafka({ brokers: config.brokers, clientId: `tickvault-ingest-${process.pid}`, log: opts.log, retry: opts.retry });
    this.admin = this.kafka.admin();
    const view: KafkaView = {
      assignment: () => this.assigned,
      watermarks: (topic) => this.watermarks(topic),
      committed: (topic) => this.committed(topic),
    };
    this.sealer = new KafkaSealer({
      stores: this.stores, encode: opts.encode, offsets: this.offsets, sealState: this.sealState, late: this.late, view,
      topics: config.topics, sealAfterMs: config.sealAfterMs, nowMs: opts.nowMs, log: opts.log, metrics: this.metrics,
    });
  }

  /** Connects, joins the group and starts consuming and sealing. */
  static async start(opts: IngestorOptions): Promise<KafkaIngestor> {
    const ing = new KafkaIngestor(opts);
    try {
      await ing.run();
    } catch (e) {
      await ing.shutdown(1).catch(() => undefined);
      throw e;
    }
    return ing;
  }

  /** Stops cleanly (finish the chunk, make durable, commit, finish the partition seal, close). */
  stop(code = 0): Promise<number> {
    return this.shutdown(code);
  }

  private async run(): Promise<void> {
    const { config } = this.opts;
    this.log.info(
      { brokers: config.brokers, topics: config.topics, group: config.group, dataDir: this.opts.dataDir, sealAfterMs: config.sealAfterMs },
      'ingest starting',
    );
    await this.admin.connect();
    await this.startConsumer();
    const every = (ms: number, fn: () => Promise<unknown>) => {
      const t = setInterval(() => void fn().catch((e: unknown) => this.log.warn({ err: (e as Error).message }, 'background task failed; retrying')), ms);
      this.timers.push(t);
    };
    every(this.opts.sealTickMs ?? 1000, () => this.sealer.tick());
    every(this.opts.progressIntervalMs ?? 5000, () => this.reportProgress());
  }

  // ---- the consumer --------------------------------------------------------------------------

  private makeConsumer(): Consumer {
    const { config } = this.opts;
    const session = config.sessionTimeoutMs;
    const c = this.kafka.consumer({
      groupId: config.group,
      sessionTimeout: session,
      rebalanceTimeout: Math.max(60_000, session * 2),
      // Heartbeats and idle fetch polls well inside the session, even for short test sessions.
      heartbeatInterval: Math.max(100, Math.floor(session / 6)),
      maxWaitTimeInMs: Math.min(5000, Math.max(100, Math.floor(session / 4))),
      maxBytesPerPartition: 4 << 20,
      maxBytes: 32 << 20,
      retry: { ...this.opts.retry, restartOnFailure: (e) => this.allowRestart(e) },
    });
    // Events of a consumer that has since been replaced are ignored.
    c.on(c.events.GROUP_JOIN, (e) => {
      if (c === this.consumer) this.onAssignment(c, e.payload.memberAssignment);
    });
    c.on(c.events.REBALANCING, () => {
      if (c !== this.consumer) return;
      this.assigned = null;
      this.log.info({ group: config.group }, 'group rebalancing');
    });
    c.on(c.events.CRASH, (e) => {
      if (c === this.consumer) void this.onCrash(e.payload.error, e.payload.restart);
    });
    return c;
  }

  private async startConsumer(): Promise<void> {
    const { config } = this.opts;
    const c = this.makeConsumer();
    this.consumer = c;
    await c.connect();
    await c.subscribe({ topics: [config.topics.level2, config.topics.index], fromBeginning: true });
    await c.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: (payload) => this.onBatch(payload),
    });
  }

  private async allowRestart(e: Error): Promise<boolean> {
    if (this.stopping) return false;
    const now = Date.now();
    this.restarts = this.restarts.filter((t) => now - t < RESTART_WINDOW_MS);
    this.restarts.push(now);
    if (this.restarts.length > (this.opts.maxRestarts ?? MAX_RESTARTS)) {
      this.log.error({ err: e.message, restarts: this.restarts.length }, 'kafka consumer keeps crashing; giving up');
      return false;
    }
    return true;
  }

  private async onCrash(err: Error, kafkajsRestarts: boolean): Promise<void> {
    this.assigned = null;
    this.metrics.crashes.inc();
    const group = this.opts.config.group;
    if (kafkajsRestarts) {
      this.log.warn({ err: err.message, group }, 'kafka consumer crashed; kafkajs restarts it');
      return;
    }
    if (this.stopping) return;
    // kafkajs gives up on errors it deems non-retriable (some are broker hiccups); a fresh
    // consumer is tried, within the same restart budget, before the process gives up.
    if (!(await this.allowRestart(err))) {
      this.fail(new IngestFatalError(`kafka consumer crashed and will not restart: ${err.name}: ${err.message}`));
      return;
    }
    this.log.warn({ err: `${err.name}: ${err.message}`, group }, 'kafka consumer crashed; starting a new one');
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      if (this.stopping) return;
      this.startConsumer().catch((e: unknown) => this.onCrash(e as Error, false));
    }, 1000);
  }

  private onAssignment(consumer: Consumer, memberAssignment: Record<string, number[]>): void {
    // Runs synchronously inside kafkajs's join, before its next fetch: the seeks apply to it.
    const a = new Map<string, number[]>();
    for (const [topic, partitions] of Object.entries(memberAssignment)) a.set(topic, [...partitions].sort((x, y) => x - y));
    const seeks: string[] = [];
    const recorded: KafkaOffset[] = [];
    for (const [k, o] of this.toCommit) if (!(a.get(o.topic) ?? []).includes(o.partition)) this.toCommit.delete(k);
    for (const [topic, partitions] of a) {
      for (const partition of partitions) {
        const next = this.committer.knownNext(topic, partition);
        if (next === null) continue;
        consumer.seek({ topic, partition, offset: String(next) });
        seeks.push(`${topic}/${partition}@${next}`);
        const stored = this.offsets.next(topic, partition);
        if (stored !== null) recorded.push({ topic, partition, offset: String(stored) });
      }
    }
    // A crash between recording and committing leaves Kafka behind the data directory.
    this.late.reload();
    this.assigned = a;
    this.commitOffsets(recorded);
    this.log.info({ assignment: Object.fromEntries(a), resumeFrom: seeks }, 'partitions assigned');
  }

  private async onBatch(p: EachBatchPayload): Promise<void> {
    this.batchesRunning++;
    try {
      await this.processBatch(p);
    } finally {
      if (--this.batchesRunning === 0) for (const r of this.batchesIdle.splice(0)) r();
    }
  }

  private async processBatch(p: EachBatchPayload): Promise<void> {
    const { batch } = p;
    const dataset = this.datasetOf.get(batch.topic);
    if (!dataset || batch.messages.length === 0) return;
    if (this.closed || this.stopping || this.committer.failed || !p.isRunning() || p.isStale()) return;
    // Decoded in the background (queue.ts) so kafkajs can fetch the next batch meanwhile.
    this.queue.push({ topic: batch.topic, partition: batch.partition, dataset, messages: batch.messages });
    // Moves kafkajs's fetch position only; Kafka commits follow the group commit.
    p.resolveOffset(batch.messages[batch.messages.length - 1].offset);
    await this.queue.room();
    await this.committer.room();
  }

  private whenBatchesIdle(): Promise<void> {
    if (this.batchesRunning === 0) return Promise.resolve();
    return new Promise((resolve) => this.batchesIdle.push(resolve));
  }

  private onFlushed(flushed: readonly FlushedPartition[]): void {
    const c = this.counts;
    const m = this.metrics;
    for (const f of flushed) {
      c.consumed += f.messages;
      c.staged += f.staged;
      c.quarantined += f.quarantined;
      c.late += f.late;
      c.skipped += f.skipped;
      m.consumed.inc({ topic: f.topic }, f.messages);
      if (f.staged) m.staged.inc({ dataset: f.dataset }, f.staged);
      if (f.quarantined) m.quarantined.inc({ dataset: f.dataset }, f.quarantined);
      if (f.late) m.late.inc({ dataset: f.dataset }, f.late);
      if (f.skipped) m.skipped.inc({ topic: f.topic }, f.skipped);
      if (f.gap) {
        m.gap.inc({ topic: f.topic }, f.gap);
        this.log.warn({ topic: f.topic, partition: f.partition, gap: f.gap, next: f.next }, 'offsets missing before these messages (lost to retention, or transaction markers)');
      }
    }
    this.commitToKafka(flushed);
  }

  private commitToKafka(flushed: readonly FlushedPartition[]): void {
    this.commitOffsets(flushed.map((f) => ({ topic: f.topic, partition: f.partition, offset: String(f.next) })));
  }

  /**
   * Commits recorded offsets to Kafka, one request at a time. A failed commit (during a
   * rebalance, say) is kept and retried with the next one or at the next progress tick: with
   * no new message on a partition nothing else would commit it, and lag monitors would see lag.
   * Only owned partitions are committed; a new owner commits the others.
   */
  private commitOffsets(offsets: readonly KafkaOffset[]): void {
    for (const o of offsets) this.toCommit.set(`${o.topic}/${o.partition}`, o);
    const consumer = this.consumer;
    if (!consumer || this.toCommit.size === 0) return;
    this.lastKafkaCommit = this.lastKafkaCommit.then(async () => {
      const owned = this.assigned;
      if (owned === null) return;
      const batch = [...this.toCommit.values()].filter((o) => (owned.get(o.topic) ?? []).includes(o.partition));
      if (batch.length === 0) return;
      try {
        await consumer.commitOffsets(batch);
        for (const o of batch) if (this.toCommit.get(`${o.topic}/${o.partition}`) === o) this.toCommit.delete(`${o.topic}/${o.partition}`);
      } catch (e) {
        // Harmless: the data directory's stored offsets are the truth; this is retried.
        this.log.debug({ err: (e as Error).message }, 'offset commit to Kafka failed; will retry');
      }
    });
  }

  // ---- what the sealer and the progress report ask of Kafka ----------------------------------

  private async watermarks(topic: string): Promise<Watermarks[]> {
    const rows = await this.admin.fetchTopicOffsets(topic);
    return rows.map((r) => ({ partition: r.partition, low: Number(r.low), high: Number(r.high) }));
  }

  private async committed(topic: string): Promise<Map<number, number>> {
    const res = await this.admin.fetchOffsets({ groupId: this.opts.config.group, topics: [topic] });
    const out = new Map<number, number>();
    for (const t of res) for (const p of t.partitions) if (Number(p.offset) >= 0) out.set(p.partition, Number(p.offset));
    return out;
  }

  private async reportProgress(): Promise<void> {
    const a = this.assigned;
    if (a === null || this.stopping) return;
    this.commitOffsets([]);
    const view: KafkaView = { assignment: () => a, watermarks: (t) => this.watermarks(t), committed: (t) => this.committed(t) };
    const positions = await ownedPositions(view, this.offsets, a);
    const lags = positions.map((p) => ({ topic: p.topic, partition: p.partition, lag: lagOf(p) }));
    this.metrics.setLag(lags);
    for (const p of positions) {
      if (p.position !== null && p.position > p.high) {
        this.log.error({ topic: p.topic, partition: p.partition, stored: p.position, high: p.high },
          'stored offset is past the end of the partition: was the topic recreated? clear its row in kafka_offsets to read it again');
      }
    }
    const lag = lags.reduce((s, l) => s + l.lag, 0);
    const now = Date.now();
    const rate = this.lastProgress.at ? ((this.counts.consumed - this.lastProgress.consumed) * 1000) / (now - this.lastProgress.at) : 0;
    if (this.counts.consumed !== this.lastProgress.consumed || lag !== this.lastProgress.lag) {
      this.log.info({ ...this.counts, lag, msgPerSec: Math.round(rate) }, lag > 0 ? 'catching up' : 'ingest progress');
    }
    this.lastProgress = { at: now, consumed: this.counts.consumed, lag };
    this.opts.onProgress?.({ ...this.counts, lag });
  }

  // ---- stopping --------------------------------------------------------------------------------

  private fail(e: Error): void {
    if (this.stopping) return;
    this.log.fatal({ err: e.message, name: e.name }, 'ingest stopping on a fatal error; a restart resumes from the stored offsets');
    void this.shutdown(1);
  }

  private shutdown(code: number): Promise<number> {
    this.stopping ??= (async () => {
      for (const t of this.timers) clearInterval(t);
      if (this.restartTimer) clearTimeout(this.restartTimer);
      const withTimeout = (what: string, p: Promise<unknown>, ms: number) =>
        Promise.race([
          p.catch((e: unknown) => this.log.warn({ err: (e as Error).message }, `${what} failed`)),
          new Promise((r) => setTimeout(r, ms).unref()).then(() => this.log.warn(`${what} timed out`)),
        ]);
      const consumerDone = (async () => {
        await withTimeout('waiting for the running batch', this.whenBatchesIdle(), 60_000);
        if (this.committer.failed) this.queue.clear();
        await withTimeout('decoding the received batches', this.queue.idle(), 60_000);
        if (!this.committer.failed) await withTimeout('final group commit', this.committer.flush(), 60_000);
        // A rebalance may refuse a commit: retry a few times before leaving the group.
        for (let attempt = 0; attempt < 5; attempt++) {
          this.commitOffsets([]);
          await withTimeout('final Kafka commit', this.lastKafkaCommit, 30_000);
          if (this.toCommit.size === 0 || this.assigned === null) break;
          await new Promise((r) => setTimeout(r, 500));
        }
        this.assigned = null;
        await withTimeout('consumer disconnect', this.consumer?.disconnect() ?? Promise.resolve(), 30_000);
      })();
      await Promise.all([withTimeout('sealer stop', this.sealer.stop(), 10 * 60_000), consumerDone]);
      await withTimeout('admin disconnect', this.admin.disconnect(), 10_000);
      if (this.decoder) await withTimeout('decode worker close', this.decoder.close(), 10_000);
      this.closed = true;
      this.stores.close();
      this.log.info({ ...this.counts, exitCode: code }, 'ingest stopped');
      this.resolveDone(code);
      return code;
    })();
    return this.stopping;
  }
}
