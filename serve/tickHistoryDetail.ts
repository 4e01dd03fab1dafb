import { MS_PER_DAY } from '../shared/timeFormat.js';
import type { FileColumnCache } from './fileColumns.js';
import { groupsOf } from './level2Paging.js';
import type { DayFile, DayFiles } from './tickHistoryCatalog.js';
import type { EnhancedQuery } from './tickHistoryParams.js';
import { mergeDay, planDay, selectedRows, type MergedRow, type MergeSource } from './tickMerge.js';
import { firstRowAtOrAfter, groupRows, groupTimes, prefetchGroups, type GroupRows } from './tickRows.js';

/**
 * Enhanced plain detail: the rows of several index files over several days, sorted by
 * (tradedate, time, symbol) or the reverse, one limit/offset page of them.
 *
 * The offset is reached by counting, never by reading: whole days are skipped by their
 * selected-row totals, and inside the day holding the offset the per-minute counts of the
 * catalog's minute index locate the minute (tickMerge.planDay). Only that minute's rows and
 * those after it up to the page's end are read, from the row groups that hold them.
 */
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
    q.window.startMs <= 0 ? 0 : firstRowAtOrAfter(cache, file, starts, q.window.startMs),
    q.window.endMs >= MS_PER_DAY ? file.rows : firstRowAtOrAfter(cache, file, starts, q.window.endMs),
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
 * Times of every row group the plan reads, as a per-source lookup. The groups' output columns
 * are decoded in the same pass: nearly every group of a plan contributes rows to the page.
 */
async function planTimes(
  cache: FileColumnCache, ds: DaySources, from: Int32Array, to: Int32Array, fields: readonly number[],
): Promise<(s: number, p: number) => number> {
  const perSource = await Promise.all(
    ds.files.map(async (df, s) => {
      const groups = groupsOf({ lo: from[s], hi: to[s] }, df.file.rowGroupSize);
      await prefetchGroups(cache, df.file, groups, fields);
      const times = await Promise.all(groups.map((g) => groupTimes(cache, df.file, g)));
      return { first: groups[0] ?? 0, times };
    }),
  );
  const sizes = ds.files.map((df) => df.file.rowGroupSize);
  return (s, p) => {
    const size = sizes[s];
    const g = Math.floor(p / size);
    const src = perSource[s];
    return src.times[g - src.first][p - g * size];
  };
}

/** Row texts of merged rows, in merge order. */
async function rowTexts(cache: FileColumnCache, ds: DaySources, rows: readonly MergedRow[], fields: readonly number[]): Promise<string[]> {
  // Numeric keys (source, group): a page has thousands of rows but only a few hundred groups.
  const GROUPS_PER_SOURCE = 1 << 20;
  const slot = new Map<number, number>();
  const pending: Promise<GroupRows>[] = [];
  const keys = new Float64Array(rows.length);
  rows.forEach((r, i) => {
    const file = ds.files[r.source].file;
    const g = Math.floor(r.position / file.rowGroupSize);
    const key = r.source * GROUPS_PER_SOURCE + g;
    keys[i] = key;
    if (!slot.has(key)) {
      slot.set(key, pending.length);
      pending.push(groupRows(cache, file, g, fields));
    }
  });
  const groups = await Promise.all(pending);
  return rows.map((r, i) => groups[slot.get(keys[i])!].text(r.position % ds.files[r.source].file.rowGroupSize));
}

export async function detailPage(cache: FileColumnCache, days: readonly DayFiles[], q: EnhancedQuery): Promise<DetailPage> {
  const perDay = await Promise.all(days.map((d) => daySources(cache, d, q)));
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
    const timeAt = await planTimes(cache, ds, plan.from, plan.to, q.fields);
    const merged = mergeDay(plan, take, q.order, timeAt);
    texts.push(...(await rowTexts(cache, ds, merged, q.fields)));
    rank = 0;
  }
  return { itemsText: texts.join(','), count: texts.length, total };
}
