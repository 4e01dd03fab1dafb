import { minuteStarts, rowsBeforeMinute, type MinuteIndex } from '../storage/minuteIndex.js';
import { MS_PER_MINUTE } from '../shared/timeFormat.js';
import type { Level2Start } from './level2Params.js';

/**
 * Page arithmetic over the catalog's row-position index (pure). A time bound is located in two
 * steps: the minute index gives the rows of the bound's minute exactly, [rows before minute m,
 * rows before minute m+1); only when the bound falls inside a minute are that minute's times
 * looked at, which touches one row group (rarely two) of the `time` column. Rows before a page
 * are never decoded.
 */
export interface RowSpan {
  readonly lo: number;
  readonly hi: number;
}

/** Rows whose time lies in the minute of `ms`. */
export function minuteSpan(idx: MinuteIndex, starts: Uint32Array, ms: number): RowSpan {
  const m = Math.floor(ms / MS_PER_MINUTE);
  return { lo: rowsBeforeMinute(idx, starts, m), hi: rowsBeforeMinute(idx, starts, m + 1) };
}

/**
 * The span in which the first row with time >= `ms` must be searched; `lo === hi` means the
 * answer is `lo` with no times needed (the bound is a minute start, or its minute is empty).
 */
export function boundarySearchSpan(idx: MinuteIndex, starts: Uint32Array, ms: number): RowSpan {
  const span = minuteSpan(idx, starts, ms);
  if (ms % MS_PER_MINUTE === 0) return { lo: span.lo, hi: span.lo };
  return span;
}

/** First row in [lo, hi) with time >= ms (times ascending), hi if none. */
export function lowerBound(span: RowSpan, ms: number, timeAt: (row: number) => number): number {
  let { lo, hi } = span;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (timeAt(mid) < ms) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Row groups holding rows [lo, hi) for a fixed row-group size. */
export function groupsOf(span: RowSpan, rowGroupSize: number): number[] {
  if (span.hi <= span.lo) return [];
  const first = Math.floor(span.lo / rowGroupSize);
  const last = Math.floor((span.hi - 1) / rowGroupSize);
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}

export interface PagePlan {
  /** First row of the page (file position). */
  readonly first: number;
  /** One past the last row of the page. */
  readonly end: number;
  /** Filtered rows: [lo, hi) are the rows within start_time..end_time. */
  readonly lo: number;
  readonly hi: number;
  readonly hasMore: boolean;
}

/**
 * Where the page lies, given the filtered rows [lo, hi): the first page starts at lo, an
 * older-kind offset counts from lo, a token carries the file position itself. Anything past
 * the end is an empty last page.
 */
export function planPage(filtered: RowSpan, start: Level2Start, pageSize: number): PagePlan {
  const { lo, hi } = filtered;
  const wanted = start.kind === 'first' ? lo : start.kind === 'offset' ? lo + start.offset : start.position;
  const first = Math.min(Math.max(wanted, lo), hi);
  const end = Math.min(hi, first + pageSize);
  return { first, end, lo, hi, hasMore: end < hi };
}

export { minuteStarts };
