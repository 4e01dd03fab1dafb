/**
 * The dates a request may name: the trading calendar's known range (where its closures are
 * known), stretched to the latest trading day when the clock has run past that range (then
 * the days beyond are weekdays the calendar cannot vouch for; the app warns about them).
 * Nothing outside is ever looked up, so no client value sets how far a loop over dates runs.
 */
import { knownRange, latestTradingDay } from '../../calendar/tradingCalendar.js';
import { badRequest } from '../http/apiError.js';

export interface AnswerableSpan {
  readonly first: string;
  readonly last: string;
  /** The calendar's known range itself. */
  readonly knownFirst: string;
  readonly knownLast: string;
}

export function answerableSpan(nowMs: number): AnswerableSpan {
  const known = knownRange();
  const latest = latestTradingDay(nowMs);
  return { first: known.first, last: latest > known.last ? latest : known.last, knownFirst: known.first, knownLast: known.last };
}

function describeSpan(span: AnswerableSpan): string {
  const known = `the trading calendar's known range ${span.knownFirst}-${span.knownLast}`;
  return span.last === span.knownLast ? known : `${span.first}-${span.last} (${known}, then weekdays up to the latest trading day)`;
}

/** `date` (already a valid YYYYMMDD) must lie in the answerable span; 400 naming it otherwise. */
export function requireAnswerableDate(what: string, date: string, nowMs: number): string {
  const span = answerableSpan(nowMs);
  if (date < span.first || date > span.last) throw badRequest(`${what} is outside ${describeSpan(span)}`);
  return date;
}
