import type { Dataset, SnapshotRow } from '../shared/schema.js';
import { decodeSnapshotMessage, type KeyCanon, type SnapshotMessage } from './kafkaMessages.js';
import type { KafkaOffsetStore } from './kafkaOffsets.js';
import type { KafkaSealState, PartitionLateGuard } from './kafkaSealState.js';
import type { QuarantineEntry, Staging } from './staging.js';

/**
 * Stages one chunk of consecutive messages of one partition, exactly once: validate each
 * (bad → quarantine with `topic/partition@offset`), late ones → quarantine, then one durable
 * transaction that appends the rows, the quarantine entries, the partition's next offset and
 * the symbol-days' partition. Inside that transaction the stored next offset is read first and
 * messages below it are dropped: whatever was re-delivered (after a crash before the Kafka
 * commit, or to a second owner during a rebalance) was staged already, so the staged history
 * of a partition is always its messages in offset order, each once.
 *
 * Rows carry their offset as `seq`, so duplicates of a key resolve to the highest offset: the
 * later message wins even if a rebalance made two processes stage overlapping ranges.
 */
export interface ChunkMessage extends SnapshotMessage {
  readonly offset: string;
}

export interface ChunkDeps {
  readonly staging: Staging;
  readonly offsets: KafkaOffsetStore;
  readonly sealState: KafkaSealState;
  readonly late: PartitionLateGuard;
  readonly nowMs: () => number;
}

export interface ChunkResult {
  /** Next offset to process on the partition after this chunk (as stored). */
  readonly next: number;
  readonly staged: number;
  /** Quarantined, late ones included. */
  readonly quarantined: number;
  readonly late: number;
  /** Already staged before (re-delivered): neither staged nor quarantined again. */
  readonly skipped: number;
  /** Offsets missing between the stored position and this chunk (e.g. lost to retention). */
  readonly gap: number;
}

export class ChunkError extends Error {
  override name = 'ChunkError';
  constructor(readonly topic: string, readonly partition: number, readonly firstOffset: string, cause: unknown) {
    super(`staging ${topic}/${partition}@${firstOffset} failed: ${(cause as Error).message ?? String(cause)}`, { cause });
  }
}

interface Pending {
  readonly rows: SnapshotRow[];
  readonly rowOffsets: number[];
  readonly rejects: QuarantineEntry[];
  readonly rejectOffsets: number[];
  late: number;
}

function decodeChunk(topic: string, partition: number, dataset: Dataset, messages: readonly ChunkMessage[], keys: KeyCanon, late: PartitionLateGuard): Pending {
  const p: Pending = { rows: [], rowOffsets: [], rejects: [], rejectOffsets: [], late: 0 };
  for (const m of messages) {
    const offset = Number(m.offset);
    const v = decodeSnapshotMessage(m, dataset, keys);
    if (!v.ok) {
      p.rejects.push({ source: `${topic}/${partition}@${m.offset}`, reason: v.reason, raw: m.value?.toString('utf8') ?? '' });
      p.rejectOffsets.push(offset);
      continue;
    }
    const r = v.row;
    if (late.isLate(dataset, r.tradedate, r.symbol, partition)) {
      p.rejects.push({
        source: `${topic}/${partition}@${m.offset}`,
        reason: `late: ${dataset} ${r.tradedate} ${r.symbol} is already sealed`,
        raw: m.value?.toString('utf8') ?? '',
      });
      p.rejectOffsets.push(offset);
      p.late++;
      continue;
    }
    p.rows.push({ dataset, symbol: r.symbol, tradedate: r.tradedate, timeMs: r.timeMs, values: r.values, seq: offset });
    p.rowOffsets.push(offset);
  }
  return p;
}

function keepFrom<T>(items: T[], offsets: number[], from: number): T[] {
  if (offsets.length === 0 || offsets[0] >= from) return items;
  return items.filter((_, i) => offsets[i] >= from);
}

export function stageChunk(
  deps: ChunkDeps,
  topic: string,
  partition: number,
  dataset: Dataset,
  messages: readonly ChunkMessage[],
  keys: KeyCanon,
): ChunkResult {
  const first = Number(messages[0].offset);
  const last = Number(messages[messages.length - 1].offset);
  const p = decodeChunk(topic, partition, dataset, messages, keys, deps.late);
  const run = deps.staging.db.transaction((): ChunkResult => {
    const stored = deps.offsets.next(topic, partition);
    if (stored !== null && stored > last) {
      return { next: stored, staged: 0, quarantined: 0, late: 0, skipped: messages.length, gap: 0 };
    }
    const from = stored ?? first;
    const rows = keepFrom(p.rows, p.rowOffsets, from);
    const rejects = keepFrom(p.rejects, p.rejectOffsets, from);
    const skipped = Math.max(0, from - first);
    const lateKept = p.late === 0 || skipped === 0 ? p.late : rejects.filter((q) => q.reason.startsWith('late: ')).length;
    deps.staging.stage(rows, rejects, () => {
      deps.offsets.advance(topic, partition, last + 1, deps.nowMs());
      for (const r of rows) deps.sealState.noteSymbol(dataset, r.tradedate, r.symbol, partition);
    });
    return {
      next: last + 1,
      staged: rows.length,
      quarantined: rejects.length,
      late: lateKept,
      skipped,
      gap: stored !== null && stored < first ? first - stored : 0,
    };
  });
  try {
    // IMMEDIATE: take the write lock before reading the stored offset, so no other process
    // can advance it between that read and this commit.
    return run.immediate();
  } catch (e) {
    deps.sealState.resetCache();
    throw new ChunkError(topic, partition, messages[0].offset, e);
  }
}
