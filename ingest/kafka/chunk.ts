/**
 * The first half of staging a chunk of consecutive messages of one partition: validate each
 * (bad → a quarantine entry naming `topic/partition@offset`), late ones → quarantine entries,
 * good ones → staging records. The group commit (stagingCommits.ts) appends the records of many
 * chunks at once, makes them durable, and then records the quarantine entries and the
 * partition's next offset.
 *
 * Every record carries its offset as its order, and staging resolves duplicates to the
 * highest: a message appended twice (re-delivered after a crash before its offset was
 * recorded, or to two owners during a rebalance) is the same row twice and changes nothing.
 */
import { type Dataset } from '../../shared/schema.js';
import type { DecodeReply } from './decodeWorker.js';
import { decodeSnapshotMessage, type KeyCanon, type SnapshotMessage } from './messages.js';
import type { PartitionLateGuard } from '../seal/sealState.js';
import type { QuarantineEntry } from '../staging/segments.js';
import { readRecord, recordBytes, writeRecord, type EncodedRecords, type SymbolDay } from '../../storage/staging/recordCodec.js';
import { canonicalFeedLine } from '../staging/canonicalLine.js';
import { lateReason } from '../../storage/staging/lateReason.js';

export interface ChunkMessage extends SnapshotMessage {
  readonly offset: string;
}

/** A decoded chunk, waiting for the group commit. */
export interface DecodedChunk extends EncodedRecords {
  readonly topic: string;
  readonly partition: number;
  readonly firstOffset: number;
  readonly lastOffset: number;
  readonly messages: number;
  // EncodedRecords: the rows to append (re-delivered ones below the known position are left
  // out), in staging layout with the offset as order; `symbolDays` feed the symbol-day →
  // partition record.
  readonly rejects: readonly QuarantineEntry[];
  readonly rejectOffsets: readonly number[];
  /** Late messages among the rejects. */
  readonly late: number;
}

/** Gathers a chunk's records and their symbol-days (in order of first appearance). */
class RecordGatherer {
  private readonly size: number;
  private bytes: Uint8Array;
  private sdOf: Int32Array;
  private count = 0;
  private readonly index = new Map<string, number>();
  readonly symbolDays: SymbolDay[] = [];

  constructor(dataset: Dataset, capacity: number) {
    this.size = recordBytes(dataset);
    this.bytes = new Uint8Array(capacity * this.size);
    this.sdOf = new Int32Array(capacity);
  }

  /** Room for the next record, which then belongs to `tradedate`/`symbol`; returns its byte offset. */
  next(tradedate: string, symbol: string): number {
    const k = `${tradedate}|${symbol}`;
    let sd = this.index.get(k);
    if (sd === undefined) {
      sd = this.symbolDays.length;
      this.symbolDays.push({ tradedate, symbol });
      this.index.set(k, sd);
    }
    this.sdOf[this.count] = sd;
    return this.count++ * this.size;
  }

  get buffer(): Uint8Array {
    return this.bytes;
  }

  take(): { records: Uint8Array; symbolDayOf: Int32Array; symbolDays: SymbolDay[] } {
    return { records: this.bytes.subarray(0, this.count * this.size), symbolDayOf: this.sdOf.subarray(0, this.count), symbolDays: this.symbolDays };
  }
}

/**
 * Decodes one chunk on this thread (the reference the worker path is tested against).
 * `knownNext` is the partition's next offset as far as this process knows (stored, or pending
 * in the group commit): messages below it are already handled.
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
  const out = new RecordGatherer(dataset, messages.length);
  const view = new DataView(out.buffer.buffer, out.buffer.byteOffset, out.buffer.byteLength);
  const rejects: QuarantineEntry[] = [];
  const rejectOffsets: number[] = [];
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
    writeRecord(view, out.next(r.tradedate, r.symbol), r.symbol, r.timeMs, r.values, offset);
  }
  return { topic, partition, dataset, firstOffset, lastOffset, messages: messages.length, ...out.take(), rejects, rejectOffsets, late: lateCount };
}

/**
 * Builds a decoded chunk from the decode worker's reply for `messages` (all at or above the
 * known position): rejects named by the worker, late rows turned into rejects here (the late
 * guard reads this process's catalog and seal state), the rest kept as the worker encoded them.
 */
