/**
 * The Kafka ingestor: a kafkajs consumer-group member that stages both snapshot topics into
 * the data directory exactly once and seals days as they fall due (api-contract: The feed).
 *
 * - Offsets are managed by hand. Each batch is queued as it arrives and validated in a worker
 *   thread while kafkajs fetches the next (queue.ts, decodeWorker.ts); a
 *   group commit (stagingCommits.ts) appends the rows of many batches to staging, fsyncs them and
 *   records, in one transaction, the quarantine entries and each partition's next offset; only
 *   after that are the offsets committed to Kafka. On assignment the consumer seeks to the
 *   data directory's offsets, so what a crash left uncommitted in Kafka is not read again, and
 *   what is read again anyway is neither staged twice (rows carry their offset) nor
 *   quarantined twice (the stored offset is re-checked inside the recording transaction).
 * - eachBatch returns once a batch is queued (runner.ts), not decoded, so kafkajs's own
 *   heartbeats between batches keep the session alive while long batches decode.
 * - A consumer crash is logged and the consumer restarted (by kafkajs for retriable errors,
 *   else here with a fresh consumer); more than MAX_RESTARTS in RESTART_WINDOW_MS, or a
 *   staging failure, stops the ingestor with exit code 1 and a fatal log line, for a
 *   supervisor to restart. Never a process that lingers without consuming — except on a full
 *   or read-only disk (diskFaults.ts), which a restart would meet again: then consumption is
 *   paused, nothing is committed past what is durable, the write (staging's group commit, or
 *   a seal) is retried on a backoff, /healthz answers 503, and consumption resumes by itself.
 * - stop() (SIGTERM/SIGINT): the running chunk finishes, everything appended is made durable
 *   and committed to Kafka, the running partition seal finishes, SQLite closes; exit code 0.
 *
 * This file is the lifecycle (as kafkajs's consumer/index.js): wiring, the group member and
 * its restarts, assignment, stopping. The run loop is runner.ts, Kafka offset commits
 * offsetCommits.ts, counts and lag progress.ts. Over 250 lines because the lifecycle's state
 * (the live consumer, the assignment, stopping, timers, restarts) is read by every transition —
 * start, crash and restart, assignment, shutdown — and stays in one class for that.
 */
import { accessSync, constants } from 'node:fs';
import type { Admin, Consumer, Kafka, RetryOptions } from 'kafkajs';
import type { Logger } from '../../shared/logger.js';
import type { Encoder } from '../seal/day.js';
import { DATASETS } from '../../shared/schema.js';
import type { IngestConfig } from '../config.js';
import { openIngestStores, type IngestStores } from '../staging/stores.js';
import { IngestError, isStagingFailure } from '../errors.js';
import { createKafka } from './client.js';
import { GroupCommitter, type CommitOptions, type FlushedPartition } from './stagingCommits.js';
import { IngestMetrics } from './metrics.js';
import { OffsetCommitter, type KafkaOffset } from './offsetCommits.js';
import { KafkaOffsetStore } from './offsets.js';
import type { Assignment } from './positions.js';
import { IngestProgressTracker, type IngestCounts, type IngestProgress } from './progress.js';
import { BatchRunner } from './runner.js';
import { KafkaSealer } from '../seal/sealer.js';
import { BackgroundRowText } from '../../storage/rowText/backgroundRowText.js';
import { BackgroundBars } from '../seal/bars.js';
import { BackgroundUploads } from '../../storage/store/backgroundUploads.js';
import { ObjectStore } from '../../storage/store/objectStore.js';
import { PostgresSealCuts } from '../seal/postgresSealCuts.js';
import type { SealCutStore } from '../seal/sealCuts.js';
import { describePgError as stateErrorText } from '../../shared/postgres/pool.js';
import { KafkaSealState, PartitionLateGuard } from '../seal/sealState.js';
import { DiskFaults, type RetriedStage } from './diskFaults.js';
import { backoff, nextDelayMs } from '../../shared/retry/backoff.js';

