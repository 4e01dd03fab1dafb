import { SCHEMAS, type Dataset, type SnapshotRow } from '../../shared/schema.js';
import type { DecodeReply } from './decodeWorker.js';
import { decodeSnapshotMessage, type KeyCanon, type SnapshotMessage } from './messages.js';
import type { PartitionLateGuard } from './sealState.js';
import type { QuarantineEntry } from '../staging/segments.js';
import { canonicalFeedLine } from '../staging/canonicalLine.js';

/**
 * The first half of staging a chunk of consecutive messages of one partition: validate each
 * (bad → a quarantine entry naming `topic/partition@offset`), late ones → quarantine entries,
 * good ones → rows. The group commit (commits.ts) appends the rows of many chunks at once,
 * makes them durable, and then records the quarantine entries and the partition's next offset.
 *
 * Every row carries its offset as `seq`, and staging resolves duplicates to the highest: a
 * message appended twice (re-delivered after a crash before its offset was recorded, or to
 * two owners during a rebalance) is the same row twice and changes nothing.
 */
export interface ChunkMessage extends SnapshotMessage {
  readonly offset: string;
}

/** A decoded chunk, waiting for the group commit. */
export interface DecodedChunk {
  readonly topic: string;
  readonly partition: number;
  readonly dataset: Dataset;
  readonly firstOffset: number;
  readonly lastOffset: number;
  readonly messages: number;
  /** Rows to append (re-delivered ones below the known position are left out). */
  readonly rows: readonly SnapshotRow[];
  readonly rejects: readonly QuarantineEntry[];
  readonly rejectOffsets: readonly number[];
  /** Late messages among the rejects. */
  readonly late: number;
  /** `tradedate|symbol` of the rows, for the symbol-day → partition record. */
  readonly symbolDays: ReadonlySet<string>;
}

/**
 * Decodes one chunk. `knownNext` is the partition's next offset as far as this process knows
 * (stored, or pending in the group commit): messages below it are already handled.
 */
export function decodeChunk(
  late: PartitionLateGuard,
  topic: string,
  partition: number,
  dataset: Dataset,
  messages: readonly ChunkMessage[],
  keys: KeyCanon,
  knownNext: number | null,
): DecodedChunk {
  const firstOffset = Number(messages[0].offset);
  const lastOffset = Number(messages[messages.length - 1].offset);
  const from = knownNext ?? firstOffset;
  const rows: SnapshotRow[] = [];
  const rejects: QuarantineEntry[] = [];
  const rejectOffsets: number[] = [];
  const symbolDays = new Set<string>();
  let lateCount = 0;
  for (const m of messages) {
    const offset = Number(m.offset);
    if (offset < from) continue;
    const v = decodeSnapshotMessage(m, dataset, keys);
    if (!v.ok) {
      rejects.push({ source: `${topic}/${partition}@${m.offset}`, reason: v.reason, raw: m.value?.toString('utf8') ?? '' });
      rejectOffsets.push(offset);
      continue;
    }
    const r = v.row;
    if (late.isLate(dataset, r.tradedate, r.symbol, partition, offset)) {
      rejects.push(lateReject(late, `${topic}/${partition}@${m.offset}`, dataset, r.tradedate, r.symbol, r.timeMs, r.values, m));
      rejectOffsets.push(offset);
      lateCount++;
      continue;
    }
    rows.push({ dataset, symbol: r.symbol, tradedate: r.tradedate, timeMs: r.timeMs, values: r.values, seq: offset });
    symbolDays.add(`${r.tradedate}|${r.symbol}`);
  }
  return {
    topic, partition, dataset, firstOffset, lastOffset, messages: messages.length,
    rows, rejects, rejectOffsets, late: lateCount, symbolDays,
  };
}

/**
 * Builds a decoded chunk from the decode worker's reply for `messages` (all at or above the
 * known position): rejects named by the worker, late rows turned into rejects here (the late
 * guard reads this process's catalog and seal state), the rest into rows.
 */
export function chunkFromReply(
  late: PartitionLateGuard,
  topic: string,
  partition: number,
  dataset: Dataset,
  messages: readonly ChunkMessage[],
  reply: DecodeReply,
): DecodedChunk {
  const width = SCHEMAS[dataset].valueFields.length;
  const rows: SnapshotRow[] = [];
  const rejects: QuarantineEntry[] = [];
  const rejectOffsets: number[] = [];
  const symbolDays = new Set<string>();
  let lateCount = 0;
  let k = 0;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    const offset = Number(m.offset);
    if (reply.ok[i] !== 1) {
      rejects.push({ source: `${topic}/${partition}@${m.offset}`, reason: reply.reasons[i] ?? 'rejected', raw: m.value?.toString('utf8') ?? '' });
      rejectOffsets.push(offset);
      continue;
    }
    const symbol = reply.symbols[k];
    const tradedate = reply.tradedates[k];
    const base = k * width;
    const timeMs = reply.timesMs[k];
    k++;
    const values: (number | null)[] = new Array(width);
    for (let j = 0; j < width; j++) {
      const x = reply.values[base + j];
      values[j] = Number.isNaN(x) ? null : x; // JSON has no NaN: NaN stands for null
    }
    if (late.isLate(dataset, tradedate, symbol, partition, offset)) {
      rejects.push(lateReject(late, `${topic}/${partition}@${m.offset}`, dataset, tradedate, symbol, timeMs, values, m));
      rejectOffsets.push(offset);
      lateCount++;
      continue;
    }
    rows.push({ dataset, symbol, tradedate, timeMs, values, seq: offset });
    symbolDays.add(`${tradedate}|${symbol}`);
  }
  return {
    topic, partition, dataset, firstOffset: Number(messages[0].offset), lastOffset: Number(messages[messages.length - 1].offset),
    messages: messages.length, rows, rejects, rejectOffsets, late: lateCount, symbolDays,
  };
}

/** The quarantine entry of a late message, as it arrives (see PartitionLateGuard on canonical lines). */
function lateReject(
  late: PartitionLateGuard, source: string, dataset: Dataset, tradedate: string, symbol: string, timeMs: number,
  values: readonly (number | null)[], m: ChunkMessage,
): QuarantineEntry {
  return lateEntry(source, dataset, tradedate, symbol, timeMs, values, late.canonicalLate ? null : m.value?.toString('utf8') ?? '');
}

/**
 * A late row's quarantine entry, on every path (on arrival, or from staging when a seal cut
 * is agreed below rows already staged): `original` is the message text, or null for the
 * row's canonical feed line.
 */
export function lateEntry(
  source: string, dataset: Dataset, tradedate: string, symbol: string, timeMs: number, values: ArrayLike<number | null>, original: string | null,
): QuarantineEntry {
  return {
    source,
    reason: `late: ${dataset} ${tradedate} ${symbol} is already sealed`,
    raw: original ?? canonicalFeedLine(dataset, tradedate, symbol, timeMs, values),
  };
}
