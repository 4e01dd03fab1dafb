/**
 * Group commit of decoded chunks: the second half of exactly-once staging.
 *
 * Chunks are decoded as batches arrive (chunk.ts); every few hundred milliseconds, once enough
 * messages wait, or once the stream pauses, one flush handles them all:
 *   1. append every record to its staging segment, written but not published: no reader
 *      sees it, as ingest.db's committed lengths do not cover it yet (no transaction);
 *   2. fsync every segment file written, in parallel (Staging.flush);
 *   3. one IMMEDIATE transaction (synchronous=FULL) that publishes the appended records (the
 *      segments' new committed lengths, the symbol-days they open) and, per chunk in arrival
 *      order, re-reads the partition's stored next offset, writes the quarantine entries at
 *      or above it, advances it past the chunk, and records each symbol-day's partition;
 *   4. report the new offsets (the consumer then commits them to Kafka).
 * A row is thus visible to a server reading the live day only once it is fsynced and its
 * offset durably recorded, never one a crash could take back (api-contract: The live day); a
 * crash before 3 leaves bytes past the committed lengths, which no reader reads and the
 * restarted ingestor (a new writer, new segment files) consumes again. An offset is recorded
 * only after the rows it covers are fsynced, and committed to Kafka only after that.
 *
 * A full or read-only disk (diskFaults.ts) does not fail the committer: the batch goes back in
 * front of what is pending, nothing is reported (so nothing is committed to Kafka), and the
 * same flush is tried again after the retry delay, starting at the step that failed (rows
 * appended are not appended twice, they wait for their publish; a failed append left
 * nothing, segments.ts rolls it back; a failed step 3 changed nothing). Any other error fails
 * it for good, as before. Flushing many Kafka batches at once shares the cost of the appends'
 * system calls and of the disk flushes among tens of thousands of messages, and the fsyncs
 * run while the next batches are fetched and decoded.
 */
import type { Logger } from '../../shared/logger.js';
import type { Dataset } from '../../shared/schema.js';
import { IngestError, isStagingFailure, stagingFailed } from '../errors.js';
import type { DecodedChunk } from './chunk.js';
import type { KafkaOffsetStore } from './offsets.js';
import type { KafkaSealState } from '../seal/sealState.js';
import type { QuarantineEntry, Staging } from '../staging/segments.js';
import { isLateReason } from '../../storage/staging/lateReason.js';
import { join } from 'node:path';
import type { DiskFaults } from './diskFaults.js';

export interface CommitDeps {
  readonly staging: Staging;
  readonly offsets: KafkaOffsetStore;
  readonly sealState: KafkaSealState;
  readonly nowMs: () => number;
  /** Per-flush timings at debug level. */
  readonly log?: Logger;
  /** Where a full or read-only disk is reported and paced; absent: it fails the committer like any error. */
  readonly diskFaults?: Pick<DiskFaults, 'failed' | 'succeeded'>;
  /** The data directory, named in a disk fault whose error names no path. */
  readonly dataDir?: string;
}

export interface CommitOptions {
  /** Flush once this many messages wait (default 50,000). */
  readonly maxMessages?: number;
  /**
   * Flush at the latest this long after the first waiting chunk (default 500 ms). Each flush
   * fsyncs every segment it touched (most of 256 buckets), so fewer, larger flushes cost less
   * kernel time; the end of a burst does not wait this long (idleMs). Measured against 200 ms
   * on 150k level2 messages: 77-104k -> 109-111k msg/s.
   */
  readonly maxDelayMs?: number;
  /**
   * Flush this long after the caller said nothing more is queued (nothingQueued) if no chunk
   * came meanwhile (default 50 ms), without waiting for maxDelayMs: the end of a burst is
   * made durable at once. Not at once on every drain: mid-stream the decode queue drains
   * between most Kafka fetches, and a flush per fetch (an fsync per touched segment each)
   * measured slower than flushing every maxDelayMs.
   */
  readonly idleMs?: number;
}

/** One partition's outcome in a flush. */
export interface FlushedPartition {
  readonly topic: string;
  readonly partition: number;
  readonly dataset: Dataset;
  /** The stored next offset after the flush. */
  readonly next: number;
  readonly messages: number;
  readonly staged: number;
  readonly quarantined: number;
  readonly late: number;
  /** Messages below the stored offset (staged before): nothing recorded for them. */
  readonly skipped: number;
  /** Offsets missing between the stored position and the chunk (lost to retention, say). */
  readonly gap: number;
}

const key = (topic: string, partition: number) => `${topic}\u0000${partition}`;

