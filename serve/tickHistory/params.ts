/**
 * tickHistory params → one typed query (api-contract: tick_history). Mode selection:
 *  - compatible: `symbol` and none of the enhanced-only parameters below;
 *  - boundary: `side` is given (it needs `trademin`);
 *  - enhanced plain detail: everything else.
 * Every rejected combination is a 400 naming the parameters.
 */
import { SCHEMAS } from '../../shared/schema.js';
import { parseIndexSymbol, parseStockSymbol } from '../../shared/symbols.js';
import type { Asset } from '../../storage/tickShape.js';
import { API_TIME_FORMS, MS_PER_DAY, MS_PER_MINUTE, parseApiTime, parseTrademin } from '../../shared/timeFormat.js';
import { badRequest } from '../http/apiError.js';
import { checkParamNames, selectFields } from '../http/apiRequest.js';
import { excerpt } from '../http/valueExcerpt.js';
import { resolveDates, spansSeveralDays, type DateSelection } from './dateResolution.js';

export const MAX_SYMBOLS = 200;
export const ENHANCED_LIMIT = 6000;

const PARAMS = new Set([
  'asset',
  'symbol',
  'symbols',
  'tradedate',
  'startdate',
  'enddate',
  'recentdays',
  'tradedate_offset',
  'order_dir',
  'limit',
  'offset',
  'trademin',
  'side',
  'start_time',
  'end_time',
]);

/** Any of these (besides `symbol`) makes a request enhanced or boundary (api-contract: tick_history). */
const NOT_COMPATIBLE = [
  'symbols',
  'startdate',
  'enddate',
  'recentdays',
  'tradedate_offset',
  'trademin',
  'side',
  'start_time',
  'end_time',
  'limit',
  'offset',
  'order_dir',
] as const;

/** Boundary rows are sorted by symbol, not time: an order is meaningless there, rejected rather than ignored. */
const NOT_BOUNDARY = ['order_dir'] as const;

/** Selected times of day, ms since midnight: start included, end excluded. */
export interface TimeWindow {
  readonly startMs: number;
  readonly endMs: number;
}

export const WHOLE_DAY: TimeWindow = { startMs: 0, endMs: MS_PER_DAY };

export type Order = 'asc' | 'desc';
export type Side = 'before' | 'after';

interface Common {
  /** index: index snapshots; stock: level-2 snapshots in tick_history's shape (api-contract: tick_history). */
  readonly asset: Asset;
  readonly dates: DateSelection;
  /** Positions in SCHEMAS.index of the returned fields, in response order. */
  readonly fields: readonly number[];
}

export interface CompatibleQuery extends Common {
  readonly mode: 'compatible';
  readonly symbol: string;
}

export interface EnhancedQuery extends Common {
  readonly mode: 'enhanced';
  /** Sorted, unique. */
  readonly symbols: readonly string[];
  readonly window: TimeWindow;
  readonly order: Order;
  readonly limit: number;
  readonly offset: number;
}

export interface BoundaryQuery extends Common {
  readonly mode: 'boundary';
  /** Sorted, unique; null = every index stored that day. */
  readonly symbols: readonly string[] | null;
  /** The boundary minute, minute of day. */
  readonly minute: number;
  readonly side: Side;
  /** A page of the boundary rows (one per symbol, by symbol), as in enhanced mode (api-contract: tick_history). */
  readonly limit: number;
  readonly offset: number;
}

export type TickQuery = CompatibleQuery | EnhancedQuery | BoundaryQuery;

type Params = Readonly<Record<string, unknown>>;

const given = (v: unknown) => v !== undefined && v !== null;