export type { IngestCounts, IngestProgress } from './progress.js';

/** Why `dir` refuses writes (EROFS, say), or null when it takes them or does not exist. */
function writeRefusal(dir: string): unknown {
  try {
    accessSync(dir, constants.W_OK);
    return null;
  } catch (e) {
    return e;
  }
}

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

const MAX_RESTARTS = 5;
const RESTART_WINDOW_MS = 10 * 60_000;
/**
 * The last Kafka commits before leaving the group: a rebalance may refuse one, so 5 tries half
 * a second apart (a rebalance settles in that time; stopping must not hang on a broker gone).
 */
const FINAL_COMMIT_RETRY = backoff({ firstDelayMs: 500, multiplier: 1, maxAttempts: 5 });

/** The longest an empty fetch is held (freshness of a live day; an idle consumer polls 4 times a second). */
const FETCH_WAIT_MS = 250;

/**
 * How long a stop waits for a running upload pass to reach its next file. A store that takes
 * connections and answers nothing would hold a request for the client's idle timeout (twice,
 * with its retry): the pass is abandoned instead, which loses nothing (a file is recorded as
 * stored only once the store has verified it; the next start carries on).
 */
const UPLOADS_STOP_MS = 5_000;

export class KafkaIngestor {
  readonly metrics: IngestMetrics;
  /** Resolves with the exit code once the ingestor has stopped, for whatever reason. */
  readonly done: Promise<number>;

  private readonly log: Logger;
  private readonly stores: IngestStores;
  private readonly offsets: KafkaOffsetStore;
  private readonly sealState: KafkaSealState;
  private readonly late: PartitionLateGuard;
  private readonly committer: GroupCommitter;
  private readonly runner: BatchRunner;
  private readonly kafkaCommits: OffsetCommitter;
  private readonly progress: IngestProgressTracker;
  private readonly sealer: KafkaSealer;
  private readonly rowText: BackgroundRowText;
  /** The bars of the days sealed here (and of any a crash left due), made in the background. */
  private readonly bars: BackgroundBars;
  /** Sealed days' files to the store (--store), in the background; null without one. */
  private readonly uploads: BackgroundUploads | null = null;
  private readonly objectStore: ObjectStore | null = null;
  private readonly faults: DiskFaults;
  private readonly kafka: Kafka;
  private readonly admin: Admin;
  private consumer: Consumer | null = null;
  private assigned: Assignment | null = null;
  private stopping: Promise<number> | null = null;
  private closed = false;
  private resolveDone!: (code: number) => void;
  private timers: NodeJS.Timeout[] = [];
  private restartTimer: NodeJS.Timeout | null = null;
  private restarts: number[] = [];

