import { SCHEMAS, type DatasetSchema } from '../../shared/schema.js';
import { ERROR_REASONS, type ErrorCode } from './apiError.js';
import { API_NAMES, PLAN_NAMES } from '../access/plans.js';
import { BODY_ENCODINGS, BODY_LIMIT_BYTES } from './requestBody.js';
import { API_TIME_FORMS } from '../../shared/timeFormat.js';
import { MAX_TRADING_DAYS_BACK } from '../tickHistory/dateResolution.js';
import { PARQUET_MEDIA_TYPE } from '../detailedHistory/operation.js';
import { MAX_PAGE_SIZE, NOT_WITH_PARQUET } from '../detailedHistory/params.js';
import { DATASET_OF } from '../detailedHistory/interfaces.js';
import { ENHANCED_LIMIT, MAX_SYMBOLS } from '../tickHistory/params.js';
import { MAX_SYMBOLS as BAR_MAX_SYMBOLS, PAGE_LIMIT as BAR_PAGE_LIMIT } from '../bars/params.js';
import { BAR_FIELDS, TRADECAL_FIELDS } from '../bars/barFields.js';

/** /account: what one interface allows an account and what is left of it today. */
const USAGE: Schema = { type: ['object', 'null'], properties: { limit: { type: 'integer' }, used: { type: 'integer' }, left: { type: 'integer' } } };
const ALLOWANCE: Schema = {
  type: 'object',
  properties: {
    allowed: { type: 'boolean' },
    history: { type: 'object', properties: { from: { type: ['string', 'null'] }, to: { type: 'string' }, trading_days: { type: ['integer', 'null'] } } },
    daily_calls: USAGE,
    parquet_files: USAGE,
    in_flight: { type: ['boolean', 'null'] },
  },
};

/**
 * The OpenAPI 3.1 description of the service, served at GET /openapi.json. Field names, limits
 * and media types come from the modules that enforce them, so the document cannot drift from
 * the server; what is prose here (rules, messages) follows docs/api-contract.md.
 */

// ---- a typed subset of OpenAPI 3.1 -----------------------------------------------------------

export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object' | 'null';
export interface Ref {
  readonly $ref: string;
}
export interface Schema {
  readonly type?: JsonType | readonly JsonType[];
  readonly title?: string;
  readonly description?: string;
  readonly const?: string | number | boolean | null;
  readonly enum?: readonly (string | number | null)[];
  readonly pattern?: string;
  readonly format?: string;
  readonly contentMediaType?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly uniqueItems?: boolean;
  readonly items?: Schema | Ref;
  readonly properties?: Readonly<Record<string, Schema | Ref>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean;
  readonly oneOf?: readonly (Schema | Ref)[];
  readonly discriminator?: { readonly propertyName: string; readonly mapping?: Readonly<Record<string, string>> };
  readonly default?: string | number | boolean | null;
  readonly examples?: readonly unknown[];
}
export interface Header {
  readonly description: string;
  readonly required?: boolean;
  readonly schema: Schema;
}
export interface MediaType {
  readonly schema?: Schema | Ref;
  readonly examples?: Readonly<Record<string, { readonly summary?: string; readonly value: unknown }>>;
}
export interface Response {
  readonly description: string;
  readonly headers?: Readonly<Record<string, Header | Ref>>;
  readonly content?: Readonly<Record<string, MediaType>>;
}
export interface Operation {
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly tags?: readonly string[];
  readonly requestBody?: { readonly required: boolean; readonly description?: string; readonly content: Readonly<Record<string, MediaType>> };
  readonly responses: Readonly<Record<string, Response | Ref>>;
}
export interface PathItem {
  readonly get?: Operation;
  readonly post?: Operation;
}
export interface OpenApiDocument {
  readonly openapi: '3.1.0';
  readonly info: {
    readonly title: string;
    readonly version: string;
    readonly description: string;
    readonly license?: { readonly name: string; readonly identifier: string };
  };
  readonly tags: readonly { readonly name: string; readonly description: string }[];
  readonly paths: Readonly<Record<string, PathItem>>;
  readonly components: {
    readonly schemas: Readonly<Record<string, Schema>>;
    readonly responses: Readonly<Record<string, Response>>;
    readonly headers: Readonly<Record<string, Header>>;
  };
}

// ---- pieces ----------------------------------------------------------------------------------

