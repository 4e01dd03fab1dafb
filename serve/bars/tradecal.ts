/**
 * `tradecal` (api-contract: Bars): every calendar date of [startdate, enddate] (default the
 * current year in Beijing time) with is_open and the trading day before it, from the data
 * directory's calendar (the shipped closures and any imported). `exchange` is accepted and
 * ignored: SSE and SZSE share one calendar. A range outside the calendar's known range is a 400.
 */
import { isTradingDay, isValidDate, knownRange, previousTradingDay } from '../../calendar/tradingCalendar.js';
import { beijingDate } from '../../shared/clock.js';
import { badRequest } from '../http/apiError.js';
import { checkParamNames, selectFields } from '../http/apiRequest.js';
import { successText } from '../http/envelope.js';
import type { Operation } from '../http/operation.js';
import { excerpt } from '../http/valueExcerpt.js';
import { calendarDates } from '../tickHistory/dayFiles.js';
import { TRADECAL_FIELDS } from './barFields.js';

const PARAMS = new Set(['startdate', 'enddate', 'exchange']);

const given = (v: unknown) => v !== undefined && v !== null;

function dateParam(name: string, v: unknown): string {
  if (typeof v !== 'string' || !isValidDate(v)) throw badRequest(`params.${name} must be a date written YYYYMMDD, got ${excerpt(v)}`);
  const known = knownRange();
  if (v < known.first || v > known.last) {
    throw badRequest(
      `params.${name} ${v} is outside the trading calendar's known range ${known.first}-${known.last} (import closures with tickvault calendar import)`,
    );
  }
  return v;
}

export function tradecalOperation(): Operation {
  return {
    apiname: 'tradecal',
    async handle(req, ctx) {
      checkParamNames(req.params, PARAMS);
      const fields = selectFields(req.fields, TRADECAL_FIELDS);
      const year = beijingDate(ctx.nowMs).slice(0, 4);
      const known = knownRange();
      const clamp = (d: string) => (d < known.first ? known.first : d > known.last ? known.last : d);
      // The default is the current year, as far as the calendar knows it.
      const from = given(req.params.startdate) ? dateParam('startdate', req.params.startdate) : clamp(`${year}0101`);
      const to = given(req.params.enddate) ? dateParam('enddate', req.params.enddate) : clamp(`${year}1231`);
      if (from > to) throw badRequest(`params.startdate ${from} must not be after params.enddate ${to}`);
      await ctx.authorize([]);
      // Both ends lie in the known range (a dozen years at most): every date of it, one row each.
      const rows = calendarDates(from, to, 366 * 50).map((d) => {
        const before = previousTradingDay(d);
        const cells = [d, isTradingDay(d) ? 1 : 0, before >= known.first ? before : null];
        return JSON.stringify(fields.map((f) => cells[f]));
      });
      return {
        kind: 'rawJson',
        body: successText(
          'success',
          fields.map((f) => TRADECAL_FIELDS.fieldNames[f]),
          rows.join(','),
        ),
        rows: rows.length,
      };
    },
  };
}
