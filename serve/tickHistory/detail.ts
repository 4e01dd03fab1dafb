/**
 * Enhanced plain detail: the rows of several index files over several days, sorted by
 * (tradedate, time, symbol) or the reverse, one limit/offset page of them.
 *
 * The offset is reached by counting, never by reading: whole days are skipped by their
 * selected-row totals, and inside the day holding the offset the per-minute counts of the
 * catalog's minute index locate the minute (merge.ts planDay). Only that minute's rows and
 * those after it up to the page's end are read, from the row groups that hold them.
 */
import { MS_PER_DAY } from '../../shared/timeFormat.js';
import type { FileColumnCache } from '../reading/fileColumns.js';
import { groupsOf } from '../reading/rowSearch.js';
import type { DayFile, DayFiles } from './dayFiles.js';
import type { EnhancedQuery } from './params.js';
import { mergeDay, planDay, selectedRows, type DayPlan, type MergeSource } from './merge.js';
import { groupRowsOf, type GroupRows } from './rows.js';
import { firstRowAtOrAfter } from '../reading/rowSearch.js';
import { spanTimeLookup } from '../reading/rowTimes.js';

export interface DetailPage {
  /** Row texts joined by commas. */
  readonly itemsText: string;
  readonly count: number;
  /** Rows matching the query over every day, whatever the page. */
  readonly total: number;
}

interface DaySources {
  readonly files: readonly DayFile[];
  readonly sources: readonly MergeSource[];
  readonly total: number;
}

/** Selected rows [lo, hi) of a file for the time window: minute index, then one minute's times at most. */
async function sourceOf(cache: FileColumnCache, df: DayFile, q: EnhancedQuery): Promise<MergeSource> {
  const { file, starts } = df;
  const [lo, hi] = await Promise.all([
    q.window.startMs <= 0 ? 0 : firstRowAtOrAfter(file, starts, q.window.startMs, spanTimeLookup(cache, file)),
    q.window.endMs >= MS_PER_DAY ? file.rows : firstRowAtOrAfter(file, starts, q.window.endMs, spanTimeLookup(cache, file)),
  ]);
  return { lo, hi: Math.max(lo, hi), minuteIndex: file.minuteIndex, starts };
}

async function daySources(cache: FileColumnCache, day: DayFiles, q: EnhancedQuery): Promise<DaySources> {
  // q.symbols is sorted, so the source index is the symbol order the merge breaks ties by.
  const files = q.symbols.map((s) => day.bySymbol.get(s)).filter((f): f is DayFile => f !== undefined);
  const sources = await Promise.all(files.map((df) => sourceOf(cache, df, q)));
  return { files, sources, total: selectedRows(sources) };
}

/**
 * The row groups of every span of the plan, decoded with the page's fields: nearly all of
 * them contribute rows to the page, and their times drive the merge.
 */
async function planGroups(cache: FileColumnCache, ds: DaySources, plan: DayPlan, fields: readonly number[]): Promise<PlanGroups[]> {
  return Promise.all(
    ds.files.map(async (df, s): Promise<PlanGroups> => {
      const groups = groupsOf({ lo: plan.from[s], hi: plan.to[s] }, df.file.rowGroupSize);
      return { first: groups[0] ?? 0, size: df.file.rowGroupSize, rows: await Promise.all(groupRowsOf(cache, df.file, groups, fields)) };
    }),
  );
}

interface PlanGroups {
  /** Number of the first group in `rows`. */
  readonly first: number;
  readonly size: number;
  readonly rows: readonly GroupRows[];
}

export async function detailPage(cache: FileColumnCache, days: readonly DayFiles[], q: EnhancedQuery): Promise<DetailPage> {
  // Day by day: a time window off the minute grid reads two row groups per file, and all days
  // at once could open thousands of files concurrently (at most 2 x 200 this way).
  const perDay: DaySources[] = [];
  for (const d of days) perDay.push(await daySources(cache, d, q));
  const total = perDay.reduce((n, d) => n + d.total, 0);
  const ordered = q.order === 'asc' ? perDay : [...perDay].reverse();
  const texts: string[] = [];
  let rank = q.offset;
  for (const ds of ordered) {
    if (texts.length >= q.limit) break;
    if (rank >= ds.total) {
      rank -= ds.total;
      continue;
    }
    const take = q.limit - texts.length;
    const plan = planDay(ds.sources, rank, take, q.order);
    const loaded = await planGroups(cache, ds, plan, q.fields);
    const groupOf = (s: number, p: number) => loaded[s].rows[Math.floor(p / loaded[s].size) - loaded[s].first];
    const merged = mergeDay(plan, take, q.order, (s, p) => groupOf(s, p).times[p % loaded[s].size]);
    for (const r of merged) texts.push(groupOf(r.source, r.position).text(r.position % loaded[r.source].size));
    rank = 0;
  }
  return { itemsText: texts.join(','), count: texts.length, total };
}
