/**
 * The symbols of one trading day as tick_history reads them: each one's sealed file, or, on a
 * live day (api-contract: The live day), its staged rows as the seal would write them now. A
 * day being sealed is listed symbol by symbol, so a symbol with a file is read from it and one
 * without from staging: every row is answered once, from one place.
 *
 * Live rows are put in the sealed rows' terms (minute index, cumulative starts, tick shape), so
 * the merge, the offsets and the boundary rule are the ones sealed days use.
 */
import { isTradingDay, latestTradingDay } from '../../calendar/tradingCalendar.js';
import { buildMinuteIndex, minuteStarts, type MinuteIndex } from '../../storage/minuteIndex.js';
import { columnsAsRead } from '../../storage/rowText/rowTextBuild.js';
import { sourceOfFile, tickColumns, tickRowText, type Asset } from '../../storage/tickShape.js';
import type { LiveStaging, LiveSymbolDay } from '../reading/liveStaging.js';
import type { DayFile, TickDays } from './dayFiles.js';

/** A live symbol-day in the terms of a sealed file. */
export interface LiveTicks {
  readonly dataset: 'index' | 'level2';
  readonly tradedate: string;
  readonly day: LiveSymbolDay;
  readonly minuteIndex: MinuteIndex;
  readonly starts: Uint32Array;
}

export type DaySymbol =
  { readonly kind: 'file'; readonly symbol: string; readonly df: DayFile } | { readonly kind: 'live'; readonly symbol: string; readonly live: LiveTicks };

export interface DaySymbolList {
  readonly tradedate: string;
  /** True when any of `items` (or the day, for every symbol) is answered from staging. */
  readonly live: boolean;
  /** Ascending by symbol, only symbols with rows. */
  readonly items: readonly DaySymbol[];
}

export class DaySymbols {
  private readonly dataset: 'index' | 'level2';

  constructor(
    asset: Asset,
    private readonly sealed: TickDays,
    private readonly staging: LiveStaging | null,
  ) {
    this.dataset = asset === 'stock' ? 'level2' : 'index';
  }

  /**
   * The day's `symbols` (sorted; null: every symbol of the day) with rows, from their files or
   * staging. Only a trading day up to the latest one (by `nowMs`) can be live, as for the
   * detailed interfaces.
   */
  of(tradedate: string, symbols: readonly string[] | null, nowMs: number): DaySymbolList {
    const day = this.sealed.day(tradedate);
    const maybeLive = this.staging !== null && isTradingDay(tradedate) && tradedate <= latestTradingDay(nowMs);
    const staged = maybeLive ? this.staging!.stagedSymbols(this.dataset, tradedate) : undefined;
    const fromFiles = new Map<string, DaySymbol>();
    for (const df of symbols === null ? day.files : symbols.map((s) => day.bySymbol.get(s)).filter((f) => f !== undefined)) {
      fromFiles.set(df.file.symbol, { kind: 'file', symbol: df.file.symbol, df });
    }
    if (staged === undefined) return { tradedate, live: false, items: [...fromFiles.values()] };
    const wanted = (symbols ?? staged).filter((s) => !fromFiles.has(s));
    const read =
      wanted.length === 0 ? new Map<string, LiveSymbolDay>() : (this.staging!.symbolDays(this.dataset, tradedate, wanted) ?? new Map<string, LiveSymbolDay>());
    const items = [...fromFiles.values()];
    for (const [symbol, d] of read) if (d.rows > 0) items.push({ kind: 'live', symbol, live: liveTicks(this.dataset, tradedate, d) });
    items.sort((a, b) => (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0));
    return { tradedate, live: true, items };
  }
}

export function liveTicks(dataset: 'index' | 'level2', tradedate: string, day: LiveSymbolDay): LiveTicks {
  const minuteIndex = buildMinuteIndex(day.timesMs);
  return { dataset, tradedate, day, minuteIndex, starts: minuteStarts(minuteIndex) };
}

/** The rows [from, to) of a live symbol-day as tick row texts for `fields`, by row position. */
export function liveRowTexts(t: LiveTicks, from: number, to: number, fields: readonly number[]): (position: number) => string {
  const { day } = t;
  const timesMs = day.timesMs.subarray(from, to);
  // Only the span's rows take the reader's forms (time text, code letters): made per request.
  const stored = columnsAsRead({
    dataset: t.dataset,
    symbol: day.symbol,
    tradedate: t.tradedate,
    rows: to - from,
    timesMs,
    values: day.values.map((v) => v.subarray(from, to)),
  });
  const columns = tickColumns(sourceOfFile(t), t.tradedate, fields, timesMs, (c) => stored[c]!);
  return (position) => tickRowText(columns, position - from);
}

/** First row of a live symbol-day at or after `ms` (rows ascending by time). */
export function liveRowAtOrAfter(t: LiveTicks, ms: number): number {
  const times = t.day.timesMs;
  let lo = 0;
  let hi = t.day.rows;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (times[mid]! < ms) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
