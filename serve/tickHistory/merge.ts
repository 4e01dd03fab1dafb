/**
 * Merge order of plain detail within one trading day (pure): rows of several symbol-day files
 * sorted by (time, symbol), ascending or the exact reverse, with a deep offset located from
 * the catalog's per-minute row counts rather than by reading the rows before it.
 *
 * Every row of minute m precedes every row of minute m+1 in any file, so the rank of the
 * first row of a minute in the merged order is the sum, over the files, of their selected
 * rows before that minute. `planDay` finds the minute holding the wanted rank and the minute
 * by which enough rows follow it; only the rows of those minutes are read and merged.
 */
import { rowsBeforeMinute, type MinuteIndex } from '../../storage/minuteIndex.js';

export interface MergeSource {
  /** The selected rows are positions [lo, hi) of the file (after any time window). */
  readonly lo: number;
  readonly hi: number;
  readonly minuteIndex: MinuteIndex;
  /** Cumulative minute starts of `minuteIndex` (storage/minuteIndex.ts `minuteStarts`). */
  readonly starts: Uint32Array;
}

export type Direction = 'asc' | 'desc';

/** Row positions [from, to) of each source that the merge reads. */
export interface DayPlan {
  readonly from: Int32Array;
  readonly to: Int32Array;
  /** Rows of the merged order, from the start of the read spans, that precede the page. */
  readonly skip: number;
}

const MINUTES = 24 * 60;

export function selectedRows(sources: readonly MergeSource[]): number {
  let n = 0;
  for (const s of sources) n += Math.max(0, s.hi - s.lo);
  return n;
}

/** Selected rows per minute of day, summed over the sources. */
function minuteTotals(sources: readonly MergeSource[]): Float64Array {
  const totals = new Float64Array(MINUTES + 1);
  for (const s of sources) {
    const { base, counts } = s.minuteIndex;
    for (let i = 0; i < counts.length; i++) {
      const a = Math.max(s.lo, s.starts[i]);
      const b = Math.min(s.hi, s.starts[i + 1]);
      if (b > a) totals[base + i] += b - a;
    }
  }
  return totals;
}

function clamp(v: number, s: MergeSource): number {
  return Math.min(Math.max(v, s.lo), Math.max(s.lo, s.hi));
}

/**
 * The spans to read for rows [rank, rank + take) of the day's merged order (ranks counted in
 * `dir`). Requires rank < selectedRows(sources) and take > 0.
 */
export function planDay(sources: readonly MergeSource[], rank: number, take: number, dir: Direction): DayPlan {
  const totals = minuteTotals(sources);
  const step = dir === 'asc' ? 1 : -1;
  const first = dir === 'asc' ? 0 : MINUTES - 1;
  let m = first;
  let before = 0;
  while (m >= 0 && m < MINUTES && before + totals[m] <= rank) {
    before += totals[m];
    m += step;
  }
  if (m < 0 || m >= MINUTES) throw new RangeError(`rank ${rank} is beyond the ${before} selected rows`);
  const skip = rank - before;
  // The last minute needed: enough rows from the start of minute `m` to cover skip + take.
  let last = m;
  let covered = totals[m];
  while (covered < skip + take && last + step >= 0 && last + step < MINUTES) {
    last += step;
    covered += totals[last];
  }
  const lowMinute = dir === 'asc' ? m : last;
  const highMinute = dir === 'asc' ? last : m;
  const from = new Int32Array(sources.length);
  const to = new Int32Array(sources.length);
  sources.forEach((s, i) => {
    from[i] = clamp(rowsBeforeMinute(s.minuteIndex, s.starts, lowMinute), s);
    to[i] = clamp(rowsBeforeMinute(s.minuteIndex, s.starts, highMinute + 1), s);
  });
  return { from, to, skip };
}

/** One output row: which source, which file position. */
export interface MergedRow {
  readonly source: number;
  readonly position: number;
}

/**
 * k-way merge of the planned spans by (time, source index); sources must be given in symbol
 * order so the source index is the symbol tie-break. `timeAt` must answer for every position
 * inside the plan's spans. Returns at most `take` rows after skipping `plan.skip`.
 */
export function mergeDay(plan: DayPlan, take: number, dir: Direction, timeAt: (source: number, position: number) => number): MergedRow[] {
  const n = plan.from.length;
  // One number per cursor orders (time, source) exactly: time * n + source < 2^53 for any
  // day time and any n up to millions. desc negates it, which reverses both keys at once.
  const sign = dir === 'asc' ? 1 : -1;
  const pos = new Int32Array(n);
  const keys = new Float64Array(n);
  const heap = new Int32Array(n);
  let size = 0;
  const keyOf = (s: number) => sign * (timeAt(s, pos[s]) * n + s);

  const siftDown = (i: number) => {
    const item = heap[i];
    const k = keys[item];
    for (;;) {
      let child = 2 * i + 1;
      if (child >= size) break;
      if (child + 1 < size && keys[heap[child + 1]] < keys[heap[child]]) child++;
      if (keys[heap[child]] >= k) break;
      heap[i] = heap[child];
      i = child;
    }
    heap[i] = item;
  };

  for (let s = 0; s < n; s++) {
    if (plan.to[s] <= plan.from[s]) continue;
    pos[s] = dir === 'asc' ? plan.from[s] : plan.to[s] - 1;
    keys[s] = keyOf(s);
    heap[size++] = s;
  }
  for (let i = (size >> 1) - 1; i >= 0; i--) siftDown(i);

  const out: MergedRow[] = [];
  let skipped = 0;
  while (size > 0 && out.length < take) {
    const s = heap[0];
    if (skipped < plan.skip) skipped++;
    else out.push({ source: s, position: pos[s] });
    pos[s] += dir === 'asc' ? 1 : -1;
    if (pos[s] >= plan.from[s] && pos[s] < plan.to[s]) {
      keys[s] = keyOf(s);
    } else {
      heap[0] = heap[--size];
    }
    if (size > 0) siftDown(0);
  }
  return out;
}