export function parseTickQuery(params: Params, fields: string | null | undefined, nowMs: number): TickQuery {
  checkParamNames(params, PARAMS);
  if (given(params.asset) && params.asset !== 'index' && params.asset !== 'stock') throw badRequest('params.asset must be "index" or "stock"');
  const asset: Asset = params.asset === 'stock' ? 'stock' : 'index';
  const codeOf = (name: string, v: unknown) => (asset === 'stock' ? stockSymbol(name, v) : indexSymbol(name, v));
  const fieldPositions = selectFields(fields, SCHEMAS.index);
  const symbol = given(params.symbol) ? codeOf('symbol', params.symbol) : null;

  if (symbol !== null && NOT_COMPATIBLE.every((k) => !given(params[k]))) {
    return { mode: 'compatible', asset, symbol, dates: resolveDates(params, nowMs), fields: fieldPositions };
  }

  // `symbols` wins over `symbol`; `symbol` alone is a one-symbol list (api-contract: tick_history).
  const symbols = given(params.symbols) ? symbolList(params.symbols, codeOf) : symbol !== null ? [symbol] : null;
  const trademin = given(params.trademin) ? trademinParam(params.trademin) : null;
  if (trademin !== null && (given(params.start_time) || given(params.end_time))) {
    throw badRequest('params.trademin cannot be combined with params.start_time or params.end_time');
  }

  if (given(params.side)) {
    if (params.side !== 'before' && params.side !== 'after') throw badRequest('params.side must be "before" or "after"');
    if (trademin === null) throw badRequest('params.side needs params.trademin, the boundary minute HHMM or HH:MM');
    for (const k of NOT_BOUNDARY) {
      if (given(params[k])) throw badRequest(`params.${k} cannot be combined with params.side: boundary rows are ordered by symbol`);
    }
    const dates = resolveDates(params, nowMs);
    if (spansSeveralDays(dates) && dates.kind === 'range') {
      const r = dates.requested;
      throw badRequest(`params.side needs a single trading day, but the dates cover ${r.from}-${r.to}`);
    }
    return {
      mode: 'boundary',
      asset,
      symbols,
      minute: trademin / MS_PER_MINUTE,
      side: params.side,
      dates,
      fields: fieldPositions,
      limit: given(params.limit) ? limitParam(params.limit) : ENHANCED_LIMIT,
      offset: given(params.offset) ? offsetParam(params.offset) : 0,
    };
  }

  if (symbols === null) throw badRequest('params.symbols (or params.symbol) is required for enhanced detail');
  return {
    mode: 'enhanced',
    asset,
    symbols,
    dates: resolveDates(params, nowMs),
    window: trademin !== null ? { startMs: trademin, endMs: trademin + MS_PER_MINUTE } : timeWindow(params),
    order: orderParam(params.order_dir),
    limit: given(params.limit) ? limitParam(params.limit) : ENHANCED_LIMIT,
    offset: given(params.offset) ? offsetParam(params.offset) : 0,
    fields: fieldPositions,
  };
}

function indexSymbol(name: string, v: unknown): string {
  const r = parseIndexSymbol(v);
  if (!r.ok) throw badRequest(`params.${name} must be a six-digit index code without suffix, got ${excerpt(v)}`);
  return r.symbol;
}

/** Any stock form of api-contract: Symbols; canonical `NNNNNN.XX` (rows show the six digits). */
function stockSymbol(name: string, v: unknown): string {
  const r = parseStockSymbol(v);
  if (!r.ok) throw badRequest(`params.${name} must be a stock code (NNNNNN, NNNNNN.SH/.SZ/.BJ, …), got ${excerpt(v)}`);
  return r.symbol;
}

/** Comma-separated string or array; blanks around commas tolerated, duplicates removed. */
export function symbolList(v: unknown, codeOf: (name: string, v: unknown) => string): string[] {
  let items: unknown[];
  if (typeof v === 'string') items = v.split(',').map((s) => s.trim());
  else if (Array.isArray(v)) items = v.map((s) => (typeof s === 'string' ? s.trim() : s));
  else throw badRequest('params.symbols must be a comma-separated string or an array of codes');
  const unique = new Set<string>();
  for (const item of items) {
    if (item === '') throw badRequest('params.symbols contains an empty code');
    unique.add(codeOf('symbols', item));
  }
  if (unique.size === 0) throw badRequest('params.symbols must name at least one code');
  if (unique.size > MAX_SYMBOLS) throw badRequest(`params.symbols names ${unique.size} codes; at most ${MAX_SYMBOLS} are allowed`);
  return [...unique].sort();
}

function trademinParam(v: unknown): number {
  const ms = parseTrademin(v);
  if (ms === null) throw badRequest('params.trademin must be a minute written HHMM or HH:MM (00-23, 00-59)');
  return ms;
}

function timeParam(name: string, v: unknown): number {
  const ms = parseApiTime(v);
  if (ms === null) throw badRequest(`params.${name} must be a time ${API_TIME_FORMS}`);
  return ms;
}

function timeWindow(params: Params): TimeWindow {
  const startMs = given(params.start_time) ? timeParam('start_time', params.start_time) : 0;
  const endMs = given(params.end_time) ? timeParam('end_time', params.end_time) : MS_PER_DAY;
  if (startMs >= endMs) throw badRequest('params.start_time must be earlier than params.end_time (start included, end excluded)');
  return { startMs, endMs };
}

function orderParam(v: unknown): Order {
  if (!given(v)) return 'asc';
  if (v !== 'asc' && v !== 'desc') throw badRequest('params.order_dir must be "asc" or "desc"');
  return v;
}

/** Above the cap is served as the cap (api-contract: tick_history); zero, negative or fractional is a 400. */
export function limitParam(v: unknown): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) throw badRequest('params.limit must be a positive integer');
  return Math.min(v, ENHANCED_LIMIT);
}

export function offsetParam(v: unknown): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw badRequest('params.offset must be an integer of 0 or more');
  return v;
}
