/**
 * The bar interfaces' params → one typed query (api-contract: Bars): `symbols` (any stock form,
 * at most 200; omitted, every stock, except for `minute`), the dates as tick_history takes them
 * but a range is read whole, `limit`/`offset` (at most 6000 rows a page), `fields`, and
 * `period` for `minute`. Every mistake is a 400 naming the parameter.
 */
import { PERIODS, type MinutePeriod } from '../../storage/bars/barLabels.js';
import { parseStockSymbol } from '../../shared/symbols.js';
import type { BarApiName } from '../access/plans.js';
import { badRequest } from '../http/apiError.js';
import { checkParamNames, selectFields } from '../http/apiRequest.js';
import { excerpt } from '../http/valueExcerpt.js';
import { effectiveSpan, resolveDates, type DateSelection, type DayRange } from '../tickHistory/dateResolution.js';
// limit and offset as tick_history's enhanced mode takes them (its cap is the bars' 6000 too).
import { ENHANCED_LIMIT, MAX_SYMBOLS, limitParam, offsetParam, symbolList } from '../tickHistory/params.js';
import { BAR_FIELDS } from './barFields.js';

export { MAX_SYMBOLS };
export const PAGE_LIMIT = ENHANCED_LIMIT;

const PARAMS = new Set(['symbols', 'symbol', 'tradedate', 'startdate', 'enddate', 'recentdays', 'limit', 'offset']);

export interface BarQuery {
  readonly api: BarApiName;
  /** Sorted, unique canonical codes; null = every stock with bars. */
  readonly symbols: readonly string[] | null;
  readonly dates: DateSelection;
  readonly span: DayRange;
  /** Positions in BAR_FIELDS[api], in response order. */
  readonly fields: readonly number[];
  readonly limit: number;
  readonly offset: number;
  /** minute only (1 otherwise). */
  readonly period: MinutePeriod;
}

const given = (v: unknown) => v !== undefined && v !== null;

export function parseBarQuery(api: BarApiName, params: Readonly<Record<string, unknown>>, fields: string | null | undefined, nowMs: number): BarQuery {
  checkParamNames(params, api === 'minute' ? new Set([...PARAMS, 'period', 'freq']) : PARAMS);
  const symbols = given(params.symbols) ? symbolList(params.symbols, stockCode) : given(params.symbol) ? [stockCode('symbol', params.symbol)] : null;
  if (symbols === null && api === 'minute') throw badRequest('params.symbols is required for minute (at most 200 codes)');
  const dates = resolveDates(params, nowMs, { clipMonth: false });
  return {
    api,
    symbols,
    dates,
    span: effectiveSpan(dates),
    fields: selectFields(fields, BAR_FIELDS[api]),
    limit: given(params.limit) ? limitParam(params.limit) : PAGE_LIMIT,
    offset: given(params.offset) ? offsetParam(params.offset) : 0,
    period: api === 'minute' ? periodParam(params.period ?? params.freq) : 1,
  };
}

function periodParam(v: unknown): MinutePeriod {
  if (!given(v)) return 1;
  const p = typeof v === 'string' ? PERIODS[v.trim().toLowerCase()] : undefined;
  if (p === undefined) throw badRequest(`params.period must be one of 1m, 5m, 15m, 30m, 60m (or 1h), got ${excerpt(v)}`);
  return p;
}

/** A stock code in any form; rows show it canonical (api-contract: Bars). */
function stockCode(name: string, v: unknown): string {
  const r = parseStockSymbol(v);
  if (!r.ok) throw badRequest(`params.${name} must be stock codes (NNNNNN, NNNNNN.SH/.SZ/.BJ, …), got ${excerpt(v)}`);
  return r.symbol;
}
