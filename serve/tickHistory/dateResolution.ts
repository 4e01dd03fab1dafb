/**
 * Which trading day(s) a tick_history request reads (spec rules 1-5, api-contract: tick_history). Pure:
 * the only input besides the params is "now", and the latest trading day is taken from the
 * calendar in Beijing time whether or not its data is stored yet.
 */
import { isValidDate, latestTradingDay, offsetFromLatest, tradingDaysBack } from '../../calendar/tradingCalendar.js';
import { requireAnswerableDate } from '../reading/answerableDates.js';
import { badRequest } from '../http/apiError.js';

export interface DateParams {
  readonly tradedate?: unknown;
  readonly startdate?: unknown;
  readonly enddate?: unknown;
  readonly recentdays?: unknown;
  readonly tradedate_offset?: unknown;
}

/** Both ends inclusive, YYYYMMDD. */
export interface DayRange {
  readonly from: string;
  readonly to: string;
}

export type DateSelection =
  /** tradedate, tradedate_offset, or no date parameter (the latest trading day). */
  | { readonly kind: 'day'; readonly day: string }
  /**
   * startdate, enddate or recentdays: `requested` is what the request named, `effective`
   * what is read after the cross-month rule (only the end date's month is queried).
   */
  | { readonly kind: 'range'; readonly requested: DayRange; readonly effective: DayRange };

/** Largest `recentdays` / smallest `tradedate_offset` accepted: about forty years of trading days. */
export const MAX_TRADING_DAYS_BACK = 10_000;

/** null counts as omitted, like a missing member (JSON clients often send explicit nulls). */
function given(v: unknown): boolean {
  return v !== undefined && v !== null;
}

function dateParam(name: string, v: unknown, nowMs: number): string {
  if (typeof v !== 'string' || !isValidDate(v)) throw badRequest(`params.${name} must be a date written YYYYMMDD`);
  return requireAnswerableDate(`params.${name} ${v}`, v, nowMs);
}

function intParam(name: string, v: unknown, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw badRequest(`params.${name} must be an integer from ${min} to ${max}`);
  }
  return v;
}

const monthOf = (d: string) => d.slice(0, 6);

/**
 * Spec rules 2-5: a range spanning months keeps its end date and starts on the first calendar
 * day of the end date's month; a same-month range is unchanged.
 */
export function crossMonthEffective(requested: DayRange): DayRange {
  if (monthOf(requested.from) === monthOf(requested.to)) return requested;
  return { from: `${monthOf(requested.to)}01`, to: requested.to };
}

/**
 * Resolves the date parameters, rejecting every combination api-contract: Envelope/§5 name (400).
 * Combinations are checked before values, so the message names the real mistake.
 */
export function resolveDates(params: DateParams, nowMs: number, opts: { readonly clipMonth?: boolean } = {}): DateSelection {
  // tick_history reads only the end date's month of a range; the bars read the whole range (api-contract: Bars).
  const range = (requested: DayRange): DateSelection => ({
    kind: 'range',
    requested,
    effective: opts.clipMonth === false ? requested : crossMonthEffective(requested),
  });
  const has = {
    tradedate: given(params.tradedate),
    startdate: given(params.startdate),
    enddate: given(params.enddate),
    recentdays: given(params.recentdays),
    offset: given(params.tradedate_offset),
  };
  if (has.offset && (has.tradedate || has.startdate || has.enddate || has.recentdays)) {
    throw badRequest('params.tradedate_offset cannot be combined with params.tradedate, params.startdate, params.enddate or params.recentdays');
  }
  if (has.recentdays && (has.tradedate || has.startdate || has.enddate)) {
    throw badRequest('params.recentdays cannot be combined with params.tradedate, params.startdate or params.enddate');
  }
  if (has.tradedate && (has.startdate || has.enddate)) {
    throw badRequest('params.tradedate cannot be combined with params.startdate or params.enddate');
  }

  if (has.tradedate) return { kind: 'day', day: dateParam('tradedate', params.tradedate, nowMs) };
  if (has.offset) {
    const offset = intParam('tradedate_offset', params.tradedate_offset, -MAX_TRADING_DAYS_BACK, 0);
    const day = offsetFromLatest(nowMs, offset);
    return { kind: 'day', day: requireAnswerableDate(`params.tradedate_offset ${offset} reaches ${day}, which`, day, nowMs) };
  }
  const latest = latestTradingDay(nowMs);
  if (has.recentdays) {
    const n = intParam('recentdays', params.recentdays, 1, MAX_TRADING_DAYS_BACK);
    return range({ from: tradingDaysBack(latest, n - 1), to: latest });
  }
  if (has.startdate && has.enddate) {
    const from = dateParam('startdate', params.startdate, nowMs);
    const to = dateParam('enddate', params.enddate, nowMs);
    if (from > to) throw badRequest(`params.startdate ${from} must not be after params.enddate ${to}`);
    return range({ from, to });
  }
  if (has.startdate) {
    // Alone, startdate runs to the latest trading day; that implied end is the enddate of
    // the "startdate after enddate" rule.
    const from = dateParam('startdate', params.startdate, nowMs);
    if (from > latest) throw badRequest(`params.startdate ${from} must not be after the latest trading day ${latest}`);
    return range({ from, to: latest });
  }
  if (has.enddate) {
    // Alone, enddate is that one day (api-contract: tick_history), so it never crosses a month.
    const day = dateParam('enddate', params.enddate, nowMs);
    return range({ from: day, to: day });
  }
  return { kind: 'day', day: latest };
}

/** True when the request names more than one calendar day (boundary mode allows one). */
export function spansSeveralDays(sel: DateSelection): boolean {
  return sel.kind === 'range' && sel.requested.from !== sel.requested.to;
}

/** The inclusive span that is actually read. */
export function effectiveSpan(sel: DateSelection): DayRange {
  return sel.kind === 'day' ? { from: sel.day, to: sel.day } : sel.effective;
}

/**
 * The envelope message (api-contract: tick_history): every range request states its requested and
 * effective range, success or no data; a single-day request says `success` or `no data`.
 * A no-data message ends with `; ` and the reason (api-contract: Envelope) when one is given.
 */
export function dateMessage(sel: DateSelection, hasData: boolean, reason?: string): string {
  const head = hasData ? 'success' : 'no data';
  const why = !hasData && reason !== undefined ? `; ${reason}` : '';
  if (sel.kind === 'day') return head + why;
  const r = sel.requested;
  const e = sel.effective;
  return `${head}; requested ${r.from}-${r.to}, effective ${e.from}-${e.to}${why}`;
}