const ref = (kind: 'schemas' | 'responses' | 'headers', name: string): Ref => ({ $ref: `#/components/${kind}/${name}` });
const nullable = (s: Schema): Schema => ({ ...s, type: [s.type as JsonType, 'null'] });
/** start_time / end_time of both operations (shared/timeFormat.ts parseApiTime). */
const API_TIME_PATTERN = '^(?:\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d{3})?)?|\\d{6}(?:\\d{3})?)$';
const DATE: Schema = { type: 'string', pattern: '^\\d{8}$', description: 'A date written YYYYMMDD.', examples: ['20250102'] };
/** tick_history codes: index codes, or with asset=stock any stock form of level2_quote_history's symbol. */
const TICK_CODE: Schema = {
  type: 'string',
  pattern: '^(?:\\d{6}(?:\\.[A-Za-z]{2,4})?|[A-Za-z]{2}\\d{6})$',
  description: 'A six-digit index code; with asset=stock, a stock code in any form level2_quote_history accepts (rows show its six digits).',
  examples: ['000300', '600000.SH'],
};

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The `fields` member: comma-separated names of the dataset (blanks around commas and empty
 * entries are ignored by the server). The pattern is built from the schema's names.
 */
function fieldsMember(schema: Pick<DatasetSchema, 'fieldNames'>): Schema {
  const name = `(?:${schema.fieldNames.map(escapeRegex).join('|')})`;
  return {
    type: ['string', 'null'],
    pattern: `^\\s*(?:${name}\\s*)?(?:,\\s*(?:${name}\\s*)?)*$`,
    description:
      `Comma-separated names of the columns to return, in the order wanted; duplicates are removed and an unknown name is a 400. ` +
      `Omitted, null or empty: every field in this order: ${schema.fieldNames.join(', ')}.`,
  };
}

/** The column names of a response, with the dataset's names as the only allowed values. */
function fieldNames(schema: Pick<DatasetSchema, 'fieldNames'>): Schema {
  return { type: 'array', items: { type: 'string', enum: [...schema.fieldNames] }, description: 'The returned column names, in order.' };
}

const CELL: Schema = {
  type: ['string', 'number', 'null'],
  description:
    'symbol, tradedate and time are strings, as are the one-letter codes of trades and orders (bs_flag, trade_code, side, order_type) or null; every other field is a number or null (a missing value).',
};
const ITEMS: Schema = {
  type: 'array',
  description: 'Rows; each row is an array whose values match `fields` by position.',
  items: { type: 'array', items: CELL },
};

/** An object holding exactly `properties` (any other member is not allowed), the `required` ones always. */
function closedObject(required: readonly string[], properties: Readonly<Record<string, Schema | Ref>>): Schema {
  return { type: 'object', required, additionalProperties: false, properties };
}

function envelope(title: string, data: Schema | Ref, message: Schema): Schema {
  return { title, ...closedObject(['code', 'message', 'data'], { code: { type: 'integer', const: 200 }, message, data }) };
}

const ERROR_CODES: readonly ErrorCode[] = [400, 401, 403, 413, 415, 429, 500, 503];

/** A function, not a table: app.ts may still be loading when this module is (import cycle). */
function errorMeaning(code: ErrorCode): string {
  const meanings: Readonly<Record<ErrorCode, string>> = {
    400: "Bad request: body not JSON (or a corrupt compressed body), unknown apiname, unknown or misspelled body member or parameter, unknown name in `fields`, a bad value or format, a date outside the trading calendar's known range, or a rejected combination of parameters. The message names the parameter. Not worth retrying.",
    401: '`apikey` missing, unknown or revoked. Not worth retrying.',
    403: "The account's plan has no access to the operation (or, for format=parquet, no Parquet downloads at all), or a date is outside the plan's history depth. Not worth retrying.",
    413: `The request body is larger than ${BODY_LIMIT_BYTES} bytes (after decompression).`,
    415: `The body's Content-Encoding is not one of ${BODY_ENCODINGS.join(', ')}.`,
    429: "Per-second limit exceeded, the trial plan's daily calls used up, or the daily Parquet quota used up. Retry after `Retry-After` seconds.",
    500: 'Unexpected server fault; the message carries no detail.',
    503: "The account already has a request in progress on this interface (JSON and Parquet share the one slot, across keys, server processes and sites). Not queued: retry after `Retry-After` seconds. Also answered while the shared accounts-and-limits database cannot be reached or written (nothing is counted then), while a cursor's restated version is not at this site yet, and while the symbol-day's stored file is damaged at this site (the message names the file; never its rows); retry after `Retry-After` seconds.",
  };
  return meanings[code];
}

