/**
 * A stock-day's bars from its fills (api-contract: Bars): the 241 one-minute bars, the daily
 * bar and the opening call auction's facts. Pure: the caller reads the sealed trade and
 * level-2 files (barKeeper.ts) or a live day's staged rows.
 *
 * Only fills count (trade_code `F`; Shenzhen's cancellation records `C` do not). Amounts are
 * summed exactly, in fen: each fill's price × volume rounded to the fen.
 */
import { MINUTE_BARS, minuteBarOf } from './barLabels.js';

/** A stock-day's trades, in the trade file's order (time, then id). */
export interface DayFills {
  readonly rows: number;
  readonly timesMs: ArrayLike<number>;
  readonly ids: ArrayLike<number>;
  readonly prices: ArrayLike<number>;
  readonly volumes: ArrayLike<number>;
  /** The trade_code of each row, as a letter or its character code (staging's form): only `F` is a fill. */
  readonly codes: ArrayLike<string | number | null>;
}

/** What the level-2 snapshots add: the day's pre_close and the first snapshot at or after 09:25:00. */
export interface DaySnapshotFacts {
  /** NaN when the day has no level-2 snapshot. */
  readonly preClose: number;
  readonly opening: { readonly bid1: number; readonly ask1: number; readonly bidVol1: number; readonly askVol1: number } | null;
}

/** One-minute bars, index = MINUTE_LABELS position; NaN = null (no price known yet). */
export interface MinuteBars {
  readonly open: Float64Array;
  readonly high: Float64Array;
  readonly low: Float64Array;
  readonly close: Float64Array;
  /** Shares. */
  readonly volume: Float64Array;
  readonly amountFen: Float64Array;
}

/** The daily bar and the opening auction's facts of a stock-day with fills. */
export interface DailyFacts {
  readonly open: number;
  readonly high: number;
  readonly low: number;
  readonly close: number;
  /** NaN when no snapshot gave one. */
  readonly preClose: number;
  /** Shares. */
  readonly volume: number;
  readonly amountFen: number;
  /** The opening auction's match price: NaN when the auction matched nothing. */
  readonly aucPrice: number;
  readonly aucVolume: number;
  readonly aucAmountFen: number;
  /** Volume left unmatched at the match price in the first snapshot at or after 09:25 (0 when neither side's first level is at it). */
  readonly umVolume: number;
  readonly umSide: 'B' | 'S' | null;
}

export interface SymbolDayBars {
  readonly minute: MinuteBars;
  readonly daily: DailyFacts;
}

const F_CODE = 'F'.charCodeAt(0);

/** A fill's amount in fen, exact: prices have at most three decimals, so the product rounds cleanly. */
export function fillFen(price: number, volume: number): number {
  return Math.round(price * volume * 100);
}

