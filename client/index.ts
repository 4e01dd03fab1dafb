/**
 * `tickvault/client`: a typed client of `POST /api` on Node's global fetch, no other
 * dependency. One method per operation, async iterators for paging, a Parquet download,
 * and failures as typed errors (TickvaultError, TickvaultDownloadError, TickvaultPagingError),
 * each saying whether it is `retriable` (their base, TickvaultBaseError; `isRetriable`).
 */
import { writeParquet, type DownloadResult, type DownloadTarget } from './download.js';
import { level2Pages, tickPages } from './paging.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retryPolicy.js';
import { successOf, Transport } from './transport.js';
import type { ApiResult, CallOptions, Level2Page, Level2ParquetParams, Level2QuoteHistoryParams, TickHistoryData, TickHistoryParams } from './types.js';

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
    return tickPages((p) => this.tickHistory(p, opts), params);
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

export { isRetriable, TickvaultBaseError, TickvaultDownloadError, TickvaultError, TickvaultPagingError } from './errors.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retryPolicy.js';
export { PARQUET_MEDIA_TYPE, type DownloadResult, type DownloadTarget } from './download.js';
export type * from './types.js';