// ---- level2_quote_history --------------------------------------------------------------------

const level2Params: Readonly<Record<string, Schema>> = {
  symbol: {
    type: 'string',
    pattern: '^(?:\\d{6}(?:\\.[A-Za-z]{2,4})?|[A-Za-z]{2}\\d{6})$',
    description:
      'One stock code: 600000, 600000.SH, 600000.sh, SH600000, sh600000 or 600000.XSHG (likewise .SZ/.XSHE and .BJ). Six digits alone take the exchange from the code. Several symbols are not supported.',
    examples: ['600000.SH'],
  },
  tradedate: nullable({
    ...DATE,
    description:
      'One trading day. Omitted: the latest trading day of the calendar (Beijing time), stored or not; a day not stored is no data, never another day.',
  }),
  format: {
    type: ['string', 'null'],
    enum: ['json', 'parquet', null],
    default: 'json',
    description: `json pages rows by cursor; parquet returns the stored single-stock single-day ZSTD Parquet file (${PARQUET_MEDIA_TYPE}). With parquet, ${NOT_WITH_PARQUET.join(', ')} are a 400.`,
  },
  start_time: nullable({ type: 'string', pattern: API_TIME_PATTERN, description: `Start time, included: ${API_TIME_FORMS}.`, examples: ['09:30'] }),
  end_time: nullable({
    type: 'string',
    pattern: API_TIME_PATTERN,
    description: 'End time, included; same formats as start_time. start after end is a 400.',
    examples: ['113000000'],
  }),
  page_size: nullable({
    type: 'integer',
    minimum: 1,
    default: MAX_PAGE_SIZE,
    description: `Rows per page, default and maximum ${MAX_PAGE_SIZE}; a larger value is served as ${MAX_PAGE_SIZE}.`,
  }),
  cursor: {
    type: ['string', 'null'],
    description:
      'Omitted for the first page; then the next_cursor of the previous page. A cursor is bound to its interface, symbol, date and time filters. The older kind (a decimal row position) needs the original tradedate.',
  },
};

// ---- tick_history ----------------------------------------------------------------------------

const TICK_TIME: Schema = { type: 'string', pattern: API_TIME_PATTERN };

const tickParams: Readonly<Record<string, Schema>> = {
  asset: {
    type: ['string', 'null'],
    enum: ['index', 'stock', null],
    default: 'index',
    description:
      "index (default): index snapshots. stock: level-2 stock snapshots in this shape (first 5 levels, vol = volume, transaction_num, pre_close and pct_chg null, six-digit symbol), with level2_quote_history's plan access and history depth, counted on tick_history.",
  },
  symbol: nullable({
    ...TICK_CODE,
    description:
      'One code. Alone (none of the enhanced parameters): the compatible query, the whole day ascending without row limit. With `symbols`, `symbols` wins.',
  }),
  symbols: {
    oneOf: [
      { type: 'string', description: 'Comma-separated codes.', examples: ['000300,000905'] },
      { type: 'array', items: TICK_CODE, minItems: 1 },
      { type: 'null' },
    ],
    description: `One or more codes, at most ${MAX_SYMBOLS} after removing duplicates. In boundary mode, omitted means every index (or, with asset=stock, every stock) stored that day.`,
  },
  tradedate: nullable({ ...DATE, description: 'One trading day. Not combinable with startdate/enddate, recentdays or tradedate_offset.' }),
  startdate: nullable({ ...DATE, description: 'Range start; alone, the range runs to the latest trading day.' }),
  enddate: nullable({
    ...DATE,
    description:
      'Range end; alone, that one trading day. A range crossing months is read from the first day of the end month only; the message states the requested and effective ranges.',
  }),
  recentdays: nullable({
    type: 'integer',
    minimum: 1,
    maximum: MAX_TRADING_DAYS_BACK,
    description: 'The last N trading days (subject to the cross-month rule). Not combinable with other date parameters.',
  }),
  tradedate_offset: nullable({
    type: 'integer',
    minimum: -MAX_TRADING_DAYS_BACK,
    maximum: 0,
    description: '0 is the latest trading day, -1 the one before. Not combinable with other date parameters.',
  }),
  order_dir: {
    type: ['string', 'null'],
    enum: ['asc', 'desc', null],
    default: 'asc',
    description: 'Plain detail order by tradedate, time, then symbol; desc reverses it.',
  },
  limit: nullable({
    type: 'integer',
    minimum: 1,
    default: ENHANCED_LIMIT,
    description: `Rows of an enhanced or boundary query, default and maximum ${ENHANCED_LIMIT}; larger is served as ${ENHANCED_LIMIT}.`,
  }),
  offset: nullable({
    type: 'integer',
    minimum: 0,
    default: 0,
    description: 'Row offset of an enhanced or boundary query (boundary rows are one per symbol, by symbol).',
  }),
  trademin: nullable({
    type: 'string',
    pattern: '^\\d{2}:?\\d{2}$',
    description: 'A minute HHMM or HH:MM. Alone: the rows of [HH:MM:00, next minute). With side: the boundary.',
    examples: ['1000'],
  }),
  side: {
    type: ['string', 'null'],
    enum: ['before', 'after', null],
    description:
      'Boundary mode (needs trademin, one trading day): before = per index the last snapshot strictly earlier than the minute; after = the first at or later.',
  },
  start_time: nullable({ ...TICK_TIME, description: `Plain detail start time, included: ${API_TIME_FORMS}. Not combinable with trademin.` }),
  end_time: nullable({ ...TICK_TIME, description: 'Plain detail end time, excluded. Not combinable with trademin.' }),
};