  private constructor(
    private readonly opts: IngestorOptions,
    private readonly cuts: SealCutStore | null,
  ) {
    this.log = opts.log;
    this.metrics = opts.metrics ?? new IngestMetrics();
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
    const { config } = opts;
    this.stores = openIngestStores(opts.dataDir, opts.nowMs);
    // Reading the offsets or the seal state can write too (a full disk): closed, to be retried.
    try {
      const db = this.stores.staging.db;
      this.offsets = new KafkaOffsetStore(db);
      this.sealState = new KafkaSealState(db);
      this.late = new PartitionLateGuard(this.stores.late, this.sealState, cuts !== null);
      this.faults = new DiskFaults({ log: opts.log, metrics: this.metrics, onChange: (stage, faulted) => this.onDiskFault(stage, faulted) });
      this.committer = new GroupCommitter(
        {
          staging: this.stores.staging,
          offsets: this.offsets,
          sealState: this.sealState,
          nowMs: opts.nowMs,
          log: opts.log,
          diskFaults: this.faults,
          dataDir: opts.dataDir,
        },
        (flushed) => this.onFlushed(flushed),
        (e) => this.fail(e),
        opts.commit,
      );
      this.kafka = createKafka({ brokers: config.brokers, clientId: `tickvault-ingest-${process.pid}`, log: opts.log, retry: opts.retry });
      this.admin = this.kafka.admin();
      this.progress = new IngestProgressTracker({
        admin: this.admin,
        group: config.group,
        offsets: this.offsets,
        metrics: this.metrics,
        log: opts.log,
        onProgress: opts.onProgress,
      });
      this.runner = new BatchRunner({
        topics: config.topics,
        committer: this.committer,
        late: this.late,
        progress: this.progress,
        chunkSize: opts.chunkSize,
        halted: () => this.closed || this.stopping !== null || this.committer.failed !== null,
        // Until a write succeeds, not only between retries.
        paused: () => this.faults.faultOf('staging') !== null,
        onDecodeError: (e) =>
          this.fail(isStagingFailure(e) ? e : new IngestError('decode', `decoding failed: ${(e as Error).message}`, { retriable: true, cause: e })),
      });
      this.kafkaCommits = new OffsetCommitter({ consumer: () => this.consumer, assignment: () => this.assigned, log: opts.log });
      this.bars = new BackgroundBars(
        opts.dataDir,
        this.stores.catalog,
        opts.nowMs,
        (kept, ms) => {
          if (kept.days > 0) this.log.info({ days: kept.days, stocks: kept.stocks, bytes: kept.bytes, ms }, 'bars made');
          for (const f of kept.failed) this.log.warn({ tradedate: f.tradedate, reason: f.reason }, 'bars not made for this day; run tickvault doctor');
          // The day's bar files belong in the store with its other files.
          if (kept.days > 0) this.uploads?.poke();
        },
        (e) => this.log.warn({ err: e }, 'bars not made yet; the next seal tries again'),
      );
      if (config.store !== null) {
        this.objectStore = new ObjectStore(config.store);
        this.uploads = new BackgroundUploads(
          { dataDir: opts.dataDir, catalog: this.stores.catalog, store: this.objectStore, nowMs: opts.nowMs },
          (done, ms) => {
            this.metrics.storeUp.set(1);
            this.metrics.storeDueDays.set(done.due);
            this.metrics.storeFiles.inc(done.files);
            this.metrics.storeBytes.inc(done.bytes);
            if (done.files > 0 || done.days > 0)
              this.log.info({ days: done.days, files: done.files, bytes: done.bytes, found: done.found, due: done.due, ms }, 'stored');
            if (done.failed.length > 0) this.metrics.storeFailures.inc();
            for (const f of done.failed) this.log.warn({ key: f.key, reason: f.reason }, 'not stored');
          },
          (e, state) => {
            this.metrics.storeUp.set(state.up ? 1 : 0);
            this.metrics.storeDueDays.set(state.due);
            this.metrics.storeFailures.inc();
            this.log.warn({ err: e }, 'uploads wait: the store cannot take them now; retrying');
          },
        );
      }
      this.rowText = new BackgroundRowText(
        { dataDir: opts.dataDir, catalog: this.stores.catalogReader, days: config.rowTextDays },
        (kept, ms) => {
          if (kept.made > 0 || kept.removedDays > 0 || kept.stoppedBy !== null || kept.skipped.length > 0) {
            const { window, skipped, ...counts } = kept;
            opts.log.info({ ...counts, window: `${window[0] ?? ''}..${window[window.length - 1] ?? ''}`, skipped: skipped.length, ms }, 'row text kept');
          }
        },
        (e) => opts.log.warn({ err: e }, 'row text pass failed; the next seal tries again'),
      );
      this.sealer = new KafkaSealer({
        stores: this.stores,
        encode: opts.encode,
        offsets: this.offsets,
        sealState: this.sealState,
        late: this.late,
        view: this.progress.view(() => this.assigned),
        topics: config.topics,
        sealAfterMs: config.sealAfterMs,
        nowMs: opts.nowMs,
        log: opts.log,
        metrics: this.metrics,
        ...(cuts ? { cuts, site: config.group, drainCommits: () => this.committer.flush() } : {}),
      });
    } catch (e) {
      this.stores.close();
      throw e;
    }
  }

