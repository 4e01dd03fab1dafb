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