// ---- bars and tradecal ----------------------------------------------------------------------

const STOCK_CODE: Schema = {
  type: 'string',
  pattern: '^(?:\\d{6}(?:\\.[A-Za-z]{2,4})?|[A-Za-z]{2}\\d{6})$',
  description: 'A stock code in any form level2_quote_history accepts; rows show NNNNNN.SH / .SZ / .BJ.',
  examples: ['600000.SH', '000001'],
};

const barParams: Readonly<Record<string, Schema>> = {
  symbols: {
    oneOf: [
      { type: 'string', description: 'Comma-separated codes.', examples: ['600000.SH,000001.SZ'] },
      { type: 'array', items: STOCK_CODE, minItems: 1 },
      { type: 'null' },
    ],
    description: `At most ${BAR_MAX_SYMBOLS} stocks after removing duplicates; omitted, every stock with bars (minute requires it).`,
  },
  symbol: nullable({ ...STOCK_CODE, description: 'One stock; symbols wins when both are given.' }),
  tradedate: nullable({ ...DATE, description: 'One trading day. Not combinable with startdate/enddate or recentdays.' }),
  startdate: nullable({ ...DATE, description: 'Range start; alone, the range runs to the latest trading day. The whole range is read (no month clipping).' }),
  enddate: nullable({ ...DATE, description: 'Range end; alone, that one trading day.' }),
  recentdays: nullable({ type: 'integer', minimum: 1, maximum: MAX_TRADING_DAYS_BACK, description: 'The last N trading days.' }),
  limit: nullable({ type: 'integer', minimum: 1, default: BAR_PAGE_LIMIT, description: `Rows per page, default and maximum ${BAR_PAGE_LIMIT}.` }),
  offset: nullable({ type: 'integer', minimum: 0, default: 0, description: 'Row offset; rows are ordered by symbol, date, then bar time.' }),
};

const minuteParams: Readonly<Record<string, Schema>> = {
  ...barParams,
  period: {
    type: ['string', 'null'],
    enum: ['1m', '5m', '15m', '30m', '60m', '1h', null],
    default: '1m',
    description:
      '1m: 241 bars a stock-day labelled at their end (0930 the opening auction, 1500 the closing auction); longer periods fold the 0930 bar into the first.',
  },
  freq: nullable({ type: 'string', description: 'Another name of period, as some clients send it.' }),
};

const tradecalParams: Readonly<Record<string, Schema>> = {
  startdate: nullable({ ...DATE, description: 'Default: 1 January of the current year (Beijing time). Outside the calendar’s known range: a 400.' }),
  enddate: nullable({ ...DATE, description: 'Default: 31 December of the current year.' }),
  exchange: nullable({ type: 'string', description: 'Accepted and ignored: SSE and SZSE share one calendar.' }),
};

