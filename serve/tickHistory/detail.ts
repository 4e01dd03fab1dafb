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
import type { DayFile } from './dayFiles.js';
import { liveRowAtOrAfter, liveRowTexts, type DaySymbol, type DaySymbolList, type LiveTicks } from './daySymbols.js';
import type { EnhancedQuery } from './params.js';
import { mergeDay, planDay, selectedRows, type DayPlan, type MergeSource } from './merge.js';
import { groupRowsOf } from './rows.js';
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
  readonly items: readonly DaySymbol[];
  readonly sources: readonly MergeSource[];
  readonly total: number;
}

/** Selected rows [lo, hi) of a file for the time window: minute index, then one minute's times at most. */
async function fileSourceOf(cache: FileColumnCache, df: DayFile, q: EnhancedQuery): Promise<MergeSource> {
  const { file, starts } = df;
  const [lo, hi] = await Promise.all([
    q.window.startMs <= 0 ? 0 : firstRowAtOrAfter(file, starts, q.window.startMs, spanTimeLookup(cache, file)),
    q.window.endMs >= MS_PER_DAY ? file.rows : firstRowAtOrAfter(file, starts, q.window.endMs, spanTimeLookup(cache, file)),
  ]);
  return { lo, hi: Math.max(lo, hi), minuteIndex: file.minuteIndex, starts };
}

/** Selected rows [lo, hi) of a live symbol-day for the time window. */
function liveSourceOf(t: LiveTicks, q: EnhancedQuery): MergeSource {
  const lo = q.window.startMs <= 0 ? 0 : liveRowAtOrAfter(t, q.window.startMs);
  const hi = q.window.endMs >= MS_PER_DAY ? t.day.rows : liveRowAtOrAfter(t, q.window.endMs);
  return { lo, hi: Math.max(lo, hi), minuteIndex: t.minuteIndex, starts: t.starts };
}

async function daySources(cache: FileColumnCache, day: DaySymbolList, q: EnhancedQuery): Promise<DaySources> {
  // Items are in symbol order, so the source index is the symbol order the merge breaks ties by.
  const items = day.items;
  const sources = await Promise.all(items.map((it) => (it.kind === 'file' ? fileSourceOf(cache, it.df, q) : liveSourceOf(it.live, q))));
  return { items, sources, total: selectedRows(sources) };
}

/** A source's rows within the plan's span: times drive the merge, texts make the page. */
interface SpanRows {
  time(position: number): number;
  text(position: number): string;
}

/**
 * Every span of the plan, read with the page's fields: a file's row groups holding the span
 * (nearly all of them contribute rows to the page), or a live symbol-day's rows.
 */
async function planRows(cache: FileColumnCache, ds: DaySources, plan: DayPlan, fields: readonly number[]): Promise<SpanRows[]> {
  return Promise.all(
    ds.items.map(async (it, s): Promise<SpanRows> => {
      if (it.kind === 'live') {
        const times = it.live.day.timesMs;
        return { time: (p) => times[p]!, text: liveRowTexts(it.live, plan.from[s]!, Math.max(plan.from[s]!, plan.to[s]!), fields) };
      }
      const size = it.df.file.rowGroupSize;
      const groups = groupsOf({ lo: plan.from[s], hi: plan.to[s] }, size);
      const first = groups[0] ?? 0;
      const rows = await Promise.all(groupRowsOf(cache, it.df.file, groups, fields));
      const groupOf = (p: number) => rows[Math.floor(p / size) - first]!;
      return { time: (p) => groupOf(p).times[p % size]!, text: (p) => groupOf(p).text(p % size) };
    }),
  );
}

export async function detailPage(cache: FileColumnCache, days: readonly DaySymbolList[], q: EnhancedQuery): Promise<DetailPage> {
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
    const loaded = await planRows(cache, ds, plan, q.fields);
    const merged = mergeDay(plan, take, q.order, (s, p) => loaded[s]!.time(p));
    for (const r of merged) texts.push(loaded[r.source]!.text(r.position));
    rank = 0;
  }
  return { itemsText: texts.join(','), count: texts.length, total };
}
