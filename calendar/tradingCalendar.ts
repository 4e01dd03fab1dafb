/**
 * SSE/SZSE trading calendar. Dates are YYYYMMDD strings; for a fixed width the string order is
 * the date order, so dates are compared and binary-searched as strings.
 *
 * The holiday closures are known for a range: the shipped list covers CALENDAR_FIRST …
 * CALENDAR_LAST, and an operator's import (calendar/closureStore.ts, installed here through
 * installClosures) extends it year by year without a release. Outside the known range every
 * weekday is treated as a trading day (only weekends are known there), so the functions keep
 * working but may count a holiday as a trading day: callers check knownRange() and warn.
 *
 * The effective calendar is module state, installed once per process at start (every command
 * does so with its data directory); the query functions only read it.
 */
import { DateTime } from 'luxon';
import { BEIJING } from '../shared/clock.js';
import { CLOSURE_DATES } from './closures.js';

export const CALENDAR_FIRST = '20150101';
/** The end of the shipped closure list; knownRange().last is the effective end. */
export const CALENDAR_LAST = '20261231';

const DATE_RE = /^[0-9]{8}$/;

// Day arithmetic on proleptic-Gregorian day numbers (days since 1970-01-01). Pure integer maths
// rather than Date/luxon: no time zone is involved in a calendar date, and this is the hot path.
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(z: number): string {
  const zz = z + 719468;
  const era = Math.floor(zz / 146097);
  const doe = zz - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  // Stepping past year 9999 (or before 0000) would produce a string that is not YYYYMMDD.
  if (y < 0 || y > 9999) throw new RangeError('date out of the YYYYMMDD range');
  return String(y).padStart(4, '0') + String(m).padStart(2, '0') + String(d).padStart(2, '0');
}

function daysInMonth(y: number, m: number): number {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

/** Day number of a date already known to be valid. */
function dayNum(d: string): number {
  return daysFromCivil(Number(d.slice(0, 4)), Number(d.slice(4, 6)), Number(d.slice(6, 8)));
}

function isWeekday(n: number): boolean {
  const dow = (((n + 4) % 7) + 7) % 7; // 1970-01-01 was a Thursday; 0 = Sunday
  return dow !== 0 && dow !== 6;
}

/** Monday to Friday; `d` must be a valid date. */
export function isWeekdayDate(d: string): boolean {
  return isWeekday(dayNum(d));
}

/** Whole days from a to b (b - a), both valid dates. */
export function daysBetween(a: string, b: string): number {
  return dayNum(b) - dayNum(a);
}

/** True for a real calendar date written as strict YYYYMMDD (no separators, no padding tricks). */
export function isValidDate(d: string): boolean {
  if (typeof d !== 'string' || !DATE_RE.test(d)) return false;
  const m = Number(d.slice(4, 6));
  const day = Number(d.slice(6, 8));
  return m >= 1 && m <= 12 && day >= 1 && day <= daysInMonth(Number(d.slice(0, 4)), m);
}

function requireDate(d: string): void {
  if (!isValidDate(d)) throw new RangeError(`invalid YYYYMMDD date: ${JSON.stringify(d)}`);
}

function requireCount(n: number, what: string): void {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`${what} must be a non-negative integer, got ${n}`);
}

/**
 * Closures beyond (or replacing years of) the shipped list: every weekday closure of each year
 * in `years`, which must run without a gap from the shipped list's first year on. The years
 * named replace the shipped list's closures for those years.
 */
export interface CalendarExtension {
  readonly years: readonly number[];
  readonly closures: readonly string[];
}

interface CalendarState {
  readonly closures: ReadonlySet<string>;
  readonly last: string;
  /** Every trading day of the known range, ascending. */
  readonly days: readonly string[];
  readonly firstTrading: string;
  readonly lastTrading: string;
}

function buildState(ext: CalendarExtension | null): CalendarState {
  const years = new Set(ext?.years ?? []);
  const closures = new Set(CLOSURE_DATES.filter((c) => !years.has(Number(c.slice(0, 4)))));
  for (const c of ext?.closures ?? []) closures.add(c);
  const lastYear = Math.max(Number(CALENDAR_LAST.slice(0, 4)), ...years);
  const last = `${lastYear}1231`;
  // A typo in the closure list would silently turn a trading day into a holiday (or be a no-op
  // on a weekend), so the data is checked once here rather than trusted.
  for (const c of closures) {
    if (!isValidDate(c) || c < CALENDAR_FIRST || c > last || !isWeekday(dayNum(c))) {
      throw new Error(`calendar closures: ${c} is not a weekday inside ${CALENDAR_FIRST}..${last}`);
    }
  }
  const days: string[] = [];
  for (let n = dayNum(CALENDAR_FIRST), end = dayNum(last); n <= end; n++) {
    if (!isWeekday(n)) continue;
    const d = civilFromDays(n);
    if (!closures.has(d)) days.push(d);
  }
  return { closures, last, days: Object.freeze(days), firstTrading: days[0]!, lastTrading: days[days.length - 1]! };
}

