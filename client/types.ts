/**
 * Request and response shapes of `POST /api`, as docs/api-contract.md defines them.
 * Rows stay `unknown[][]`: which columns they hold depends on `fields`, so `data.fields`
 * names them by position.
 */

/** The envelope of every answer; the HTTP status always equals `code`. */
export interface Envelope<D> {
  readonly code: number;
  readonly message: string;
  readonly data: D | null;
}

/** A successful answer: `code` 200; `message` is `success`, a `no data; …` reason or a range sentence. */
export interface ApiResult<D> {
  readonly code: 200;
  readonly message: string;
  readonly data: D;
}

/** Times: `HH:MM`, `HH:MM:SS`, `HH:MM:SS.mmm`, `HHMMSS` or `HHMMSSmmm`. */
export type TimeOfDay = string;

export interface Level2QuoteHistoryParams {
  /** One stock: `600000`, `600000.SH`, `SH600000`, `600000.XSHG`, … */
  readonly symbol: string;
  /** `YYYYMMDD`; default the latest trading day (no fallback when it is not stored). */
  readonly tradedate?: string;
  /** Included. */
  readonly start_time?: TimeOfDay;
  /** Included (unlike tick_history's end_time). */
  readonly end_time?: TimeOfDay;
  /** Default and cap 10000. */
  readonly page_size?: number;
  /** The previous page's `next_cursor`; omitted for the first page. */
  readonly cursor?: string | null;
  readonly format?: 'json';
}

/** `format: 'parquet'` takes none of cursor, page_size, start_time, end_time (400 with them). */
export interface Level2ParquetParams {
  readonly symbol: string;
  readonly tradedate?: string;
}

export interface Level2Page {
  readonly fields: string[];
  readonly items: unknown[][];
  /** The date actually queried. */
  readonly tradedate: string;
  /** The page size applied. */
  readonly page_size: number;
  readonly next_cursor: string | null;
  readonly has_more: boolean;
  /** The version of the symbol-day the rows are of (1 as sealed, N after a restatement; a cursor pages its version to the end). Absent in a no-data answer and on a live day. */
  readonly version?: number;
  /**
   * True on a live day: the day is not sealed yet and the rows are the ones staged so far
   * (exactly what the seal will write from them). Absent once sealed. To follow the day, ask
   * again with `start_time` at the last time held.
   */
  readonly live?: true;
}

export interface TickHistoryParams {
  /** `index` (default) or `stock`. */
  readonly asset?: 'index' | 'stock';
  /** Alone (with at most `tradedate`/`asset`): the compatible query, one symbol, one whole day. */
  readonly symbol?: string;
  /** Up to 200 codes, comma-separated or an array. */
  readonly symbols?: string | readonly string[];
  readonly tradedate?: string;
  readonly startdate?: string;
  readonly enddate?: string;
  readonly recentdays?: number;
  /** ≤ 0: 0 the latest trading day, -1 the one before. */
  readonly tradedate_offset?: number;
  readonly order_dir?: 'asc' | 'desc';
  /** Default and cap 6000. */
  readonly limit?: number;
  readonly offset?: number;
  /** `HHMM` or `HH:MM`: alone the whole minute; with `side` the boundary. */
  readonly trademin?: string;
  readonly side?: 'before' | 'after';
  /** Included. */
  readonly start_time?: TimeOfDay;
  /** Excluded (unlike level2_quote_history's end_time). */
  readonly end_time?: TimeOfDay;
}

export interface TickHistoryData {
  readonly fields: string[];
  readonly items: unknown[][];
  /** Enhanced and boundary modes only: the values applied after the cap. */
  readonly limit?: number;
  readonly offset?: number;
  readonly has_more?: boolean;
  /**
   * True when the answer read a live day (not sealed yet): its rows are the ones staged so far,
   * exactly what the seal will write from them. Absent once sealed. To follow the day, ask again
   * with `start_time` at the last time held.
   */
  readonly live?: true;
}

/** Options of one call. */
export interface CallOptions {
  /** Columns, as a comma-separated string or a list; omitted means every field in the contract's order. */
  readonly fields?: string | readonly string[];
  readonly signal?: AbortSignal;
}

/** The names of a row type's fields. */
export type FieldsOf<R> = Extract<keyof R, string>;

/**
 * Options of one call of a bar interface or `tradecal`. `fields` is a list here (not a
 * comma-separated string) so that the rows' type follows it: `fields: ['time', 'close']`
 * makes the page's `fields` `('time' | 'close')[]` and `rowsOf` give `{ time, close }`.
 */
export interface FieldCallOptions<F extends string> {
  /** Columns in this order; omitted means every field in the contract's order. */
  readonly fields?: readonly F[];
  readonly signal?: AbortSignal;
}

/** The periods of `minute`; `1h` is `60m` as the vendor's clients write it. */
export type MinutePeriod = '1m' | '5m' | '15m' | '30m' | '60m' | '1h';

/**
 * Parameters of `daily`, `weekly`, `monthly` and `daily_auc`: the stocks and one of `tradedate`,
 * `startdate`+`enddate` or `recentdays` (as tick_history's, without its month clipping).
 */
