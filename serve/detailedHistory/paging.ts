/**
 * Where a level-2 page lies among the rows a request's time filters select (pure). The rows
 * themselves are located by the shared row search (serve/reading/rowSearch.ts).
 */
import type { Level2Start } from './params.js';
import type { RowSpan } from '../reading/rowSearch.js';

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