let state = buildState(null);
let TRADING_DAYS = state.days;
let FIRST_TRADING = state.firstTrading;
let LAST_TRADING = state.lastTrading;
let KNOWN_LAST = state.last;
let CLOSED = state.closures;

/**
 * Makes the shipped list plus `ext` the calendar of this process (null: the shipped list alone).
 * Throws, leaving the calendar unchanged, when a closure is not a weekday of the range.
 */
export function installClosures(ext: CalendarExtension | null): KnownRange {
  state = buildState(ext);
  TRADING_DAYS = state.days;
  FIRST_TRADING = state.firstTrading;
  LAST_TRADING = state.lastTrading;
  KNOWN_LAST = state.last;
  CLOSED = state.closures;
  return knownRange();
}

/** Index of the first element of TRADING_DAYS that is >= d. */
function lowerBound(d: string): number {
  let lo = 0;
  let hi = TRADING_DAYS.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (TRADING_DAYS[mid]! < d) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Index of the first element of TRADING_DAYS that is > d. */
function upperBound(d: string): number {
  let lo = 0;
  let hi = TRADING_DAYS.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (TRADING_DAYS[mid]! <= d) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Weekend, exchange closure or not a valid date → false. */
export function isTradingDay(d: string): boolean {
  return isValidDate(d) && isWeekday(dayNum(d)) && !CLOSED.has(d);
}

function prevUnchecked(d: string): string {
  if (d > FIRST_TRADING && d <= KNOWN_LAST) return TRADING_DAYS[lowerBound(d) - 1]!;
  // Outside the table: walk back over weekends; once inside it, the table has the answer.
  let n = dayNum(d) - 1;
  for (;;) {
    const x = civilFromDays(n);
    if (x <= KNOWN_LAST && x >= FIRST_TRADING) return TRADING_DAYS[upperBound(x) - 1]!;
    if ((x < CALENDAR_FIRST || x > KNOWN_LAST) && isWeekday(n)) return x;
    n--;
  }
}

function nextUnchecked(d: string): string {
  if (d >= CALENDAR_FIRST && d < LAST_TRADING) return TRADING_DAYS[upperBound(d)]!;
  let n = dayNum(d) + 1;
  for (;;) {
    const x = civilFromDays(n);
    if (x >= CALENDAR_FIRST && x <= LAST_TRADING) return TRADING_DAYS[lowerBound(x)]!;
    if ((x < CALENDAR_FIRST || x > KNOWN_LAST) && isWeekday(n)) return x;
    n++;
  }
}

/** The trading day strictly before d (d itself need not be a trading day). */
export function previousTradingDay(d: string): string {
  requireDate(d);
  return prevUnchecked(d);
}

/** The trading day strictly after d (d itself need not be a trading day). */
export function nextTradingDay(d: string): string {
  requireDate(d);
  return nextUnchecked(d);
}

/**
 * The trading day n trading days before d; n = 0 gives d when it trades, else the latest trading
 * day before it. "The latest 30 trading days, the 30th included" start at tradingDaysBack(latest, 29).
 */
export function tradingDaysBack(d: string, n: number): string {
  requireDate(d);
  requireCount(n, 'n');
  let cur = isTradingDay(d) ? d : prevUnchecked(d);
  let left = n;
  while (left > 0) {
    if (cur >= FIRST_TRADING && cur <= LAST_TRADING) {
      // Inside the table a whole stretch is one index subtraction.
      const i = lowerBound(cur);
      const k = Math.min(left, i);
      cur = TRADING_DAYS[i - k]!;
      left -= k;
      if (left === 0) break;
    }
    cur = prevUnchecked(cur);
    left--;
  }
  return cur;
}

// Requests arrive with nearly the same "now", and a zoned luxon conversion costs microseconds,
// so the Beijing day last seen is remembered as [start, end) in epoch ms.
let cachedDay = { startMs: 0, endMs: 0, date: '' };

/** Beijing calendar date of an instant; rejects NaN/±Infinity and instants luxon cannot represent. */
function beijingToday(nowMs: number): string {
  if (!Number.isFinite(nowMs)) throw new RangeError(`invalid instant: ${nowMs}`);
  if (nowMs >= cachedDay.startMs && nowMs < cachedDay.endMs) return cachedDay.date;
  const dt = DateTime.fromMillis(nowMs, { zone: BEIJING });
  if (!dt.isValid) throw new RangeError(`invalid instant: ${nowMs}`);
  const start = dt.startOf('day');
  cachedDay = { startMs: start.toMillis(), endMs: start.plus({ days: 1 }).toMillis(), date: dt.toFormat('yyyyLLdd') };
  return cachedDay.date;
}

/**
 * The latest trading day on or before the Beijing date of the instant. Today counts whatever the
 * hour: a request at 08:00 on a trading day already gets today (whose data may still be empty).
 */
export function latestTradingDay(nowMs: number): string {
  const today = beijingToday(nowMs);
  return isTradingDay(today) ? today : prevUnchecked(today);
}

/** offset ≤ 0: 0 is the latest trading day, -1 the one before it, and so on. */
export function offsetFromLatest(nowMs: number, offset: number): string {
  if (!Number.isSafeInteger(offset) || offset > 0) {
    throw new RangeError(`offset must be an integer <= 0, got ${offset}`);
  }
  return tradingDaysBack(latestTradingDay(nowMs), -offset);
}

function weekdaysBetween(fromN: number, toN: number, out: string[]): void {
  for (let n = fromN; n <= toN; n++) if (isWeekday(n)) out.push(civilFromDays(n));
}

/** Trading days from `from` to `to`, both inclusive, ascending; empty when from > to. */
export function tradingDaysInRange(from: string, to: string): string[] {
  requireDate(from);
  requireDate(to);
  if (from > to) return [];
  const out: string[] = [];
  const firstN = dayNum(CALENDAR_FIRST);
  const lastN = dayNum(KNOWN_LAST);
  const fromN = dayNum(from);
  const toN = dayNum(to);
  weekdaysBetween(fromN, Math.min(toN, firstN - 1), out);
  if (to >= CALENDAR_FIRST && from <= KNOWN_LAST) {
    for (let i = lowerBound(from), j = upperBound(to); i < j; i++) out.push(TRADING_DAYS[i]!);
  }
  weekdaysBetween(Math.max(fromN, lastN + 1), toN, out);
  return out;
}

/** The last n trading days ending at the latest trading day of the instant, ascending. */
export function recentTradingDays(nowMs: number, n: number): string[] {
  requireCount(n, 'n');
  const latest = latestTradingDay(nowMs);
  if (n === 0) return [];
  return tradingDaysInRange(tradingDaysBack(latest, n - 1), latest);
}

/** The first `n` trading days on or after `from` (`from` itself when it is one), ascending. */
export function tradingDaysFrom(from: string, n: number): string[] {
  const out: string[] = [];
  let d = isTradingDay(from) ? from : nextTradingDay(from);
  while (out.length < n) {
    out.push(d);
    d = nextTradingDay(d);
  }
  return out;
}

/** The span whose closures are known (both ends inclusive, YYYYMMDD); outside it only weekends are. */
export interface KnownRange {
  readonly first: string;
  readonly last: string;
}

/** The calendar's known range (shipped list plus any import): outside it only weekends are known. */
export function knownRange(): KnownRange {
  return { first: CALENDAR_FIRST, last: KNOWN_LAST };
}

/** The instant the known range ends: 00:00 Beijing time (UTC+8, no DST) after its last day. */
export function knownRangeEndMs(): number {
  const y = Number(KNOWN_LAST.slice(0, 4));
  const m = Number(KNOWN_LAST.slice(4, 6));
  const d = Number(KNOWN_LAST.slice(6, 8));
  return Date.UTC(y, m - 1, d + 1) - 8 * 3_600_000;
}

/** True when the closures of d's day are known (d a valid date). */
export function isInKnownRange(d: string): boolean {
  return d >= CALENDAR_FIRST && d <= KNOWN_LAST;
}

/** How many days before the end of the known range operators are warned. */
export const KNOWN_RANGE_WARN_DAYS = 30;

/**
 * A warning when the Beijing date of `nowMs` is within `warnDays` of the end of the known range
 * or past it; null otherwise. Worded for operators: it says what to do.
 */
export function knownRangeWarning(nowMs: number, warnDays = KNOWN_RANGE_WARN_DAYS): string | null {
  const today = beijingToday(nowMs);
  const left = daysBetween(today, KNOWN_LAST);
  const fix = "import the exchanges' published closures of the next year with `tickvault calendar import FILE`";
  if (left < 0)
    return `the trading calendar is known only through ${KNOWN_LAST}; today (${today}) is past it, so every weekday counts as a trading day: ${fix}`;
  if (left <= warnDays) return `the trading calendar is known only through ${KNOWN_LAST} (${left} days left): ${fix}`;
  return null;
}