/** The bar interfaces and tradecal: request, params and response schema names. */
const BAR_DOCS = [
  { apiname: 'minute', name: 'Minute', params: minuteParams, what: '1-minute (or 5, 15, 30, 60-minute) bars derived from the fills (trade_code F)' },
  { apiname: 'daily', name: 'Daily', params: barParams, what: 'daily bars from the fills; vol in lots, amount in yuan; a stock-day without fills has no row' },
  {
    apiname: 'weekly',
    name: 'Weekly',
    params: barParams,
    what: 'weekly bars (Monday–Sunday) folded from the daily rows; tradedate the week’s last day with a row',
  },
  { apiname: 'monthly', name: 'Monthly', params: barParams, what: 'monthly bars folded from the daily rows; tradedate the month’s last day with a row' },
  { apiname: 'daily_auc', name: 'DailyAuc', params: barParams, what: 'the opening call auction of each stock-day' },
] as const;

function barSchemas(d: (typeof BAR_DOCS)[number]): [string, Schema][] {
  const fields = BAR_FIELDS[d.apiname];
  return [
    [`${d.name}Request`, { ...request(d.apiname, fieldsMember(fields), ref('schemas', `${d.name}Params`)), description: `${d.apiname}: ${d.what}.` }],
    [`${d.name}Params`, paramsObject(`${d.apiname} params`, d.params, [])],
    [
      `${d.name}Response`,
      envelope(
        `${d.apiname} page`,
        closedObject(['fields', 'items', 'limit', 'offset', 'has_more'], {
          fields: fieldNames(fields),
          items: ITEMS,
          limit: { type: 'integer', minimum: 1, maximum: BAR_PAGE_LIMIT },
          offset: { type: 'integer', minimum: 0 },
          has_more: { type: 'boolean' },
        }),
        {
          type: 'string',
          pattern:
            '^(?:success(?:; requested \\d{8}-\\d{8}, effective \\d{8}-\\d{8})?|no data(?:; requested \\d{8}-\\d{8}, effective \\d{8}-\\d{8})?(?:; .+)?)$',
          description:
            'success or no data; a range adds its requested and effective range (equal: bars are not clipped to a month); no data ends with the reason.',
        },
      ),
    ],
  ];
}

/** Parameter names the document lists per operation (the test holds them against the server). */
export const DOCUMENTED_PARAMS = {
  level2_quote_history: Object.keys(level2Params),
  level2_trade_history: Object.keys(level2Params),
  level2_order_history: Object.keys(level2Params),
  tick_history: Object.keys(tickParams),
  ...Object.fromEntries(BAR_DOCS.map((d) => [d.apiname, Object.keys(d.params)])),
  tradecal: Object.keys(tradecalParams),
} as const;

/**
 * The detailed history interfaces share level2_quote_history's parameters and page shape
 * (api-contract: Trades and orders); each has its own request, params and response schema names.
 */
const DETAILED_DOCS = [
  { apiname: 'level2_quote_history', name: 'Level2', what: 'Level-2 ten-level order-book snapshots' },
  {
    apiname: 'level2_trade_history',
    name: 'TradeHistory',
    what: 'tick-by-tick trades (逐笔成交): trade_id, price, volume, amount, bs_flag B/S/N, trade_code F/C, buy_order_id, sell_order_id',
  },
  {
    apiname: 'level2_order_history',
    name: 'OrderHistory',
    what: 'tick-by-tick orders (逐笔委托): order_id, price (null for market orders), volume, amount, side B/S, order_type L/M/U/D, order_no',
  },
] as const;

function paramsObject(title: string, props: Readonly<Record<string, Schema>>, required: readonly string[]): Schema {
  return {
    type: 'object',
    title,
    properties: props,
    required,
    additionalProperties: false,
    description: 'Unknown members are a 400; a member set to null counts as omitted.',
  };
}

function request(apiname: string, fields: Schema, params: Ref): Schema {
  return closedObject(['apiname', 'apikey', 'params'], {
    apiname: { type: 'string', const: apiname },
    apikey: { type: 'string', description: 'The account API key (missing, unknown or revoked: 401).' },
    fields,
    params,
  });
}

// ---- the document ------------------------------------------------------------------------------

function errorResponse(code: ErrorCode): Response {
  const retry = code === 429 || code === 503;
  const schema = closedObject(['code', 'message', 'data'], {
    code: { type: 'integer', const: code },
    message: { type: 'string', description: 'One English sentence naming the offending parameter or rule.' },
    data: { type: 'null' },
  });
  return {
    description: errorMeaning(code),
    headers: { ...(retry ? { 'Retry-After': ref('headers', 'RetryAfter') } : {}), 'X-Tickvault-Reason': ref('headers', 'TickvaultReason') },
    content: { 'application/json': { schema } },
  };
}