/** The bars of a stock-day, or null when it has no fill (a suspended stock: no bars, no daily row). */
export function symbolDayBars(fills: DayFills, facts: DaySnapshotFacts): SymbolDayBars | null {
  const open = new Float64Array(MINUTE_BARS).fill(NaN);
  const high = new Float64Array(MINUTE_BARS).fill(NaN);
  const low = new Float64Array(MINUTE_BARS).fill(NaN);
  const close = new Float64Array(MINUTE_BARS).fill(NaN);
  const volume = new Float64Array(MINUTE_BARS);
  const amountFen = new Float64Array(MINUTE_BARS);
  // The (time, id) of each bar's first and last fill, so open and close follow time then id
  // whatever order the rows come in.
  const firstKey = new Float64Array(MINUTE_BARS * 2).fill(Infinity);
  const lastKey = new Float64Array(MINUTE_BARS * 2).fill(-Infinity);
  let fillsSeen = 0;
  for (let r = 0; r < fills.rows; r++) {
    const code = fills.codes[r];
    if (code !== 'F' && code !== F_CODE) continue;
    const price = fills.prices[r];
    const shares = fills.volumes[r];
    if (!(price === price) || !(shares === shares)) continue;
    const t = fills.timesMs[r];
    const id = fills.ids[r];
    const b = minuteBarOf(t);
    fillsSeen++;
    if (t < firstKey[2 * b] || (t === firstKey[2 * b] && id < firstKey[2 * b + 1])) {
      firstKey[2 * b] = t;
      firstKey[2 * b + 1] = id;
      open[b] = price;
    }
    if (t > lastKey[2 * b] || (t === lastKey[2 * b] && id > lastKey[2 * b + 1])) {
      lastKey[2 * b] = t;
      lastKey[2 * b + 1] = id;
      close[b] = price;
    }
    if (!(price <= high[b])) high[b] = price;
    if (!(price >= low[b])) low[b] = price;
    volume[b] += shares;
    amountFen[b] += fillFen(price, shares);
  }
  if (fillsSeen === 0) return null;

  let dayOpen = NaN;
  let dayHigh = -Infinity;
  let dayLow = Infinity;
  let dayVolume = 0;
  let dayFen = 0;
  // A bar without fills: all four prices the last fill price before it (pre_close before the first).
  let last = facts.preClose;
  for (let b = 0; b < MINUTE_BARS; b++) {
    if (volume[b] > 0) {
      if (dayOpen !== dayOpen) dayOpen = open[b];
      if (high[b] > dayHigh) dayHigh = high[b];
      if (low[b] < dayLow) dayLow = low[b];
      dayVolume += volume[b];
      dayFen += amountFen[b];
      last = close[b];
    } else {
      open[b] = high[b] = low[b] = close[b] = last;
    }
  }
  const aucPrice = volume[0] > 0 ? close[0] : NaN;
  let umVolume = 0;
  let umSide: 'B' | 'S' | null = null;
  if (facts.opening && aucPrice === aucPrice) {
    if (facts.opening.bid1 === aucPrice) {
      umVolume = facts.opening.bidVol1;
      umSide = 'B';
    } else if (facts.opening.ask1 === aucPrice) {
      umVolume = facts.opening.askVol1;
      umSide = 'S';
    }
  }
  return {
    minute: { open, high, low, close, volume, amountFen },
    daily: {
      open: dayOpen,
      high: dayHigh,
      low: dayLow,
      close: last,
      preClose: facts.preClose,
      volume: dayVolume,
      amountFen: dayFen,
      aucPrice,
      aucVolume: volume[0],
      aucAmountFen: amountFen[0],
      umVolume,
      umSide,
    },
  };
}

/** 09:25:00.000: the opening auction's match; the first snapshot at or after it shows what it left unmatched. */
export const AUCTION_MATCH_MS = (9 * 60 + 25) * 60_000;

/** Level-2 snapshots' columns, by time (a file's row group, or a live day's staged rows). */
export interface SnapshotColumns {
  readonly timesMs: ArrayLike<number>;
  readonly preClose: ArrayLike<number>;
  readonly bid1: ArrayLike<number>;
  readonly ask1: ArrayLike<number>;
  readonly bidVol1: ArrayLike<number>;
  readonly askVol1: ArrayLike<number>;
}

/**
 * Folds snapshots into the facts: the first pre_close given, and the first snapshot at or after
 * 09:25. `done` once the opening snapshot is found (later rows change nothing).
 */
export function foldSnapshots(facts: DaySnapshotFacts, s: SnapshotColumns): { readonly facts: DaySnapshotFacts; readonly done: boolean } {
  let pre = facts.preClose;
  for (let i = 0; i < s.timesMs.length; i++) {
    if (pre !== pre && s.preClose[i] === s.preClose[i]) pre = s.preClose[i];
    if (s.timesMs[i] >= AUCTION_MATCH_MS) {
      return { facts: { preClose: pre, opening: { bid1: s.bid1[i], ask1: s.ask1[i], bidVol1: s.bidVol1[i], askVol1: s.askVol1[i] } }, done: true };
    }
  }
  return { facts: { preClose: pre, opening: null }, done: false };
}

/** Facts of a day before any snapshot. */
export const NO_SNAPSHOT: DaySnapshotFacts = { preClose: NaN, opening: null };