export class GroupCommitter {
  private pending: DecodedChunk[] = [];
  private pendingMessages = 0;
  /** Next offset per partition including appended, not yet recorded chunks. */
  private readonly pendingNext = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  /** Armed by nothingQueued(), disarmed by the next chunk. */
  private idleTimer: NodeJS.Timeout | null = null;
  private flushing: Promise<FlushedPartition[]> | null = null;
  private failure: Error | null = null;
  /** Set while a disk fault lasts: the next try, the only flush until it succeeds. */
  private retryTimer: NodeJS.Timeout | null = null;
  /** False once stopping: a disk fault then leaves the rest to a restart, no timer outlives the stores. */
  private retrying = true;
  /** Chunks whose rows are appended to staging but not published with their offsets (a disk fault came between). */
  private appended = new Set<DecodedChunk>();
  /** What the running write has done: the stage whose path a disk fault names. */
  private step: 'append' | 'sync' | 'record' = 'append';
  private readonly maxMessages: number;
  private readonly maxDelayMs: number;
  private readonly idleMs: number;

  constructor(
    private readonly deps: CommitDeps,
    private readonly onFlushed: (flushed: FlushedPartition[]) => void,
    private readonly onError: (e: Error) => void,
    opts: CommitOptions = {},
  ) {
    this.maxMessages = opts.maxMessages ?? 50_000;
    this.maxDelayMs = opts.maxDelayMs ?? 500;
    this.idleMs = opts.idleMs ?? 50;
  }

  get failed(): Error | null {
    return this.failure;
  }

  /** Stops retrying after a disk fault, for good (stopping: the final flush tries once more itself). */
  stopRetrying(): void {
    this.retrying = false;
    this.cancelRetry();
  }