  /** Durably processed messages and what became of them. */
  get counts(): IngestCounts {
    return this.progress.counts;
  }

  /** Connects, joins the group and starts consuming and sealing. */
  static async start(opts: IngestorOptions): Promise<KafkaIngestor> {
    // Sites that share a database agree on seal cuts there; unreachable at start is a failure.
    const cuts =
      opts.config.stateUrl === ''
        ? null
        : await PostgresSealCuts.open(opts.config.stateUrl, (e) => opts.log.warn({ err: stateErrorText(e) }, 'seal-cut database connection lost'));
    let ing: KafkaIngestor;
    try {
      ing = await KafkaIngestor.openWhenWritable({ ...opts, metrics: opts.metrics ?? new IngestMetrics() }, cuts);
    } catch (e) {
      await cuts?.close();
      throw e;
    }
    try {
      await ing.run();
    } catch (e) {
      await ing.shutdown(1).catch(() => undefined);
      throw e;
    }
    return ing;
  }

  /**
   * The ingestor over its opened stores; on a full or read-only disk (opening writes: the WAL,
   * the writer's row) it waits and tries again, shown like any other disk fault, instead of
   * exiting for a supervisor to restart it into the same disk. Nothing is consumed meanwhile.
   */
  private static async openWhenWritable(opts: IngestorOptions & { readonly metrics: IngestMetrics }, cuts: SealCutStore | null): Promise<KafkaIngestor> {
    const faults = new DiskFaults({ log: opts.log, metrics: opts.metrics, stages: [] });
    for (;;) {
      try {
        const ing = new KafkaIngestor(opts, cuts);
        faults.succeeded('open');
        return ing;
      } catch (e) {
        // SQLite creating a database on a read-only disk says only "unable to open database
        // file" (SQLITE_CANTOPEN, also a permission or a path problem): the directory's own
        // writability (access(2) answers EROFS) tells a read-only disk apart.
        const retryInMs = faults.failed('open', opts.dataDir, e) ?? faults.failed('open', opts.dataDir, writeRefusal(opts.dataDir));
        if (retryInMs === null) throw e;
        await new Promise((r) => setTimeout(r, retryInMs));
      }
    }
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
    if (this.cuts) {
      // Before the first message: a site catching up must know the cuts other sites set.
      await this.sealer.refreshCuts(this.opts.nowMs());
      this.log.info({ state: this.cuts.where }, 'seal cuts agreed through the shared database');
    }
    this.runner.startDecoder();
    await this.admin.connect();
    await this.startConsumer();
    const every = (ms: number, fn: () => Promise<unknown>) => {
      const t = setInterval(() => void fn().catch((e: unknown) => this.log.warn({ err: e }, 'background task failed; retrying')), ms);
      this.timers.push(t);
    };
    every(this.opts.sealTickMs ?? 1000, () => this.sealTick());
    // What a crash left between a listing and its bars or row text, and days that left the window.
    this.bars.poke();
    this.rowText.poke();
    this.uploads?.poke();
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
      // A fetch that finds nothing waits at most this long: a broker (librdkafka's mock always)
      // may hold it for the whole wait although messages come meanwhile, and a live day's rows
      // are to be visible within 1 s of being produced (api-contract: The live day).
      maxWaitTimeInMs: Math.min(FETCH_WAIT_MS, Math.max(100, Math.floor(session / 4))),
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
    await c.subscribe({ topics: DATASETS.map((d) => config.topics[d]), fromBeginning: true });
    await c.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: (payload) => this.runner.onBatch(payload),
    });
    // A consumer started during a disk fault (a restart after a crash) starts paused.
    if (this.faults.faultOf('staging') !== null) this.setConsuming(false);
  }

  /**
   * Pauses or resumes fetching every topic. Paused, kafkajs keeps heartbeating (the group
   * membership and the assignment stay) but fetches nothing, so memory holds only what was
   * in flight when the disk filled.
   */
  private setConsuming(on: boolean): void {
    const c = this.consumer;
    if (c === null) return;
    const topics = DATASETS.map((d) => ({ topic: this.opts.config.topics[d] }));
    try {
      if (on) c.resume(topics);
      else c.pause(topics);
    } catch (e) {
      // Before run() there is nothing to pause; startConsumer() pauses a consumer started meanwhile.
      this.log.debug({ err: e }, on ? 'consumer resume deferred' : 'consumer pause deferred');
    }
  }

  private onDiskFault(stage: RetriedStage, faulted: boolean): void {
    // Only staging stops consumption: a seal that cannot write leaves messages to stage meanwhile.
    if (stage === 'staging') this.setConsuming(!faulted);
  }

  /**
   * The sealer's tick, paced by a seal's disk fault: the failed seal is tried again once its
   * retry delay has passed (it is idempotent: files listed are skipped), any other failure
   * goes to the caller's log-and-retry as before.
   */
  private async sealTick(): Promise<void> {
    if (!this.faults.due('seal')) return;
    try {
      const r = await this.sealer.tick();
      // A day completed: its bars, then row text, each in the background, off the seal's path.
      if (r.daysSealed > 0) this.bars.poke();
      if (r.daysSealed > 0) this.uploads?.poke();
      if (r.partitionsSealed > 0 || r.daysSealed > 0) this.rowText.poke();
      // Not caught up: nothing was tried; the fault, if any, is not known to be over.
      if (r.caughtUp !== false) this.faults.succeeded('seal');
    } catch (e) {
      if (this.faults.failed('seal', this.opts.dataDir, e) === null) throw e;
    }
  }

  private async allowRestart(e: Error): Promise<boolean> {
    if (this.stopping) return false;
    const now = Date.now();
    this.restarts = this.restarts.filter((t) => now - t < RESTART_WINDOW_MS);
    this.restarts.push(now);
    if (this.restarts.length > (this.opts.maxRestarts ?? MAX_RESTARTS)) {
      this.log.error({ err: e, restarts: this.restarts.length }, 'kafka consumer keeps crashing; giving up');
      return false;
    }
    return true;
  }

  private async onCrash(err: Error, kafkajsRestarts: boolean): Promise<void> {
    this.assigned = null;
    this.metrics.crashes.inc();
    const group = this.opts.config.group;
    if (kafkajsRestarts) {
      this.log.warn({ err, group }, 'kafka consumer crashed; kafkajs restarts it');
      return;
    }
    if (this.stopping) return;
    // kafkajs gives up on errors it deems non-retriable (some are broker hiccups); a fresh
    // consumer is tried, within the same restart budget, before the process gives up.
    if (!(await this.allowRestart(err))) {
      this.fail(
        new IngestError('consumer', `kafka consumer crashed and will not restart: ${err.name}: ${err.message}`, {
          retriable: true,
          cause: err,
          context: { group },
        }),
      );
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
    for (const [topic, partitions] of Object.entries(memberAssignment))
      a.set(
        topic,
        [...partitions].sort((x, y) => x - y),
      );
    const seeks: string[] = [];
    const recorded: KafkaOffset[] = [];
    this.kafkaCommits.keepAssigned(a);
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
    // Queued, not committed here: this runs inside kafkajs's join, before its runner counts as
    // running, and a commit then is a silent no-op that would look done (kafkajs returns without
    // an error) and leave Kafka behind forever on a partition with no new message. The next
    // group commit, progress tick or the final commit at stop sends them.
    this.kafkaCommits.queue(recorded);
    this.log.info({ assignment: Object.fromEntries(a), resumeFrom: seeks }, 'partitions assigned');
  }

  // ---- what a group commit made durable, and progress ---------------------------------------

  private onFlushed(flushed: readonly FlushedPartition[]): void {
    this.progress.countFlushed(flushed);
    this.kafkaCommits.commit(flushed.map((f) => ({ topic: f.topic, partition: f.partition, offset: String(f.next) })));
  }

  private async reportProgress(): Promise<void> {
    const a = this.assigned;
    if (a === null || this.stopping) return;
    this.kafkaCommits.commit([]);
    await this.progress.report(a);
  }

  // ---- stopping --------------------------------------------------------------------------------

  private fail(e: Error): void {
    if (this.stopping) return;
    const about = e instanceof IngestError ? { stage: e.stage, retriable: e.retriable, context: e.context } : {};
    this.log.fatal({ err: e, ...about }, 'ingest stopping on a fatal error; a restart resumes from the stored offsets');
    void this.shutdown(1);
  }

  private shutdown(code: number): Promise<number> {
    this.stopping ??= (async () => {
      for (const t of this.timers) clearInterval(t);
      // The final flush below tries once more; a disk still full then leaves the rest to a restart.
      this.committer.stopRetrying();
      if (this.restartTimer) clearTimeout(this.restartTimer);
      const withTimeout = (what: string, p: Promise<unknown>, ms: number) =>
        Promise.race([
          p.catch((e: unknown) => this.log.warn({ err: e }, `${what} failed`)),
          new Promise((r) => setTimeout(r, ms).unref()).then(() => this.log.warn(`${what} timed out`)),
        ]);
      const consumerDone = (async () => {
        await withTimeout('waiting for the running batch', this.runner.whenIdle(), 60_000);
        if (this.committer.failed) this.runner.clear();
        await withTimeout('decoding the received batches', this.runner.decoded(), 60_000);
        if (!this.committer.failed) await withTimeout('final group commit', this.committer.flush(), 60_000);
        // A rebalance may refuse a commit: retry a few times before leaving the group. During a
        // rebalance nothing is owned and nothing can be committed, so wait (bounded) for its end
        // first: leaving then would leave the group's offsets behind the data directory's with no
        // new message to move them (a member killed earlier and expiring now causes exactly that).
        for (let attempt = 1; this.kafkaCommits.pendingCount > 0; attempt++) {
          const deadline = Date.now() + 15_000;
          while (this.assigned === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
          if (this.assigned === null) break;
          this.kafkaCommits.commit([]);
          await withTimeout('final Kafka commit', this.kafkaCommits.settled, 30_000);
          if (this.kafkaCommits.pendingCount === 0) break;
          const delayMs = nextDelayMs(FINAL_COMMIT_RETRY, { attempt });
          if (delayMs === null) break;
          await new Promise((r) => setTimeout(r, delayMs));
        }
        this.assigned = null;
        await withTimeout('consumer disconnect', this.consumer?.disconnect() ?? Promise.resolve(), 30_000);
      })();
      await Promise.all([
        withTimeout('sealer stop', this.sealer.stop(), 10 * 60_000),
        withTimeout('row text stop', this.rowText.stop(), 60_000),
        withTimeout('bars stop', this.bars.stop(), 60_000),
        withTimeout('uploads stop', this.uploads?.stop() ?? Promise.resolve(), UPLOADS_STOP_MS),
        consumerDone,
      ]);
      await withTimeout('admin disconnect', this.admin.disconnect(), 10_000);
      const decoderClosing = this.runner.closeDecoder();
      if (decoderClosing) await withTimeout('decode worker close', decoderClosing, 10_000);
      this.closed = true;
      this.objectStore?.close();
      this.stores.close();
      await withTimeout('seal-cut database close', this.cuts?.close() ?? Promise.resolve(), 5_000);
      this.log.info({ ...this.counts, exitCode: code }, 'ingest stopped');
      this.resolveDone(code);
      return code;
    })();
    return this.stopping;
  }
}
