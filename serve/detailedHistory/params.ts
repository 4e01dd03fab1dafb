/**
 * Parameters of the detailed history interfaces (level2_quote_history: spec + api-contract: Detailed history;
 * level2_trade_history and level2_order_history: the same rules, §3b), validated into one
 * typed query.
 * Pure: no clock, no catalog. Every rejection is a 400 naming the parameter.
 *
 * A member set to null counts as omitted (clients often serialise "not set" as null).
 */
import { SCHEMAS } from '../../shared/schema.js';
import { parseStockSymbol } from '../../shared/symbols.js';
import { API_TIME_FORMS, isValidDateText, parseApiTime } from '../../shared/timeFormat.js';
import { badRequest } from '../http/apiError.js';
import { checkParamNames, selectFields, type ApiRequest } from '../http/apiRequest.js';
import type { CursorCodec, CursorState, LiveKey } from './cursor.js';
import type { DetailedApiName } from '../access/plans.js';
import { DATASET_OF } from './interfaces.js';

export const LEVEL2_PARAMS: ReadonlySet<string> = new Set(['symbol', 'tradedate', 'format', 'start_time', 'end_time', 'page_size', 'cursor']);

/** Parameters rule 6 forbids with format=parquet (`limit` is named there too). */
export const NOT_WITH_PARQUET: readonly string[] = ['cursor', 'page_size', 'limit', 'start_time', 'end_time'];

export const MAX_PAGE_SIZE = 10_000;

export type Level2Format = 'json' | 'parquet';

/** Where a page starts: the first page, an older-kind row offset, or a token's state. */
export type Level2Start =
  | { readonly kind: 'first' }
  | { readonly kind: 'offset'; readonly offset: number }
  | { readonly kind: 'token'; readonly position: number; readonly version: number; readonly after?: LiveKey };

export interface Level2Query {
  readonly symbol: string;
  /** The date asked for (or carried by the cursor); null = the latest trading day. */
  readonly tradedate: string | null;
  readonly format: Level2Format;
  readonly startMs: number | null;
  readonly endMs: number | null;
  readonly pageSize: number;
  readonly start: Level2Start;
  /** Schema positions of the fields to return, in order. */
  readonly fields: readonly number[];
}

const present = (params: Readonly<Record<string, unknown>>, name: string): boolean => params[name] !== undefined && params[name] !== null;

function parseTime(params: Readonly<Record<string, unknown>>, name: string): number | null {
  if (!present(params, name)) return null;
  const ms = parseApiTime(params[name]);
  if (ms === null) throw badRequest(`params.${name} must be a time ${API_TIME_FORMS}`);
  return ms;
}

function parseSymbol(value: unknown): string {
  if (value === undefined || value === null) throw badRequest('params.symbol is required');
  if (typeof value === 'string' && /[,;\s]/.test(value.trim())) {
    throw badRequest('params.symbol takes one stock code; several symbols in one query are not supported');
  }
  const r = parseStockSymbol(value);
  if (!r.ok) throw badRequest(`params.symbol ${r.reason}`);
  return r.symbol;
}

function parsePageSize(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
    throw badRequest('params.page_size must be a positive integer');
  }
  return Math.min(value, MAX_PAGE_SIZE);
}

export function parseLevel2Query(req: ApiRequest, cursors: CursorCodec, apiname: DetailedApiName = 'level2_quote_history'): Level2Query {
  const { params } = req;
  const format = present(params, 'format') ? params.format : 'json';
  if (format !== 'json' && format !== 'parquet') throw badRequest('params.format must be "json" or "parquet"');
  if (format === 'parquet') {
    const bad = NOT_WITH_PARQUET.find((n) => present(params, n));
    if (bad) throw badRequest(`params.${bad} is not supported with format=parquet (the whole day's file is returned)`);
  }
  checkParamNames(params, LEVEL2_PARAMS);
  const fields = selectFields(req.fields, SCHEMAS[DATASET_OF[apiname]]);

  const symbol = parseSymbol(params.symbol);
  let tradedate: string | null = null;
  if (present(params, 'tradedate')) {
    if (!isValidDateText(params.tradedate)) throw badRequest('params.tradedate must be a date YYYYMMDD');
    tradedate = params.tradedate;
  }
  let startMs = parseTime(params, 'start_time');
  let endMs = parseTime(params, 'end_time');
  if (startMs !== null && endMs !== null && startMs > endMs) {
    throw badRequest('params.start_time must not be after params.end_time');
  }
  const pageSize = present(params, 'page_size') ? parsePageSize(params.page_size) : MAX_PAGE_SIZE;

  let start: Level2Start = { kind: 'first' };
  const rawCursor = params.cursor;
  if (rawCursor !== undefined && rawCursor !== null && rawCursor !== '') {
    if (typeof rawCursor !== 'string') throw badRequest('params.cursor must be a string (the next_cursor of the previous page)');
    const parsed = cursors.parse(rawCursor);
    if (!parsed.ok) throw badRequest(`params.cursor ${parsed.reason}`);
    if (parsed.cursor.kind === 'offset') {
      if (tradedate === null) {
        throw badRequest('params.cursor of the older kind (a row position) needs params.tradedate of the original query');
      }
      start = { kind: 'offset', offset: parsed.cursor.offset };
    } else {
      const s: CursorState = parsed.cursor.state;
      if (s.apiname !== apiname) throw badRequest(`params.cursor was issued by ${s.apiname}; it pages only that interface, not ${apiname}`);
      if (s.symbol !== symbol) throw badRequest(`params.cursor belongs to symbol ${s.symbol}, not ${symbol}`);
      if (tradedate !== null && tradedate !== s.tradedate) {
        throw badRequest(`params.tradedate ${tradedate} differs from the cursor's date ${s.tradedate}; paging never changes the date`);
      }
      if (startMs !== null && startMs !== s.startMs) throw badRequest("params.start_time differs from the cursor's start_time");
      if (endMs !== null && endMs !== s.endMs) throw badRequest("params.end_time differs from the cursor's end_time");
      tradedate = s.tradedate;
      startMs = s.startMs;
      endMs = s.endMs;
      start = { kind: 'token', position: s.position, version: s.version, ...(s.after === undefined ? {} : { after: s.after }) };
    }
  }
  return { symbol, tradedate, format, startMs, endMs, pageSize, start, fields };
}
