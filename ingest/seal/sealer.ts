/**
 * Seals days while the ingestor runs. On each tick: the due days (past close + grace, not yet
 * sealed in the catalog) are found; if this process has caught up with every partition it
 * owns, then for each due day and each owned partition not yet sealed for it, the partition's
 * symbols are sealed (files, then catalog) and the partition is recorded sealed for the day.
 * The process that finds every partition of the topic recorded sweeps whatever is left staged
 * for the day and marks the day sealed. From the moment a partition-day's seal begins, its
 * messages are late.
 *
 * Seals run one partition at a time and re-check ownership in between, so a rebalance during
 * a seal hands over at the next partition boundary. A failed tick is logged and retried on the
 * next one: sealing is idempotent (listed files are skipped).
 */
import { sealDay, type Encoder, type SealDeps } from './day.js';
import { CatalogWriter } from '../../storage/catalog.js';
import { SealPool } from './pool.js';
import type { IngestMetrics } from '../kafka/metrics.js';
import type { KafkaTopics } from '../config.js';
import type { KafkaOffsetStore } from '../kafka/offsets.js';
import { ownedPositions, type KafkaView } from '../kafka/positions.js';
import type { KafkaSealState, PartitionLateGuard } from './sealState.js';
import { dueDays, isCaughtUp, isDayComplete, lagOf, symbolsByOwnedPartition, type DayRef } from './scheduler.js';
import type { IngestStores } from '../staging/stores.js';
import type { Logger } from '../../shared/logger.js';
import type { Dataset } from '../../shared/schema.js';
import { beijingDate } from '../../shared/clock.js';
import type { Staging } from '../staging/segments.js';
import type { StagedRecord } from '../../storage/staging/bucketRead.js';
import { lateEntry } from '../kafka/chunk.js';
import type { SealCutStore } from './sealCuts.js';
import { IngestError } from '../errors.js';
import { databaseErrorForLog } from '../../shared/postgres/pool.js';

export interface SealerDeps {
  readonly stores: IngestStores;
  readonly encode: Encoder;
  readonly offsets: KafkaOffsetStore;
  readonly sealState: KafkaSealState;
  readonly late: PartitionLateGuard;
  readonly view: KafkaView;
  readonly topics: KafkaTopics;
  readonly sealAfterMs: number;
  readonly nowMs: () => number;
  readonly log: Logger;
  readonly metrics: IngestMetrics;
  /** Write files in seal workers, one per core (default); false: on this thread. */
  readonly workers?: boolean;
  /** Seal cuts agreed with the other sites (--state-url); absent: this site cuts alone. */
  readonly cuts?: SealCutStore;
  /** Who this site is in the cut records (its consumer group). */
  readonly site?: string;
  /** Makes every decoded chunk durable now (the group commit): called once a cut is set. */
  readonly drainCommits?: () => Promise<unknown>;
}

export interface TickResult {
  /** Due days that were candidates. */
  readonly due: number;
  /** Whether this process had caught up (null when there was nothing to decide). */
  readonly caughtUp: boolean | null;
  readonly partitionsSealed: number;
  readonly daysSealed: number;
}

const IDLE: TickResult = { due: 0, caughtUp: null, partitionsSealed: 0, daysSealed: 0 };

/** How far back the late guard keeps other sites' cuts: past any day still being sealed. */
const CUT_MEMORY_MS = 40 * 86_400_000;

/**
 * Quarantines, once, rows the seal left out past the agreed cut (staged before the cut was
 * known: this site was ahead of the site that sealed first). Returns the entries added.
 */
function quarantinePastCut(staging: Staging, topic: string, partition: number, day: DayRef, records: readonly StagedRecord[]): number {
  const source = (order: number) => `${topic}/${partition}@${order}`;
  return staging.quarantineOnce(records.map((r) => lateEntry(source(r.order), day.dataset, day.tradedate, r.symbol, r.timeMs, r.values, null)));
}

export class KafkaSealer {
  private current: Promise<TickResult> | null = null;
  private stopping = false;
  private lastWaitLogMs = 0;
  /** Seal workers of the running tick: started when there is something to seal, closed after. */
  private pool: SealPool | null = null;

  constructor(private readonly deps: SealerDeps) {}

  /** Runs one tick, unless one is already running (then resolves with that one's result). */
  tick(): Promise<TickResult> {
    if (this.stopping) return Promise.resolve(IDLE);
    this.current ??= this.runTick().finally(() => {
      this.current = null;
    });
    return this.current;
  }

