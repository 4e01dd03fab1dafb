/**
 * Why sealing `date` now would be a mistake, or null. Sealing is irreversible (every later
 * message of the day is quarantined as late), so a day that cannot have complete data yet is
 * refused: `seal` unless the operator passes --force, `import` always (past days only).
 */
import { isInKnownRange, isTradingDay, knownRange, latestTradingDay } from './tradingCalendar.js';

export function sealRefusal(date: string, nowMs: number): string | null {
  const range = knownRange();
  if (!isInKnownRange(date)) {
    return `${date} is outside the calendar's known range ${range.first}..${range.last}; import that year's closures with \`tickvault calendar import FILE\` first`;
  }
  if (!isTradingDay(date)) return `${date} is not a trading day (weekend or exchange closure)`;
  const latest = latestTradingDay(nowMs);
  if (date > latest) return `${date} is after the latest trading day ${latest}: its data cannot be complete yet`;
  return null;
}
