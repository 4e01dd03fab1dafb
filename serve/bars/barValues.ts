/**
 * The bar interfaces' rows from what the lake keeps (api-contract: Bars), pure: the daily rows
 * of the catalog (prices in yuan, volumes in shares, amounts in fen) become daily, weekly,
 * monthly and daily_auc rows; a stock-day's 1m bars become the rows of a period. Rounded
 * figures are computed on integers (prices in mills, amounts in fen), so a half is a half.
 */
import type { DailyBarRow } from '../../storage/bars/barCatalog.js';
import { MINUTE_BARS, periodLayout, type MinutePeriod } from '../../storage/bars/barLabels.js';

export type Cell = string | number | null;

/** num / den rounded half away from zero (integers, exactly). */
export function roundDiv(num: number, den: number): number {
  const n = BigInt(Math.round(num));
  const d = BigInt(Math.round(den));
  const neg = n < 0n !== d < 0n;
  const a = n < 0n ? -n : n;
  const b = d < 0n ? -d : d;
  const q = (2n * a + b) / (2n * b);
  return Number(neg ? -q : q);
}

const mills = (yuan: number) => Math.round(yuan * 1000);

/** close − pre_close to the fen (half away from zero), in fen; null without a pre_close. */
export function changeFen(close: number, preClose: number | null): number | null {
  if (preClose === null) return null;
  return roundDiv(mills(close) - mills(preClose), 10);
}

/** change / pre_close × 100, to 4 decimals half away from zero; null without a pre_close (or a zero one). */
export function pctOf(changeInFen: number | null, preClose: number | null): number | null {
  if (changeInFen === null || preClose === null || mills(preClose) === 0) return null;
  return roundDiv(changeInFen * 1e7, mills(preClose)) / 1e4;
}

/** a / b × scale to 4 decimals (half away from zero); null when b is 0 or either is missing. */
export function ratio4(a: number | null, b: number | null, scale: number): number | null {
  if (a === null || b === null || b === 0) return null;
  return roundDiv(a * scale * 1e4, b) / 1e4;
}

/** A period of daily rows (a day, a week, a month) as the daily interfaces' fields. */
interface Span {
  readonly symbol: string;
  readonly tradedate: string;
  readonly open: number;
  readonly high: number;
  readonly low: number;
  readonly close: number;
  readonly preClose: number | null;
  readonly volume: number;
  readonly fen: number;
}

/** tradedate, symbol, name, open, high, low, close, pre_close, change, pct_chg, vol (lots), amount (yuan). */
function dailyCells(s: Span): Cell[] {
  const change = changeFen(s.close, s.preClose);
  return [
    s.tradedate,
    s.symbol,
    null,
    s.open,
    s.high,
    s.low,
    s.close,
    s.preClose,
    change === null ? null : change / 100,
    pctOf(change, s.preClose),
    s.volume / 100,
    s.fen / 100,
  ];
}

const spanOf = (r: DailyBarRow): Span => ({
  symbol: r.symbol,
  tradedate: r.tradedate,
  open: r.open,
  high: r.high,
  low: r.low,
  close: r.close,
  preClose: r.pre_close,
  volume: r.volume,
  fen: r.amount_fen,
});

export function dailyRow(r: DailyBarRow): Cell[] {
  return dailyCells(spanOf(r));
}

/** Monday of the calendar week (Monday–Sunday) of a YYYYMMDD date, as YYYYMMDD. */
export function weekOf(d: string): string {
  const t = Date.UTC(Number(d.slice(0, 4)), Number(d.slice(4, 6)) - 1, Number(d.slice(6, 8)));
  const monday = new Date(t - ((new Date(t).getUTCDay() + 6) % 7) * 86_400_000);
  return monday.toISOString().slice(0, 10).replaceAll('-', '');
}

export const monthOf = (d: string) => `${d.slice(0, 6)}01`;

/**
 * Weekly or monthly rows of one symbol's daily rows (by date): one per period with daily rows,
 * `tradedate` its last; open the first day's, close the last's, high/low over the days, sums,
 * pre_close the first day's.
 */