  /** Stops at the next partition boundary and waits for the running tick. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.current?.catch(() => undefined);
  }

  private topicOf(dataset: Dataset): string {
    return this.deps.topics[dataset];
  }

  private candidates(nowMs: number): DayRef[] {
    const { stores, sealState, sealAfterMs } = this.deps;
    const open = [...stores.staging.openDays(), ...sealState.daysInProgress()];
    const catalog = stores.catalogReader;
    return dueDays(open, nowMs, sealAfterMs).filter((d) => !catalog.isDaySealed(d.dataset, d.tradedate));
  }

  private async runTick(): Promise<TickResult> {
    const { view, offsets, log } = this.deps;
    const now = this.deps.nowMs();
    // Without the shared database the last known cuts stand; sealing itself waits for it.
    await this.refreshCuts(now).catch((e: unknown) => this.cutsUnavailable(e, now));
    const due = this.candidates(now);
    if (due.length === 0) return IDLE;
    const assignment = view.assignment();
    if (assignment === null) return { ...IDLE, due: due.length };
    const positions = await ownedPositions(view, offsets, assignment);
    if (!isCaughtUp(positions)) {
      if (now - this.lastWaitLogMs > 30_000) {
        this.lastWaitLogMs = now;
        const lag = positions.reduce((a, p) => a + lagOf(p), 0);
        log.info({ dueDays: due.map((d) => `${d.dataset}:${d.tradedate}`), lag }, 'days due for sealing; catching up first');
      }
      return { due: due.length, caughtUp: false, partitionsSealed: 0, daysSealed: 0 };
    }
    let partitionsSealed = 0;
    let daysSealed = 0;
    const partitionCounts = new Map<string, number>();
    try {
      for (const day of due) {
        if (this.stopping) break;
        const topic = this.topicOf(day.dataset);
        let count = partitionCounts.get(topic);
        if (count === undefined) partitionCounts.set(topic, (count = (await view.watermarks(topic)).length));
        partitionsSealed += await this.sealOwnedPartitions(day, topic, count, assignment.get(topic) ?? []);
        if (!this.stopping && (await this.completeDay(day, count))) daysSealed++;
      }
    } finally {
      const pool = this.pool;
      this.pool = null;
      await pool?.close();
    }
    return { due: due.length, caughtUp: true, partitionsSealed, daysSealed };
  }

  private sealDeps(): SealDeps {
    const { stores, encode, nowMs } = this.deps;
    if (this.deps.workers ?? true) this.pool ??= new SealPool({ dataDir: stores.layout.dataDir, ingestDb: stores.layout.ingestDb });
    return { dataDir: stores.layout.dataDir, catalog: stores.catalog, staging: stores.staging, encode, nowMs, pool: this.pool ?? undefined };
  }

  private stillOwns(topic: string, partition: number): boolean {
    const a = this.deps.view.assignment();
    return a !== null && (a.get(topic) ?? []).includes(partition);
  }

  private async sealOwnedPartitions(day: DayRef, topic: string, count: number, owned: readonly number[]): Promise<number> {
    const { stores, sealState, late, metrics, log } = this.deps;
    const done = sealState.sealedPartitions(day.dataset, day.tradedate);
    // Another process may have completed the day since this tick listed it due: it marks the
    // day sealed in the catalog, then forgets the day's partition records, so an empty `done`
    // read after that would have this process seal its partitions again. Read after `done`,
    // the catalog says which case this is.
    if (stores.catalogReader.isDaySealed(day.dataset, day.tradedate)) return 0;
    const todo = owned.filter((p) => !done.has(p)).sort((a, b) => a - b);
    if (todo.length === 0) return 0;
    const byPartition = symbolsByOwnedPartition(
      stores.staging.symbolsOf(day.dataset, day.tradedate),
      sealState.symbolPartitions(day.dataset, day.tradedate),
      count,
      new Set(todo),
    );
    let sealed = 0;
    for (const partition of todo) {
      if (this.stopping || !this.stillOwns(topic, partition)) continue;
      let cut: number | null = null;
      if (this.deps.cuts) {
        cut = await this.agreedCut(day, topic, partition);
        if (cut === null) continue; // behind the agreed cut: consume on, seal at a later tick
      } else {
        late.closeAt(day.dataset, day.tradedate, partition);
      }
      const symbols = byPartition.get(partition) ?? [];
      const started = performance.now();
      let pastCut = 0;
      const byCut =
        cut === null
          ? {}
          : {
              belowOrder: cut,
              onPastCut: (records: readonly StagedRecord[]) => void (pastCut += quarantinePastCut(stores.staging, topic, partition, day, records)),
            };
      const result = symbols.length > 0 ? await sealDay(this.sealDeps(), day.dataset, day.tradedate, { symbols, markDaySealed: false, ...byCut }) : null;
      // A symbol-day whose every row was past the cut has no file: it leaves staging too.
      if (cut !== null && symbols.length > 0) stores.staging.drop(day.dataset, day.tradedate, symbols);
      sealState.recordSealed(day.dataset, day.tradedate, partition, this.deps.nowMs(), cut);
      late.afterSeal(day.dataset, day.tradedate, false);
      const secs = (performance.now() - started) / 1000;
      metrics.sealDuration.observe({ dataset: day.dataset }, secs);
      metrics.sealedFiles.inc({ dataset: day.dataset }, result?.files ?? 0);
      log.info(
        {
          dataset: day.dataset,
          tradedate: day.tradedate,
          topic,
          partition,
          symbols: symbols.length,
          files: result?.files ?? 0,
          rows: result?.rows ?? 0,
          bytes: result?.bytes ?? 0,
          ms: Math.round(secs * 1000),
          ...(cut === null ? {} : { cut, pastCut }),
        },
        'partition sealed',
      );
      sealed++;
    }
    return sealed;
  }

  /**
   * The cut this site seals a partition-day at: the one some site already agreed (known to the
   * late guard, or found in the shared store), else this site's position, recorded first.
   * From then on the guard makes the day's messages at or above it late; chunks decoded before
   * are committed now. Null while this site's position is still below the cut.
   */
  private async agreedCut(day: DayRef, topic: string, partition: number): Promise<number | null> {
    const { late, offsets, cuts, log } = this.deps;
    let cut = late.cutOf(day.dataset, day.tradedate, partition);
    if (cut === undefined) {
      const position = offsets.next(topic, partition) ?? 0;
      try {
        cut = await cuts!.agree({ topic, partition, dataset: day.dataset, tradedate: day.tradedate, offset: position }, this.deps.site ?? 'tickvault');
      } catch (e) {
        // The shared database is down: this partition-day waits; consuming goes on meanwhile.
        if (!(e instanceof IngestError) || !e.retriable) throw e;
        this.cutsUnavailable(e, this.deps.nowMs());
        return null;
      }
      if (cut !== position) log.info({ topic, partition, tradedate: day.tradedate, cut, position }, 'another site agreed this seal cut first');
    }
    late.closeAt(day.dataset, day.tradedate, partition, cut);
    await this.deps.drainCommits?.();
    const position = offsets.next(topic, partition) ?? 0;
    if (position < cut) {
      log.info({ topic, partition, tradedate: day.tradedate, cut, position }, 'catching up to the agreed seal cut before sealing');
      return null;
    }
    return cut;
  }

