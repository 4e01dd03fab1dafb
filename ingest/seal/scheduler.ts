/**
 * Pure decisions of the running ingestor's sealing (api-contract: The feed): a day is due once Beijing
 * time is past its close plus the grace period, and it is sealed by a process only when that
 * process has caught up with the end of every partition it owns. No I/O here.
 */
import { beijingDayStartMs } from '../../shared/clock.js';
import type { Dataset } from '../../shared/schema.js';
import { partitionForKey } from '../kafka/partitions.js';

export interface DayRef {
  readonly dataset: Dataset;
  readonly tradedate: string;
}

const dayStarts = new Map<string, number>();

/** Epoch ms from which `tradedate` may be sealed: its Beijing midnight plus `sealAfterMs`. */
export function sealDueAtMs(tradedate: string, sealAfterMs: number): number {
  // Asked every seal tick for every open day; the zone arithmetic is worth remembering.
  let start = dayStarts.get(tradedate);
  if (start === undefined) {
    if (dayStarts.size > 10_000) dayStarts.clear();
    dayStarts.set(tradedate, (start = beijingDayStartMs(tradedate)));
  }
  return start + sealAfterMs;
}

export function isDayDue(tradedate: string, nowMs: number, sealAfterMs: number): boolean {
  return nowMs >= sealDueAtMs(tradedate, sealAfterMs);
}

/** The due days among `days`, without repeats, oldest first (then by dataset name). */
export function dueDays(days: Iterable<DayRef>, nowMs: number, sealAfterMs: number): DayRef[] {
  const seen = new Map<string, DayRef>();
  for (const d of days) {
    const k = `${d.tradedate}|${d.dataset}`;
    if (!seen.has(k) && isDayDue(d.tradedate, nowMs, sealAfterMs)) seen.set(k, { dataset: d.dataset, tradedate: d.tradedate });
  }
  return [...seen.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([, d]) => d);
}

/** When the earliest not-yet-due day of `days` becomes due, or null when none is pending. */
export function nextDueAtMs(days: Iterable<DayRef>, nowMs: number, sealAfterMs: number): number | null {
  let next: number | null = null;
  for (const d of days) {
    const at = sealDueAtMs(d.tradedate, sealAfterMs);
    if (at > nowMs && (next === null || at < next)) next = at;
  }
  return next;
}

/**
 * Where a consumer stands on one partition. `position` is the next offset it will process
 * (null when nothing is recorded: it will start at the log start); `low`/`high` are the
 * partition's first retained offset and its high watermark.
 */
export interface PartitionPosition {
  readonly topic: string;
  readonly partition: number;
  readonly position: number | null;
  readonly low: number;
  readonly high: number;
}

/** Messages still to process on a partition. */
export function lagOf(p: PartitionPosition): number {
  const from = Math.max(p.position ?? p.low, p.low);
  return Math.max(0, p.high - from);
}

/** Caught up = nothing left to read on any owned partition (vacuously true for none). */
export function isCaughtUp(positions: readonly PartitionPosition[]): boolean {
  return positions.every((p) => lagOf(p) === 0);
}

/**
 * Groups a day's staged symbols by the partition that owns them, keeping only `owned`
 * partitions: the recorded partition when there is one, else murmur2 of the symbol (the
 * partitioner `tickvault produce` and Java producers use).
 */
export function symbolsByOwnedPartition(
  symbols: readonly string[],
  recorded: ReadonlyMap<string, number>,
  partitionCount: number,
  owned: ReadonlySet<number>,
): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const s of symbols) {
    const p = recorded.get(s) ?? partitionForKey(s, partitionCount);
    if (!owned.has(p)) continue;
    let list = out.get(p);
    if (!list) out.set(p, (list = []));
    list.push(s);
  }
  return out;
}

/** A day is complete when every partition of its topic has been sealed for it. */
export function isDayComplete(sealedPartitions: ReadonlySet<number>, partitionCount: number): boolean {
  if (partitionCount <= 0) return false;
  for (let p = 0; p < partitionCount; p++) if (!sealedPartitions.has(p)) return false;
  return true;
}