/** Request, params and JSON-page schemas of one detailed history interface. */
function detailedSchemas(d: (typeof DETAILED_DOCS)[number]): [string, Schema][] {
  const schema = SCHEMAS[DATASET_OF[d.apiname]];
  const ordered = schema.idValue === null ? '' : ' Rows are ordered by time, then by the id.';
  return [
    [`${d.name}Request`, { ...request(d.apiname, fieldsMember(schema), ref('schemas', `${d.name}Params`)), description: `${d.apiname}: ${d.what}.${ordered}` }],
    [`${d.name}Params`, paramsObject(`${d.apiname} params`, level2Params, ['symbol'])],
    [
      `${d.name}Response`,
      envelope(
        `${d.apiname} JSON page`,
        closedObject(['fields', 'items', 'tradedate', 'page_size', 'next_cursor', 'has_more'], {
          fields: fieldNames(schema),
          items: ITEMS,
          tradedate: { ...DATE, description: 'The date actually queried.' },
          page_size: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, description: 'The page size applied.' },
          next_cursor: { type: ['string', 'null'], description: `Cursor of the next page (pages ${d.apiname} only); null at the end.` },
          has_more: { type: 'boolean' },
          version: {
            type: 'integer',
            minimum: 1,
            description:
              'The version of the symbol-day the rows are of: 1 as sealed, N after a restatement (a cursor pages its version to the end). Absent in a no-data answer and on a live day.',
          },
          live: {
            type: 'boolean',
            const: true,
            description:
              'Present (true) only on a live day: a trading day whose rows are staged, not yet sealed, answered with exactly the rows the seal would write from what is staged now. A cursor continues after the last row it answered (by time, then id); to follow the day, ask again from the last time held. A Parquet download of a live day is no data (its file exists once it is sealed).',
          },
        }),
        {
          type: 'string',
          pattern: '^(?:success|no data(?:; .+)?)$',
          description:
            'success, or no data followed by "; " and the reason: not a trading day, after the latest trading day, not stored (with a hint when six digits meant as an index were read as a stock), or no rows in the time window.',
        },
      ),
    ],
  ];
}

/** A GET among the operations that always answers 200 with one body: `description` of it, its media type and JSON type. */
function plainGet(operationId: string, summary: string, description: string, mediaType: string, type: JsonType): PathItem {
  return { get: { operationId, summary, tags: ['operations'], responses: { '200': { description, content: { [mediaType]: { schema: { type } } } } } } };
}