  private lastCutWarnMs = 0;

  /** Logs an unreachable cut store at most every 30 s (the tick runs every second). */
  private cutsUnavailable(e: unknown, nowMs: number): void {
    if (nowMs - this.lastCutWarnMs < 30_000) return;
    this.lastCutWarnMs = nowMs;
    this.deps.log.warn({ err: databaseErrorForLog(e) }, 'seal cuts cannot be read; days wait to be sealed until the shared database answers');
  }

  /** The cuts other sites agreed, for the late guard (a failure keeps the last known). */
  async refreshCuts(nowMs: number): Promise<void> {
    const { cuts, late } = this.deps;
    if (!cuts) return;
    late.setSharedCuts(await cuts.cutsFrom(beijingDate(nowMs - CUT_MEMORY_MS)));
  }

  /** Marks the day sealed once every partition of its topic is; true when it did. */
  private async completeDay(day: DayRef, count: number): Promise<boolean> {
    const { stores, sealState, late, log } = this.deps;
    if (!isDayComplete(sealState.sealedPartitions(day.dataset, day.tradedate), count)) return false;
    // Anything still staged belongs to no partition's symbols (e.g. staged by a replay):
    // seal it with the day rather than leave it behind.
    const leftover = stores.staging.symbolsOf(day.dataset, day.tradedate);
    const sweep = leftover.length > 0 ? await sealDay(this.sealDeps(), day.dataset, day.tradedate, { symbols: leftover, markDaySealed: false }) : null;
    new CatalogWriter(stores.catalog).markDaySealed(day.dataset, day.tradedate, this.deps.nowMs());
    sealState.forgetDay(day.dataset, day.tradedate);
    late.afterSeal(day.dataset, day.tradedate, true);
    const totals = stores.catalogReader.dayTotals(day.dataset, day.tradedate);
    log.info({ dataset: day.dataset, tradedate: day.tradedate, files: totals.files, rows: totals.rows, swept: sweep?.files ?? 0 }, 'day sealed');
    return true;
  }
}
