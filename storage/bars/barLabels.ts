/**
 * The one-minute bar labels of a trading day (api-contract: Bars): 241 bars labelled at their
 * end, `0930` (the opening call auction: every fill before 09:30:00.000), `0931`–`1130` and
 * `1301`–`1500`. Pure arithmetic on minutes of the day.
 */
import { MS_PER_MINUTE } from '../../shared/timeFormat.js';

/** One-minute bars a stock-day has. */
export const MINUTE_BARS = 241;

const OPEN = 9 * 60 + 30; // 09:30, the auction bar's label
const NOON = 11 * 60 + 30; // 11:30, the morning's last label
const AFTERNOON = 13 * 60; // 13:00, the afternoon's start
const CLOSE = 15 * 60; // 15:00, the day's last label
/** Bars of the morning, the auction bar included (0930 … 1130). */
const MORNING_BARS = NOON - OPEN + 1;

/** Minute of the day of each 1m label, in order. */
export const MINUTE_LABELS: readonly number[] = Array.from({ length: MINUTE_BARS }, (_, i) =>
  i < MORNING_BARS ? OPEN + i : AFTERNOON + (i - MORNING_BARS + 1),
);

/** `HHMM` of a minute of the day. */
export function labelText(minute: number): string {
  return `${String(Math.floor(minute / 60)).padStart(2, '0')}${String(minute % 60).padStart(2, '0')}`;
}

/** `HHMM` of each 1m label. */
export const MINUTE_LABEL_TEXTS: readonly string[] = MINUTE_LABELS.map(labelText);

/**
 * The 1m bar (0 … 240) a fill at `timeMs` belongs to: before 09:30 the auction bar; in
 * [HHMM − 1 min, HHMM) the bar HHMM; 11:30:00.000 (and anything before 13:00, which the
 * exchanges do not trade) the 1130 bar; 15:00:00.000 and after (the closing auction's match)
 * the 1500 bar.
 */
export function minuteBarOf(timeMs: number): number {
  const minute = Math.floor(timeMs / MS_PER_MINUTE);
  if (minute < OPEN) return 0;
  if (minute < NOON) return minute - OPEN + 1;
  if (minute < AFTERNOON) return MORNING_BARS - 1;
  if (minute < CLOSE) return MORNING_BARS + (minute - AFTERNOON);
  return MINUTE_BARS - 1;
}

/** The bar periods of `minute`, in minutes (1h is 60m, as the vendor's clients write it). */
export type MinutePeriod = 1 | 5 | 15 | 30 | 60;
export const PERIODS: Readonly<Record<string, MinutePeriod>> = { '1m': 1, '5m': 5, '15m': 15, '30m': 30, '60m': 60, '1h': 60 };

/**
 * For a period of N minutes: the bar each 1m bar folds into, and the bars' labels. N-minute bars
 * are labelled at their end (5m: 0935 … 1130, 1305 … 1500); the 0930 auction bar folds into
 * the first.
 */
function makeLayout(period: MinutePeriod): PeriodLayout {
  // 1m keeps the auction bar 0930 apart.
  if (period === 1) return { barOf: MINUTE_LABELS.map((_, i) => i), labels: MINUTE_LABELS };
  const labels: number[] = [];
  const barOf = MINUTE_LABELS.map((m) => {
    const start = m <= NOON ? OPEN : AFTERNOON;
    const label = start + Math.max(1, Math.ceil((m - start) / period)) * period;
    if (labels[labels.length - 1] !== label) labels.push(label);
    return labels.length - 1;
  });
  return { barOf, labels };
}

export interface PeriodLayout {
  readonly barOf: readonly number[];
  readonly labels: readonly number[];
}

/** Every period's layout, made once: pages ask it per stock-day. */
const LAYOUTS: ReadonlyMap<MinutePeriod, PeriodLayout> = new Map(([1, 5, 15, 30, 60] as const).map((p) => [p, makeLayout(p)]));

export function periodLayout(period: MinutePeriod): PeriodLayout {
  return LAYOUTS.get(period)!;
}
