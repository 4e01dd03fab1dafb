import { isTradingDay, knownRange, latestTradingDay, tradingDaysInRange } from '../../calendar/tradingCalendar.js';

/** Both ends inclusive, YYYYMMDD. */
interface DayRange {
  readonly from: string;
  readonly to: string;
}

/**
 * Why an answer holds no rows, in words a client can act on (api-contract: Envelope: `no data; ` and
 * the reason). The calendar reasons come first, in the order a client would fix them: a day
 * after the latest trading day is not there yet whatever else is true, a closed day never
 * will be; only then is it "not stored", which the operation words for what it looked for.
 */

/** A day past the calendar's known range may be a holiday nobody has told us about. */
function pastKnownRange(day: string): string {
  const last = knownRange().last;
  return day > last ? ` (the trading calendar's known range ends ${last}; closures after it are unknown)` : '';
}

/** One day: after the latest trading day, not a trading day, or `notStored`. */
export function noDataOnDay(day: string, nowMs: number, notStored: string): string {
  const latest = latestTradingDay(nowMs);
  if (day > latest) return `${day} is after the latest trading day ${latest}${pastKnownRange(latest)}`;
  if (!isTradingDay(day)) return `${day} is not a trading day`;
  return `${notStored}${pastKnownRange(day)}`;
}

/** A range (the effective one): after the latest trading day, no trading day in it, or `notStored`. */
export function noDataInRange(span: DayRange, nowMs: number, notStored: string): string {
  const latest = latestTradingDay(nowMs);
  if (span.from > latest) return `the effective range begins after the latest trading day ${latest}${pastKnownRange(latest)}`;
  const to = span.to < latest ? span.to : latest;
  if (tradingDaysInRange(span.from, to).length === 0) return 'the effective range holds no trading day';
  return `${notStored}${pastKnownRange(to)}`;
}
