/**
 * `tickvault/client`: a typed client of `POST /api` on Node's global fetch, no other
 * dependency. One method per operation, async iterators for paging, a Parquet download,
 * and failures as typed errors (TickvaultError, TickvaultDownloadError, TickvaultPagingError),
 * each saying whether it is `retriable` (their base, TickvaultBaseError; `isRetriable`).
 */
import { writeParquet, type DownloadResult, type DownloadTarget } from './download.js';
import { level2Pages, offsetPages } from './paging.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retryPolicy.js';
import { successOf, Transport } from './transport.js';
import type {
  ApiResult,
  BarPage,
  BarParams,
  CallOptions,
  DailyAuc,
  DailyBar,
  FieldCallOptions,
  FieldsOf,
  Level2Page,
  Level2ParquetParams,
  Level2QuoteHistoryParams,
  MinuteBar,
  MinuteParams,
  Rows,
  TickHistoryData,
  TickHistoryParams,
  TradeCalData,
  TradeCalDay,
  TradeCalParams,
} from './types.js';

export interface ClientOptions {
  /** The server, e.g. `http://localhost:8080`. */
  readonly baseUrl: string;
  readonly apikey: string;
  /** Retries of 429/503; see RetryPolicy. */
  readonly retry?: Partial<RetryPolicy>;
  /** Another fetch (a wrapper that logs, counts or sets a dispatcher); global fetch by default. */
  readonly fetch?: typeof fetch;
  /** Jitter source in [0, 1); Math.random by default. */
  readonly random?: () => number;
}

export class TickvaultClient {
  private readonly transport: Transport;
  constructor(private readonly opts: ClientOptions) {
    this.transport = new Transport({
      baseUrl: opts.baseUrl,
      retry: { ...DEFAULT_RETRY_POLICY, ...opts.retry },
      fetch: opts.fetch ?? globalThis.fetch,
      random: opts.random ?? Math.random,
    });
  }

  /** One page of `level2_quote_history`. */
  async level2QuoteHistory(params: Level2QuoteHistoryParams, opts: CallOptions = {}): Promise<ApiResult<Level2Page>> {
    return successOf<Level2Page>(await this.post('level2_quote_history', params, opts));
  }

  /** One page of `level2_trade_history` (tick-by-tick trades; same parameters as level 2). */
  async level2TradeHistory(params: Level2QuoteHistoryParams, opts: CallOptions = {}): Promise<ApiResult<Level2Page>> {
    return successOf<Level2Page>(await this.post('level2_trade_history', params, opts));
  }

  /** One page of `level2_order_history` (tick-by-tick orders; same parameters as level 2). */
  async level2OrderHistory(params: Level2QuoteHistoryParams, opts: CallOptions = {}): Promise<ApiResult<Level2Page>> {
    return successOf<Level2Page>(await this.post('level2_order_history', params, opts));
  }

  /** One answer of `tick_history` (one page of an enhanced query). */
  async tickHistory(params: TickHistoryParams, opts: CallOptions = {}): Promise<ApiResult<TickHistoryData>> {
    return successOf<TickHistoryData>(await this.post('tick_history', params, opts));
  }

  /** Every page of a level-2 day (from `params.cursor`, or the start), by cursor. */
  level2QuoteHistoryPages(params: Level2QuoteHistoryParams, opts: CallOptions = {}): AsyncGenerator<Level2Page, void, undefined> {
    return level2Pages((p) => this.level2QuoteHistory(p, opts), params);
  }

  /** Every page of a stock's trades of a day, by cursor. */
  level2TradeHistoryPages(params: Level2QuoteHistoryParams, opts: CallOptions = {}): AsyncGenerator<Level2Page, void, undefined> {
    return level2Pages((p) => this.level2TradeHistory(p, opts), params);
  }

