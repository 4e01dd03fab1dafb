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
import type { LiveBoundaries, LiveBoundaryAt } from '../reading/liveBoundaries.js';
import type { LiveStaging } from '../reading/liveStaging.js';
import type { StagedSymbolDay } from '../../storage/staging/bucketRead.js';
import type { DayFile, TickDays } from './dayFiles.js';
import { lowerBound } from '../reading/rowSearch.js';

/** A live symbol-day in the terms of a sealed file. */
export interface LiveTicks {
  readonly dataset: 'index' | 'level2';
  readonly tradedate: string;
  readonly day: StagedSymbolDay;
  readonly minuteIndex: MinuteIndex;
  readonly starts: Uint32Array;
}

export type DaySymbol =
  { readonly kind: 'file'; readonly symbol: string; readonly df: DayFile } | { readonly kind: 'live'; readonly symbol: string; readonly live: LiveTicks };

/** A symbol of a boundary answer: its sealed file, or on a live day its boundary row's text. */
export type BoundaryItem =
  { readonly kind: 'file'; readonly symbol: string; readonly df: DayFile } | { readonly kind: 'row'; readonly symbol: string; readonly text: string };

export interface BoundaryList {
  readonly live: boolean;
  /** Symbols with rows that day (a boundary row or not). */
  readonly withRows: number;
  /** Ascending by symbol: every file, and the live symbols that have a boundary row. */
  readonly items: readonly BoundaryItem[];
}

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
    /** A live day's boundary candidates (with `staging`). */
    private readonly boundaries: LiveBoundaries | null,
  ) {
    this.dataset = asset === 'stock' ? 'level2' : 'index';
  }

  /**
   * The day's `symbols` (sorted; null: every symbol of the day) with rows, from their files or
   * staging. Only a trading day up to the latest one (by `nowMs`) can be live, as for the
   * detailed interfaces.
   */
  of(tradedate: string, symbols: readonly string[] | null, nowMs: number, sealedAgain = false): DaySymbolList {
    const { files, staged } = this.split(tradedate, symbols, nowMs);
    const items: DaySymbol[] = files.map((df) => ({ kind: 'file', symbol: df.file.symbol, df }));
    if (staged === null) return { tradedate, live: false, items };
    const read = staged.length === 0 ? undefined : this.staging!.symbolDays(this.dataset, tradedate, staged);
    // Live a moment ago, not now: sealed in between, so the catalog lists its files now.
    if (read === undefined && staged.length > 0 && !sealedAgain) return this.of(tradedate, symbols, nowMs, true);
    for (const [symbol, d] of read ?? []) if (d.rows > 0) items.push({ kind: 'live', symbol, live: liveTicks(this.dataset, tradedate, d) });
    return { tradedate, live: true, items: items.sort(bySymbol) };
  }

  /**
   * The boundary rows' sources of the day's `symbols` (null: every symbol of the day): sealed
   * files, and live symbols' rows made while their staging is read a bucket at a time, so a
   * whole market's boundary holds one bucket's rows at a time.
   */
  boundary(
    tradedate: string,
    symbols: readonly string[] | null,
    at: LiveBoundaryAt,
    fields: readonly number[],
    nowMs: number,
    sealedAgain = false,
  ): BoundaryList {
    const { files, staged } = this.split(tradedate, symbols, nowMs);
    const items: BoundaryItem[] = files.map((df) => ({ kind: 'file', symbol: df.file.symbol, df }));
    if (staged === null) return { live: false, withRows: files.length, items };
    const found = this.staging!.whenLive(this.dataset, tradedate, null, (staging) => this.boundaries!.rows(staging.db, this.dataset, tradedate, staged, at));
    // Live a moment ago, not now: sealed in between, so the catalog lists its files now.
    if (found === null && staged.length > 0 && !sealedAgain) return this.boundary(tradedate, symbols, at, fields, nowMs, true);
    const withRows = files.length + (found?.withRows ?? 0);
    for (const [symbol, day] of found?.rows ?? [])
      items.push({ kind: 'row', symbol, text: liveRowTexts({ dataset: this.dataset, tradedate, day }, 0, 1, fields)(0) });
    return { live: true, withRows, items: items.sort(bySymbol) };
  }

  /**
   * The day's `symbols` (null: all) split into those with a sealed file and, on a live day,
   * those to read from staging (null when the day is not live). A day being sealed lists
   * symbol by symbol: a symbol with a file is read from it.
   */
  private split(tradedate: string, symbols: readonly string[] | null, nowMs: number): { files: DayFile[]; staged: string[] | null } {
    const day = this.sealed.day(tradedate);
    const files = symbols === null ? [...day.files] : symbols.map((s) => day.bySymbol.get(s)).filter((f) => f !== undefined);
    if (this.staging === null || !isTradingDay(tradedate) || tradedate > latestTradingDay(nowMs)) return { files, staged: null };
    // Named symbols need only whether the day is live; every symbol of the day is its staged list.
    const staged = symbols === null ? this.staging.stagedSymbols(this.dataset, tradedate) : this.staging.isLive(this.dataset, tradedate) ? symbols : undefined;
    if (staged === undefined) return { files, staged: null };
    return { files, staged: staged.filter((s) => !day.bySymbol.has(s)) };
  }
}

const bySymbol = (a: { readonly symbol: string }, b: { readonly symbol: string }) => (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0);

export function liveTicks(dataset: 'index' | 'level2', tradedate: string, day: StagedSymbolDay): LiveTicks {
  const minuteIndex = buildMinuteIndex(day.timesMs);
  return { dataset, tradedate, day, minuteIndex, starts: minuteStarts(minuteIndex) };
}

/** The rows [from, to) of a live symbol-day as tick row texts for `fields`, by row position. */
export function liveRowTexts(
  t: Pick<LiveTicks, 'dataset' | 'tradedate' | 'day'>,
  from: number,
  to: number,
  fields: readonly number[],
): (position: number) => string {
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
  return lowerBound({ lo: 0, hi: t.day.rows }, ms, (r) => times[r]!);
}