  private cancelRetry(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  /** The partition's next offset counting appended chunks: rows below it are staged. */
  knownNext(topic: string, partition: number): number | null {
    const pending = this.pendingNext.get(key(topic, partition));
    const stored = this.deps.offsets.next(topic, partition);
    if (pending === undefined) return stored;
    return stored === null ? pending : Math.max(pending, stored);
  }

  add(chunk: DecodedChunk): void {
    this.pending.push(chunk);
    this.pendingMessages += chunk.messages;
    const k = key(chunk.topic, chunk.partition);
    this.pendingNext.set(k, Math.max(this.pendingNext.get(k) ?? 0, chunk.lastOffset + 1));
    if (this.idleTimer) {
      clearTimeout(this.idleTimer);
      this.idleTimer = null;
    }
    // During a disk fault only the retry timer flushes: a flush per arriving chunk would defeat its backoff.
    if (this.retryTimer) return;
    if (this.pendingMessages >= this.maxMessages) void this.flush().catch(() => undefined);
    else this.timer ??= setTimeout(() => void this.flush().catch(() => undefined), this.maxDelayMs);
  }

  /**
   * The caller has nothing more on its way for now (its decode queue drained): unless another
   * chunk comes within idleMs, flush then instead of after maxDelayMs.
   */
  nothingQueued(): void {
    if (this.pending.length === 0 || this.failure || this.retryTimer) return;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      void this.flush().catch(() => undefined);
    }, this.idleMs);
  }

  /** Resolves when there is room for more: waits for the running flush when much is pending. */
  async room(): Promise<void> {
    if (this.pendingMessages >= this.maxMessages * 2 && this.flushing) await this.flushing.catch(() => undefined);
  }

  /** Flushes everything appended so far (after any flush already running). */
  async flush(): Promise<FlushedPartition[]> {
    while (this.flushing) await this.flushing.catch(() => undefined);
    if (this.failure) throw this.failure;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.idleTimer) {
      clearTimeout(this.idleTimer);
      this.idleTimer = null;
    }
    this.cancelRetry();
    if (this.pending.length === 0) return [];
    const batch = this.pending;
    this.pending = [];
    this.pendingMessages = 0;
    this.flushing = this.write(batch);
    let heldBack = false;
    try {
      const flushed = await this.flushing;
      this.deps.diskFaults?.succeeded('staging');
      this.onFlushed(flushed);
      return flushed;
    } catch (e) {
      const retryInMs = this.deps.diskFaults?.failed('staging', this.faultPath(), e) ?? null;
      if (retryInMs !== null) {
        heldBack = true;
        // Kept, in arrival order, ahead of whatever came meanwhile; tried again after the delay.
        this.pending = [...batch, ...this.pending];
        this.pendingMessages = this.pending.reduce((a, c) => a + c.messages, 0);
        // Only the retry flushes now (a chunk's timer armed meanwhile would cut its backoff short).
        for (const t of [this.timer, this.idleTimer]) if (t) clearTimeout(t);
        this.timer = this.idleTimer = null;
        if (this.retrying) {
          this.retryTimer = setTimeout(() => {
            this.retryTimer = null;
            void this.flush().catch(() => undefined);
          }, retryInMs);
        }
        throw new IngestError('staging', `group commit held back by a full or read-only disk; retried in ${retryInMs} ms`, {
          retriable: true,
          cause: e,
          context: { retryInMs },
        });
      }
      this.failure = isStagingFailure(e) ? e : stagingFailed('group commit', e);
      this.onError(this.failure);
      throw this.failure;
    } finally {
      this.flushing = null;
      // Entries recorded (or failed) no longer need the in-memory view.
      for (const c of batch) {
        const k = key(c.topic, c.partition);
        if (!this.pending.some((p) => key(p.topic, p.partition) === k)) this.pendingNext.delete(k);
      }
      if (this.pending.length > 0 && !this.failure && !heldBack) this.timer ??= setTimeout(() => void this.flush().catch(() => undefined), this.maxDelayMs);
    }
  }

  /** The path a disk fault names when its error names none: segments, or ingest.db for the record. */
  private faultPath(): string {
    const dir = this.deps.dataDir ?? '.';
    return this.step === 'record' ? join(dir, 'ingest.db') : join(dir, 'staging');
  }

  private async write(batch: readonly DecodedChunk[]): Promise<FlushedPartition[]> {
    const t0 = performance.now();
    this.step = 'append';
    // After a disk fault past the append, the rows already committed to staging are not appended again.
    this.append(this.appended.size === 0 ? batch : batch.filter((c) => !this.appended.has(c)));
    this.appended = new Set(batch);
    const tAppend = performance.now();
    this.step = 'sync';
    await this.deps.staging.flush();
    const t1 = performance.now();
    this.step = 'record';
    try {
      // IMMEDIATE (publishAppended): hold the write lock from the first read of a stored offset
      // to the commit, so another process cannot advance one in between.
      let out: FlushedPartition[] = [];
      this.deps.staging.publishAppended(() => {
        const recorded = this.record(batch);
        out = recorded.flushed;
        return recorded.rejects;
      });
      this.appended.clear();
      if (this.deps.log?.isLevelEnabled('debug')) {
        const messages = batch.reduce((a, c) => a + c.messages, 0);
        this.deps.log.debug(
          {
            chunks: batch.length,
            messages,
            appendMs: Math.round(tAppend - t0),
            syncMs: Math.round(t1 - tAppend),
            recordMs: Math.round(performance.now() - t1),
          },
          'group commit',
        );
      }
      return out;
    } catch (e) {
      this.deps.sealState.resetCache();
      throw e;
    }
  }

  /**
   * Appends the records of every chunk to their segments, unpublished: the record transaction
   * publishes them with their offsets once they are fsynced.
   */
  private append(batch: readonly DecodedChunk[]): void {
    const withRecords = batch.filter((c) => c.symbolDayOf.length > 0);
    if (withRecords.length === 0) return;
    this.deps.staging.stageRecords(withRecords, [], undefined, { sync: false });
  }

  /** Inside the publishing transaction: advances the offsets; returns what to quarantine. */
  private record(batch: readonly DecodedChunk[]): { flushed: FlushedPartition[]; rejects: QuarantineEntry[] } {
    const { offsets, sealState, nowMs } = this.deps;
    const out = new Map<string, FlushedPartition>();
    const rejects: QuarantineEntry[] = [];
    const advances: [string, number, number][] = [];
    const stored = new Map<string, number | null>();
    for (const c of batch) {
      const k = key(c.topic, c.partition);
      const before = stored.has(k) ? stored.get(k)! : offsets.next(c.topic, c.partition);
      let quarantined = 0;
      let late = 0;
      let skipped = 0;
      if (before !== null && before > c.lastOffset) {
        skipped = c.messages;
      } else {
        const from = before ?? c.firstOffset;
        for (let i = 0; i < c.rejects.length; i++) {
          if (c.rejectOffsets[i] < from) continue;
          rejects.push(c.rejects[i]);
          quarantined++;
          if (isLateReason(c.rejects[i].reason)) late++;
        }
        skipped = Math.max(0, from - c.firstOffset);
        advances.push([c.topic, c.partition, c.lastOffset + 1]);
        stored.set(k, c.lastOffset + 1);
      }
      for (const sd of c.symbolDays) sealState.noteSymbol(c.dataset, sd.tradedate, sd.symbol, c.partition);
      const prev = out.get(k);
      out.set(k, {
        topic: c.topic,
        partition: c.partition,
        dataset: c.dataset,
        next: Math.max(prev?.next ?? 0, stored.get(k) ?? before ?? 0),
        messages: (prev?.messages ?? 0) + c.messages,
        staged: (prev?.staged ?? 0) + c.symbolDayOf.length,
        quarantined: (prev?.quarantined ?? 0) + quarantined,
        late: (prev?.late ?? 0) + late,
        skipped: (prev?.skipped ?? 0) + skipped,
        gap: (prev?.gap ?? 0) + (before !== null && before < c.firstOffset ? c.firstOffset - before : 0),
      });
    }
    const at = nowMs();
    for (const [topic, partition, next] of advances) offsets.advance(topic, partition, next, at);
    return { flushed: [...out.values()], rejects };
  }
}
