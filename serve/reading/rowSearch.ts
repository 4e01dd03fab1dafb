/**
 * Row positions in a sealed file, for both operations (pure but for the times the caller
 * supplies). A time bound is located in two steps: the catalog's minute index gives the rows
 * of the bound's minute exactly, [rows before minute m, rows before minute m+1); only when the
 * bound falls inside a minute are that minute's times looked at, which touches one row group
 * (rarely two) of the `time` column. Rows before a page are never decoded.
 */
import type { CatalogFile } from '../../storage/catalog.js';
import { rowsBeforeMinute, type MinuteIndex } from '../../storage/minuteIndex.js';
import { MS_PER_MINUTE } from '../../shared/timeFormat.js';

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

/** Rows in row group `g` of a file: the row-group size, or what is left in the last group. */
export function groupRowCount(file: Pick<CatalogFile, 'rows' | 'rowGroupSize'>, g: number): number {
  return Math.min(file.rowGroupSize, file.rows - g * file.rowGroupSize);
}

/** Row groups holding rows [lo, hi) for a fixed row-group size. */
export function groupsOf(span: RowSpan, rowGroupSize: number): number[] {
  if (span.hi <= span.lo) return [];
  const first = Math.floor(span.lo / rowGroupSize);
  const last = Math.floor((span.hi - 1) / rowGroupSize);
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}

/**
 * Position of the first row of `file` with time >= ms: the minute index, then a binary search
 * over at most one minute's times. `timesOf(span)` supplies the times of that span's rows (each
 * operation decodes its own time format); it is not called when the index alone answers.
 */
export async function firstRowAtOrAfter(
  file: CatalogFile,
  starts: Uint32Array,
  ms: number,
  timesOf: (span: RowSpan) => Promise<(row: number) => number>,
): Promise<number> {
  const span = boundarySearchSpan(file.minuteIndex, starts, ms);
  if (span.lo === span.hi) return span.lo;
  return lowerBound(span, ms, await timesOf(span));
}