export function periodRows(rows: readonly DailyBarRow[], periodStart: (d: string) => string): Cell[][] {
  const out: Cell[][] = [];
  let key = '';
  let span = null as Span | null;
  for (const r of rows) {
    const k = `${r.symbol}|${periodStart(r.tradedate)}`;
    const prior: Span | null = span;
    if (prior !== null && k === key) {
      span = {
        ...prior,
        tradedate: r.tradedate,
        high: Math.max(prior.high, r.high),
        low: Math.min(prior.low, r.low),
        close: r.close,
        volume: prior.volume + r.volume,
        fen: prior.fen + r.amount_fen,
      };
    } else {
      if (prior !== null) out.push(dailyCells(prior));
      key = k;
      span = spanOf(r);
    }
  }
  if (span !== null) out.push(dailyCells(span));
  return out;
}

/** The daily_auc row of a stock-day, given its previous trading day's row (null when it had none). */
export function aucRow(r: DailyBarRow, prev: DailyBarRow | null): Cell[] {
  const m = r.auc_price;
  const aucPct =
    m === null || r.pre_close === null || mills(r.pre_close) === 0 ? null : roundDiv((mills(m) - mills(r.pre_close)) * 1e6, mills(r.pre_close)) / 1e4;
  return [
    r.tradedate,
    r.symbol,
    null,
    m,
    aucPct,
    null,
    r.auc_amount_fen / 100,
    r.auc_volume,
    null,
    ratio4(r.auc_volume, prev?.volume ?? null, 100),
    ratio4(r.auc_volume, prev?.auc_volume ?? null, 1),
    r.um_volume,
    r.um_side,
    null,
    null,
  ];
}

/** A stock-day's 1m bars as read from its minute file (yuan amounts, share volumes). */
export interface MinuteSlice {
  readonly open: ArrayLike<number>;
  readonly high: ArrayLike<number>;
  readonly low: ArrayLike<number>;
  readonly close: ArrayLike<number>;
  readonly vol: ArrayLike<number>;
  readonly amount: ArrayLike<number>;
  /** Where the stock-day's 241 bars start in the arrays. */
  readonly at: number;
}

const nullable = (v: number): number | null => (v === v ? v : null);

/** Bars of one stock-day in a period. */
export function barsPerDay(period: MinutePeriod): number {
  return periodLayout(period).labels.length;
}

/**
 * The rows [from, to) of a stock-day's bars in `period`: tradedate, symbol, trademin, time,
 * open, high, low, close, vol, amount, vwap. A bar without fills has all four prices the last
 * price before it (the 1m bars carry it already: the close of the last 1m bar in the period).
 * Only the first `upTo` 1m bars are read (a live day's, up to the one in progress).
 */
export function minuteRows(symbol: string, tradedate: string, s: MinuteSlice, period: MinutePeriod, from: number, to: number, upTo = MINUTE_BARS): Cell[][] {
  const layout = periodLayout(period);
  const day = `${tradedate.slice(0, 4)}-${tradedate.slice(4, 6)}-${tradedate.slice(6, 8)}`;
  const out: Cell[][] = [];
  const { barOf, labels } = layout;
  let b = 0;
  for (let bar = 0; bar < labels.length && bar < to; bar++) {
    let open = NaN;
    let high = -Infinity;
    let low = Infinity;
    let close = NaN;
    let vol = 0;
    let fen = 0;
    let carried = NaN;
    // A live day's bars end at the one in progress (`upTo` 1m bars): later minutes are not folded in.
    for (; b < upTo && barOf[b] === bar; b++) {
      const i = s.at + b;
      carried = s.close[i];
      if (s.vol[i] > 0) {
        if (open !== open) open = s.open[i];
        high = Math.max(high, s.high[i]);
        low = Math.min(low, s.low[i]);
        close = s.close[i];
        vol += s.vol[i];
        fen += Math.round(s.amount[i] * 100);
      }
    }
    if (bar < from) continue;
    if (vol === 0) open = high = low = close = carried;
    const label = labels[bar];
    const hh = String(Math.floor(label / 60)).padStart(2, '0');
    const mm = String(label % 60).padStart(2, '0');
    const amount = fen / 100;
    out.push([
      tradedate,
      symbol,
      `${hh}${mm}`,
      `${day} ${hh}:${mm}:00`,
      nullable(open),
      nullable(high),
      nullable(low),
      nullable(close),
      vol,
      amount,
      vol > 0 ? amount / vol : nullable(close),
    ]);
  }
  return out;
}