  /** Every page of a stock's orders of a day, by cursor. */
  level2OrderHistoryPages(params: Level2QuoteHistoryParams, opts: CallOptions = {}): AsyncGenerator<Level2Page, void, undefined> {
    return level2Pages((p) => this.level2OrderHistory(p, opts), params);
  }

  /** Every page of an enhanced or boundary tick_history query, by offset. */
  tickHistoryPages(params: TickHistoryParams, opts: CallOptions = {}): AsyncGenerator<TickHistoryData, void, undefined> {
    return offsetPages((p: TickHistoryParams) => this.tickHistory(p, opts), params);
  }

  /**
   * One page of `minute`: bars of `period` (1m by default, 241 a stock-day; 5m … 60m),
   * ordered by symbol, date, then bar time; at most 6000 rows a page (`limit`/`offset`).
   */
  async minute<F extends FieldsOf<MinuteBar> = FieldsOf<MinuteBar>>(
    params: MinuteParams,
    opts: FieldCallOptions<F> = {},
  ): Promise<ApiResult<BarPage<MinuteBar, F>>> {
    return successOf<BarPage<MinuteBar, F>>(await this.post('minute', params, opts));
  }

  /** One page of `daily`: a row per stock-day with fills (`vol` in lots). */
  async daily<F extends FieldsOf<DailyBar> = FieldsOf<DailyBar>>(params: BarParams, opts: FieldCallOptions<F> = {}): Promise<ApiResult<BarPage<DailyBar, F>>> {
    return successOf<BarPage<DailyBar, F>>(await this.post('daily', params, opts));
  }

  /** One page of `weekly`: a row per stock and calendar week (`tradedate` its last trading day). */
  async weekly<F extends FieldsOf<DailyBar> = FieldsOf<DailyBar>>(params: BarParams, opts: FieldCallOptions<F> = {}): Promise<ApiResult<BarPage<DailyBar, F>>> {
    return successOf<BarPage<DailyBar, F>>(await this.post('weekly', params, opts));
  }

  /** One page of `monthly`: a row per stock and calendar month (`tradedate` its last trading day). */
  async monthly<F extends FieldsOf<DailyBar> = FieldsOf<DailyBar>>(
    params: BarParams,
    opts: FieldCallOptions<F> = {},
  ): Promise<ApiResult<BarPage<DailyBar, F>>> {
    return successOf<BarPage<DailyBar, F>>(await this.post('monthly', params, opts));
  }

  /** One page of `daily_auc`: the opening call auction of each stock-day. */
  async dailyAuc<F extends FieldsOf<DailyAuc> = FieldsOf<DailyAuc>>(
    params: BarParams,
    opts: FieldCallOptions<F> = {},
  ): Promise<ApiResult<BarPage<DailyAuc, F>>> {
    return successOf<BarPage<DailyAuc, F>>(await this.post('daily_auc', params, opts));
  }

  /** The trading calendar of a range (default the current year): every day, open or not; not paged. */
  async tradecal<F extends FieldsOf<TradeCalDay> = FieldsOf<TradeCalDay>>(
    params: TradeCalParams = {},
    opts: FieldCallOptions<F> = {},
  ): Promise<ApiResult<TradeCalData<F>>> {
    return successOf<TradeCalData<F>>(await this.post('tradecal', params, opts));
  }

  /** Every page of a `minute` query, by offset. */
  minutePages<F extends FieldsOf<MinuteBar> = FieldsOf<MinuteBar>>(
    params: MinuteParams,
    opts: FieldCallOptions<F> = {},
  ): AsyncGenerator<BarPage<MinuteBar, F>, void, undefined> {
    return offsetPages((p: MinuteParams) => this.minute(p, opts), params);
  }

  /** Every page of a `daily` query, by offset. */
  dailyPages<F extends FieldsOf<DailyBar> = FieldsOf<DailyBar>>(
    params: BarParams,
    opts: FieldCallOptions<F> = {},
  ): AsyncGenerator<BarPage<DailyBar, F>, void, undefined> {
    return offsetPages((p: BarParams) => this.daily(p, opts), params);
  }