export interface BarParams {
  /** Up to 200 stocks, comma-separated or an array, in any form: `600000`, `600000.SH`, `sh600000`, …; omitted, every stock. */
  readonly symbols?: string | readonly string[];
  /** `YYYYMMDD`. */
  readonly tradedate?: string;
  readonly startdate?: string;
  readonly enddate?: string;
  /** The latest N trading days. */
  readonly recentdays?: number;
  /** Rows a page: default and cap 6000. */
  readonly limit?: number;
  readonly offset?: number;
}

export interface MinuteParams extends BarParams {
  /** Required for minute. */
  readonly symbols: string | readonly string[];
  /** Default `1m`. */
  readonly period?: MinutePeriod;
}

export interface TradeCalParams {
  /** `YYYYMMDD`; default the current year's first day. */
  readonly startdate?: string;
  /** `YYYYMMDD`; default the current year's last day. */
  readonly enddate?: string;
  /** Ignored: SSE and SZSE share one calendar. */
  readonly exchange?: string;
}

/** A row of `minute`: one bar, labelled at its end. */
export interface MinuteBar {
  /** `YYYYMMDD`. */
  readonly tradedate: string;
  /** `600000.SH` / `000001.SZ`. */
  readonly symbol: string;
  /** `HHMM`, the bar's end (`0930` the opening call auction in 1m bars). */
  readonly trademin: string;
  /** `YYYY-MM-DD HH:MM:00` (Beijing). */
  readonly time: string;
  readonly open: number;
  readonly high: number;
  readonly low: number;
  readonly close: number;
  /** Shares. */
  readonly vol: number;
  /** Yuan. */
  readonly amount: number;
  /** amount / vol; the close in a bar without fills. */
  readonly vwap: number;
}

/** A row of `daily`, `weekly` or `monthly` (`tradedate` the last trading day of the week or month). */
export interface DailyBar {
  readonly tradedate: string;
  readonly symbol: string;
  /** Always null: no security names are stored. */
  readonly name: null;
  readonly open: number;
  readonly high: number;
  readonly low: number;
  readonly close: number;
  readonly pre_close: number;
  /** close − pre_close, to 0.01. */
  readonly change: number;
  /** change / pre_close × 100, to 4 decimals. */
  readonly pct_chg: number;
  /** Lots (100 shares). */
  readonly vol: number;
  /** Yuan. */
  readonly amount: number;
}

/** A row of `daily_auc`: the opening call auction of a stock-day. */
export interface DailyAuc {
  readonly tradedate: string;
  readonly symbol: string;
  /** Always null. */
  readonly name: null;
  /** The match price. */
  readonly m_price: number;
  readonly auc_pct_chg: number;
  /** Always null (the vendor does not publish its definition). */
  readonly open_bid_pct: null;
  /** Yuan. */
  readonly auc_amt: number;
  /** Shares. */
  readonly auc_vol: number;
  /** Always null (the vendor does not publish its definition). */
  readonly auc_vol_ratio: null;
  /** auc_vol / the previous trading day's volume × 100. */
  readonly auc_to_pre_vol_pct: number | null;
  /** auc_vol / the previous trading day's auc_vol. */
  readonly auc_to_pre_auc_vol_ratio: number | null;
  /** The volume left unmatched at the match price (0 when none). */
  readonly um_vol: number;
  /** `B` (bids left) or `S` (asks left); null when none. */
  readonly um_side: 'B' | 'S' | null;
  /** Always null (no share capital is stored). */
  readonly auc_turnover_rate: null;
  /** Always null (no share capital is stored). */
  readonly auc_turnover: null;
}

/** A row of `tradecal`. */
export interface TradeCalDay {
  /** `YYYYMMDD`. */
  readonly cal_date: string;
  /** 1 a trading day, 0 not. */
  readonly is_open: 0 | 1;
  /** The trading day before `cal_date` (`YYYYMMDD`). */
  readonly pretrade_date: string | null;
}

/**
 * Rows as the API sends them: each a list of values in `fields` order (`R` the row type of
 * the interface, `F` the fields asked for). `rowsOf` turns them into objects.
 */
export interface Rows<R, F extends FieldsOf<R> = FieldsOf<R>> {
  readonly fields: F[];
  readonly items: R[F][][];
  /** Never present: carries the row type for `rowsOf` to infer. */
  readonly [rowType]?: R;
}

/** A key no answer holds (types only). */
declare const rowType: unique symbol;

/** One page of a bar interface (paged by `limit`/`offset` like an enhanced tick_history query). */
export interface BarPage<R, F extends FieldsOf<R> = FieldsOf<R>> extends Rows<R, F> {
  /** The values applied after the cap. */
  readonly limit: number;
  readonly offset: number;
  readonly has_more: boolean;
  /** True when a live day (not sealed yet) was read: its bars so far, the minute in progress as it stands. */
  readonly live?: true;
}

/** The answer of `tradecal`: every day of the range, no paging. */
export type TradeCalData<F extends FieldsOf<TradeCalDay> = FieldsOf<TradeCalDay>> = Rows<TradeCalDay, F>;