export function chunkFromReply(
  late: PartitionLateGuard,
  topic: string,
  partition: number,
  dataset: Dataset,
  messages: readonly ChunkMessage[],
  reply: DecodeReply,
): DecodedChunk {
  const rejects: QuarantineEntry[] = [];
  const rejectOffsets: number[] = [];
  // Lateness is per symbol-day (and the partition-day's cut): asked once per symbol-day.
  const sdCount = reply.symbols.length;
  const lateFrom = new Float64Array(sdCount);
  let anyLate = false;
  for (let s = 0; s < sdCount; s++) {
    lateFrom[s] = late.lateFrom(dataset, reply.tradedates[s], reply.symbols[s], partition);
    if (lateFrom[s] !== Infinity) anyLate = true;
  }
  // Good records stay as the worker encoded them unless a symbol-day may be late (rare: only
  // around a seal); then the others are copied record by record.
  const size = recordBytes(dataset);
  const kept = anyLate ? new RecordGatherer(dataset, reply.symbolDayOf.length) : null;
  let lateCount = 0;
  let k = 0;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (reply.ok[i] !== 1) {
      rejects.push({ source: `${topic}/${partition}@${m.offset}`, reason: reply.reasons[i] ?? 'rejected', raw: m.value?.toString('utf8') ?? '' });
      rejectOffsets.push(Number(m.offset));
      continue;
    }
    const sd = reply.symbolDayOf[k];
    const at = k++ * size;
    if (kept === null) continue;
    const offset = Number(m.offset);
    const symbol = reply.symbols[sd];
    const tradedate = reply.tradedates[sd];
    if (offset >= lateFrom[sd]) {
      const r = readRecord(reply.records, at, dataset);
      rejects.push(lateReject(late, `${topic}/${partition}@${m.offset}`, dataset, tradedate, symbol, r.timeMs, r.values, m));
      rejectOffsets.push(offset);
      lateCount++;
      continue;
    }
    kept.buffer.set(reply.records.subarray(at, at + size), kept.next(tradedate, symbol));
  }
  const records = kept
    ? kept.take()
    : {
        records: reply.records,
        symbolDayOf: reply.symbolDayOf,
        symbolDays: reply.symbols.map((symbol, s): SymbolDay => ({ tradedate: reply.tradedates[s], symbol })),
      };
  return {
    topic,
    partition,
    dataset,
    firstOffset: Number(messages[0].offset),
    lastOffset: Number(messages[messages.length - 1].offset),
    messages: messages.length,
    ...records,
    rejects,
    rejectOffsets,
    late: lateCount,
  };
}

/** The quarantine entry of a late message, as it arrives (see PartitionLateGuard on canonical lines). */
function lateReject(
  late: PartitionLateGuard,
  source: string,
  dataset: Dataset,
  tradedate: string,
  symbol: string,
  timeMs: number,
  values: readonly (number | null)[],
  m: ChunkMessage,
): QuarantineEntry {
  return lateEntry(source, dataset, tradedate, symbol, timeMs, values, late.canonicalLate ? null : (m.value?.toString('utf8') ?? ''));
}

/**
 * A late row's quarantine entry, on every path (on arrival, or from staging when a seal cut
 * is agreed below rows already staged): `original` is the message text, or null for the
 * row's canonical feed line.
 */
export function lateEntry(
  source: string,
  dataset: Dataset,
  tradedate: string,
  symbol: string,
  timeMs: number,
  values: ArrayLike<number | null>,
  original: string | null,
): QuarantineEntry {
  return {
    source,
    reason: lateReason(dataset, tradedate, symbol),
    raw: original ?? canonicalFeedLine(dataset, tradedate, symbol, timeMs, values),
  };
}