  /** Every page of a `weekly` query, by offset. */
  weeklyPages<F extends FieldsOf<DailyBar> = FieldsOf<DailyBar>>(
    params: BarParams,
    opts: FieldCallOptions<F> = {},
  ): AsyncGenerator<BarPage<DailyBar, F>, void, undefined> {
    return offsetPages((p: BarParams) => this.weekly(p, opts), params);
  }

  /** Every page of a `monthly` query, by offset. */
  monthlyPages<F extends FieldsOf<DailyBar> = FieldsOf<DailyBar>>(
    params: BarParams,
    opts: FieldCallOptions<F> = {},
  ): AsyncGenerator<BarPage<DailyBar, F>, void, undefined> {
    return offsetPages((p: BarParams) => this.monthly(p, opts), params);
  }

  /** Every page of a `daily_auc` query, by offset. */
  dailyAucPages<F extends FieldsOf<DailyAuc> = FieldsOf<DailyAuc>>(
    params: BarParams,
    opts: FieldCallOptions<F> = {},
  ): AsyncGenerator<BarPage<DailyAuc, F>, void, undefined> {
    return offsetPages((p: BarParams) => this.dailyAuc(p, opts), params);
  }

  /**
   * The stored Parquet file of one stock and day, written to `target`. Costs one quota unit
   * once the file starts streaming; a broken download throws TickvaultDownloadError and is
   * not retried. No stored file: `{ written: false }` with the no-data message, nothing written.
   */
  async downloadLevel2Parquet(params: Level2ParquetParams, target: DownloadTarget, opts: { readonly signal?: AbortSignal } = {}): Promise<DownloadResult> {
    return writeParquet(await this.post('level2_quote_history', { ...params, format: 'parquet' }, opts), target);
  }

  /** The stored trade file of one stock and day (its own Parquet quota; otherwise as downloadLevel2Parquet). */
  async downloadTradeParquet(params: Level2ParquetParams, target: DownloadTarget, opts: { readonly signal?: AbortSignal } = {}): Promise<DownloadResult> {
    return writeParquet(await this.post('level2_trade_history', { ...params, format: 'parquet' }, opts), target);
  }

  /** The stored order file of one stock and day (its own Parquet quota; otherwise as downloadLevel2Parquet). */
  async downloadOrderParquet(params: Level2ParquetParams, target: DownloadTarget, opts: { readonly signal?: AbortSignal } = {}): Promise<DownloadResult> {
    return writeParquet(await this.post('level2_order_history', { ...params, format: 'parquet' }, opts), target);
  }

  private post(apiname: string, params: object, opts: CallOptions): Promise<Response> {
    const fields = typeof opts.fields === 'string' || opts.fields === undefined ? opts.fields : opts.fields.join(',');
    const body = { apiname, apikey: this.opts.apikey, params, ...(fields === undefined ? {} : { fields }) };
    return this.transport.post(body, opts.signal);
  }
}

/**
 * The rows of a page (or of a `tradecal` answer) as objects keyed by `fields`, typed by the
 * fields asked for: `rowsOf(await client.daily(p, { fields: ['tradedate', 'close'] }))` is
 * `{ tradedate: string; close: number }[]`.
 */
export function rowsOf<R, F extends FieldsOf<R>>(page: Rows<R, F>): Pick<R, F>[] {
  return page.items.map((row) => Object.fromEntries(page.fields.map((f, i) => [f, row[i]])) as Pick<R, F>);
}

export { isRetriable, TickvaultBaseError, TickvaultDownloadError, TickvaultError, TickvaultPagingError } from './errors.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retryPolicy.js';
export { PARQUET_MEDIA_TYPE, type DownloadResult, type DownloadTarget } from './download.js';
export type * from './types.js';