export function buildOpenApi(version: string): OpenApiDocument {
  const ix = SCHEMAS.index;
  const errorResponses = Object.fromEntries(ERROR_CODES.map((c) => [String(c), ref('responses', `Error${c}`)]));
  return {
    openapi: '3.1.0',
    info: {
      title: 'tickvault',
      version,
      description:
        'China A-share market-data history: Level-2 ten-level order-book snapshots of stocks (level2_quote_history), tick-by-tick trades (level2_trade_history) and orders (level2_order_history) of stocks, tick snapshots of indexes (tick_history), bars derived from the trades (minute, daily, weekly, monthly, daily_auc) and the trading calendar (tradecal), ' +
        'answered by one endpoint, POST /api, whose body member `apiname` selects the operation. Every JSON answer is an envelope {code, message, data}; ' +
        'the HTTP status always equals `code`. No data is not an error: code 200 with `data.items` empty.',
    },
    tags: [
      { name: 'query', description: 'Market-data queries' },
      { name: 'operations', description: 'Service description, health and metrics' },
    ],
    paths: {
      '/api': {
        post: {
          operationId: 'query',
          summary: 'Run level2_quote_history, level2_trade_history, level2_order_history, tick_history, minute, daily, weekly, monthly, daily_auc or tradecal',
          tags: ['query'],
          requestBody: {
            required: true,
            description: `JSON, at most ${BODY_LIMIT_BYTES} bytes (413 above, counted after decompression). The body is read as JSON whatever its Content-Type; Content-Encoding may be ${BODY_ENCODINGS.join(', ')} (415 for any other).`,
            content: { 'application/json': { schema: ref('schemas', 'ApiRequest') } },
          },
          responses: {
            '200': {
              description: `Success or no data. level2_quote_history, level2_trade_history and level2_order_history with params.format = parquet answer with the stored file itself (${PARQUET_MEDIA_TYPE}, Content-Disposition attachment; no ranges).`,
              headers: { 'Content-Disposition': ref('headers', 'ContentDisposition'), 'X-Tickvault-Version': ref('headers', 'TickvaultVersion') },
              content: {
                'application/json': {
                  schema: {
                    oneOf: [
                      ...DETAILED_DOCS.map((d) => ref('schemas', `${d.name}Response`)),
                      ref('schemas', 'TickHistoryResponse'),
                      ...BAR_DOCS.map((d) => ref('schemas', `${d.name}Response`)),
                      ref('schemas', 'TradecalResponse'),
                    ],
                  },
                },
                [PARQUET_MEDIA_TYPE]: {
                  schema: {
                    type: 'string',
                    contentMediaType: PARQUET_MEDIA_TYPE,
                    description: 'One stock, one trading day, ZSTD-compressed, columns in field-table order.',
                  },
                },
              },
            },
            ...errorResponses,
          },
        },
      },
      '/account': {
        post: {
          operationId: 'account',
          summary: "The key's account: its plan, what it allows and what is left today",
          tags: ['operations'],
          description:
            'For the console and for clients that want to look before they hit a 403 or a 429. Counts against no limit (not the per-second limit either). ' +
            'Never shows the key itself or any other account. History dates are Beijing calendar dates (YYYYMMDD).',
          requestBody: {
            required: true,
            content: { 'application/json': { schema: closedObject(['apikey'], { apikey: { type: 'string' } }) } },
          },
          responses: {
            '200': {
              description: 'The account summary.',
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['code', 'message', 'data'],
                    properties: {
                      code: { type: 'integer', const: 200 },
                      message: { type: 'string', const: 'success' },
                      data: {
                        type: 'object',
                        required: ['account_id', 'plan', 'now', 'latest_trading_day', 'rate_limit_per_second', 'counters_reset_at', 'operations'],
                        properties: {
                          account_id: { type: 'integer' },
                          plan: { type: 'string', enum: [...PLAN_NAMES] },
                          now: { type: 'string', description: 'The service clock, ISO-8601 with the Beijing offset.' },
                          latest_trading_day: { type: 'string', pattern: '^\\d{8}$' },
                          rate_limit_per_second: { type: 'integer' },
                          counters_reset_at: { type: 'string', description: 'The next 00:00 Beijing time, when trial calls and Parquet files start again.' },
                          operations: {
                            type: 'object',
                            description:
                              'Per interface: access, history depth as dates, trial calls and Parquet files (limit, used, left; null where not counted), and whether a request holds its one-request slot now (null: no slot rule).',
                            properties: Object.fromEntries(API_NAMES.map((api) => [api, ALLOWANCE])),
                          },
                        },
                      },
                    },
                  },
                },
              },
            },
            '400': ref('responses', 'Error400'),
            '401': ref('responses', 'Error401'),
            '413': ref('responses', 'Error413'),
            '415': ref('responses', 'Error415'),
            '503': ref('responses', 'Error503'),
          },
        },
      },
      '/console': plainGet(
        'console',
        'The debugging page: sign in with a key, see the account, try both operations, chart the rows',
        'An HTML page.',
        'text/html',
        'string',
      ),
      '/openapi.json': plainGet('openapi', 'This document', 'The OpenAPI 3.1 document.', 'application/json', 'object'),
      '/metrics': plainGet('metrics', 'Prometheus metrics of this server process', 'Prometheus text exposition format.', 'text/plain', 'string'),
      '/healthz': {
        get: {
          operationId: 'healthz',
          summary: 'Liveness: 200 once the server can serve',
          tags: ['operations'],
          responses: {
            '200': {
              description: 'Ready.',
              content: { 'application/json': { schema: { type: 'object', properties: { status: { type: 'string', const: 'ok' } } } } },
            },
            '503': {
              description: 'The shared state database (`--state-url`) cannot be reached: this process cannot admit requests until it returns.',
              headers: { 'Retry-After': { description: 'Whole seconds to wait.', schema: { type: 'integer', minimum: 1 } } },
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    properties: { status: { type: 'string', const: 'unavailable' }, state: { type: 'string' }, message: { type: 'string' } },
                  },
                },
              },
            },
          },
        },
      },
    },
    components: {
      schemas: {
        ApiRequest: {
          description: 'The common request body; `apiname` selects the operation and the shape of `params`.',
          oneOf: [
            ...DETAILED_DOCS.map((d) => ref('schemas', `${d.name}Request`)),
            ref('schemas', 'TickHistoryRequest'),
            ...BAR_DOCS.map((d) => ref('schemas', `${d.name}Request`)),
            ref('schemas', 'TradecalRequest'),
          ],
          discriminator: {
            propertyName: 'apiname',
            mapping: {
              ...Object.fromEntries(DETAILED_DOCS.map((d) => [d.apiname, `#/components/schemas/${d.name}Request`])),
              tick_history: '#/components/schemas/TickHistoryRequest',
              ...Object.fromEntries(BAR_DOCS.map((d) => [d.apiname, `#/components/schemas/${d.name}Request`])),
              tradecal: '#/components/schemas/TradecalRequest',
            },
          },
        },
        ...Object.fromEntries(DETAILED_DOCS.flatMap((d) => detailedSchemas(d))),
        ...Object.fromEntries(BAR_DOCS.flatMap((d) => barSchemas(d))),
        TradecalRequest: {
          ...request('tradecal', fieldsMember(TRADECAL_FIELDS), ref('schemas', 'TradecalParams')),
          description: 'tradecal: every calendar date of the range with is_open (1/0) and pretrade_date (the trading day before it); open to every plan.',
        },
        TradecalParams: paramsObject('tradecal params', tradecalParams, []),
        TradecalResponse: envelope('tradecal result', closedObject(['fields', 'items'], { fields: fieldNames(TRADECAL_FIELDS), items: ITEMS }), {
          type: 'string',
          const: 'success',
        }),
        TickHistoryRequest: request('tick_history', fieldsMember(ix), ref('schemas', 'TickHistoryParams')),
        TickHistoryParams: paramsObject('tick_history params', tickParams, []),
        TickHistoryResponse: envelope(
          'tick_history result',
          closedObject(['fields', 'items'], {
            fields: fieldNames(ix),
            items: ITEMS,
            limit: { type: 'integer', minimum: 1, maximum: ENHANCED_LIMIT, description: 'Enhanced and boundary modes: the limit applied.' },
            offset: { type: 'integer', minimum: 0, description: 'Enhanced and boundary modes: the offset applied.' },
            has_more: { type: 'boolean', description: 'Enhanced and boundary modes: whether rows follow.' },
            live: {
              type: 'boolean',
              const: true,
              description:
                'Present (true) only when the answer read a live day: a trading day whose rows are staged, not yet sealed, answered with exactly the rows the seal would write from what is staged now. A boundary before a minute that has not passed yet is no data so far on a live day.',
            },
          }),
          {
            type: 'string',
            pattern:
              '^(?:success(?:; requested \\d{8}-\\d{8}, effective \\d{8}-\\d{8})?|no data(?:; requested \\d{8}-\\d{8}, effective \\d{8}-\\d{8})?(?:; .+)?)$',
            description:
              'success or no data; a range request (startdate, enddate or recentdays) adds "; requested YYYYMMDD-YYYYMMDD, effective YYYYMMDD-YYYYMMDD"; no data then ends with "; " and the reason (not a trading day, after the latest trading day, no trading day in the effective range, not stored, no snapshot at the boundary).',
          },
        ),
      },
      responses: Object.fromEntries(ERROR_CODES.map((c) => [`Error${c}`, errorResponse(c)])),
      headers: {
        RetryAfter: { description: 'Whole seconds to wait before retrying (429 and 503 only).', required: true, schema: { type: 'integer', minimum: 1 } },
        ContentDisposition: { description: 'Parquet downloads only: attachment; filename="SYMBOL_YYYYMMDD.parquet".', schema: { type: 'string' } },
        TickvaultReason: {
          description:
            'Error answers only: the rule that answered. ' +
            'A 503 "damaged" is a stored file damaged at this site: waiting helps only once it is repaired; another site may serve it.',
          schema: { type: 'string', enum: [...ERROR_REASONS] },
        },
        TickvaultVersion: {
          description: 'Parquet downloads only: the version of the stored file (1 as sealed, N after a restatement).',
          schema: { type: 'integer', minimum: 1 },
        },
      },
    },
  };
}
