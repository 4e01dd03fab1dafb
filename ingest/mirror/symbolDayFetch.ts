/**
 * One symbol-day from the upstream, whole, into the spool: the stored Parquet file while the
 * account may download it, else every JSON page (all fields) until `has_more` is false; index
 * days by tick_history's enhanced mode paged by offset. The upstream's "no data" is an answer
 * (the day has no such symbol), not an error.
 *
 * What the upstream refuses decides what comes next: a Parquet download refused for its quota
 * (429 with a Retry-After of hours) or for the plan (403) moves the interface to JSON pages
 * for good; a JSON page refused so (403: no access or beyond the history depth; 429: trial
 * calls spent) stops the interface, as InterfaceStopped, for the caller to report.
 */
import { Writable } from 'node:stream';
import { TickvaultDownloadError, TickvaultError, type Level2Page, type TickHistoryData } from '../../client/index.js';
import type { TickvaultClient } from '../../client/index.js';
import { SCHEMAS, type Dataset } from '../../shared/schema.js';
import { parseStockSymbol } from '../../shared/symbols.js';
import type { Logger } from '../../shared/logger.js';
import type { FetchedSymbolDay } from './mirrorRecords.js';
import { spoolCsv, spoolCsvText, spoolParquet } from './spool.js';
import type { Upstream, UpstreamInterface } from './upstream.js';

export const INTERFACE_OF: Readonly<Record<Dataset, UpstreamInterface>> = {
  level2: 'level2_quote_history',
  trade: 'level2_trade_history',
  order: 'level2_order_history',
  index: 'tick_history',
};

/** The interface cannot go on (plan, history depth, trial calls): `reason` is the line to print. */
export class InterfaceStopped extends Error {
  override name = 'InterfaceStopped';
}

/**
 * The upstream's stored file of a symbol-day is damaged there (503, `X-Tickvault-Reason:
 * damaged`): waiting does not mend it, and a day sealed without the symbol would be wrong.
 */
export class UpstreamFileDamaged extends Error {
  override name = 'UpstreamFileDamaged';
}

/** `e` as UpstreamFileDamaged when it is the upstream's damaged-file answer; null otherwise. */
function damagedAtUpstream(e: unknown, dataset: Dataset, tradedate: string, symbol: string): UpstreamFileDamaged | null {
  if (!(e instanceof TickvaultError) || e.reason !== 'damaged') return null;
  return new UpstreamFileDamaged(`the upstream's ${dataset} of ${symbol} ${tradedate} is damaged there (503: ${e.message})`);
}

export interface FetchContext {
  readonly upstream: Upstream;
  readonly dataDir: string;
  readonly spoolRoot: string;
  readonly log: Logger;
  /** Per interface: still downloading Parquet, or paging JSON since the quota or plan said no. */
  readonly jsonOnly: Set<UpstreamInterface>;
}

const PAGE_SIZE = 10_000;
const TICK_LIMIT = 6000;

export async function fetchSymbolDay(ctx: FetchContext, dataset: Dataset, tradedate: string, symbol: string): Promise<FetchedSymbolDay> {
  const iface = INTERFACE_OF[dataset];
  if (dataset !== 'index' && !ctx.jsonOnly.has(iface)) {
    const downloaded = await download(ctx, dataset, tradedate, symbol);
    if (downloaded !== null) return downloaded;
  }
  return ctx.upstream.on(iface, async (client) => {
    const pages = dataset === 'index' ? indexPages(client, tradedate, symbol) : detailedPages(client, dataset, tradedate, symbol);
    let fields: readonly string[] | null = null;
    const items: (readonly unknown[])[][] = [];
    let rows = 0;
    try {
      for await (const page of pages) {
        if (fields === null) fields = page.fields;
        else if (page.fields.join(',') !== fields.join(',')) throw new Error(`${iface} changed its fields between pages of ${symbol} ${tradedate}`);
        checkRows(page.fields, page.items, dataset, tradedate, symbol, iface);
        items.push(page.items);
        rows += page.items.length;
      }
    } catch (e) {
      throw damagedAtUpstream(e, dataset, tradedate, symbol) ?? stopOr(e, iface);
    }
    if (rows === 0 || fields === null) return { dataset, tradedate, symbol, via: 'nodata', rows: 0, spool: null };
    const spool = await spoolCsv(ctx.dataDir, ctx.spoolRoot, dataset, tradedate, symbol, spoolCsvText(fields, items));
    return { dataset, tradedate, symbol, via: 'json', rows, spool };
  });
}

/**
 * The upstream's stored file of a stock symbol-day (its `format: "parquet"` download, one
 * request on the dataset's interface), in memory; null when the upstream stores none. Errors
 * are the client's (TickvaultError, TickvaultDownloadError) for the caller to read.
 */
export async function downloadStoredFile(upstream: Upstream, dataset: Exclude<Dataset, 'index'>, tradedate: string, symbol: string): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk);
      done();
    },
  });
  const result = await upstream.on(INTERFACE_OF[dataset], (client) => {
    const params = { symbol, tradedate };
    if (dataset === 'level2') return client.downloadLevel2Parquet(params, sink);
    if (dataset === 'trade') return client.downloadTradeParquet(params, sink);
    return client.downloadOrderParquet(params, sink);
  });
  return result.written ? Buffer.concat(chunks) : null;
}

/** The file, null when this interface no longer downloads (the caller pages JSON instead). */
async function download(ctx: FetchContext, dataset: Exclude<Dataset, 'index'>, tradedate: string, symbol: string): Promise<FetchedSymbolDay | null> {
  const iface = INTERFACE_OF[dataset];
  let bytes: Buffer | null;
  try {
    bytes = await downloadStoredFile(ctx.upstream, dataset, tradedate, symbol);
    if (bytes === null) return { dataset, tradedate, symbol, via: 'nodata', rows: 0, spool: null };
  } catch (e) {
    const damaged = damagedAtUpstream(e, dataset, tradedate, symbol);
    if (damaged) throw damaged;
    if (e instanceof TickvaultError && (e.code === 429 || e.code === 403)) {
      ctx.jsonOnly.add(iface);
      ctx.log.warn({ interface: iface, code: e.code, reason: e.message }, 'Parquet downloads refused; the rest of this interface comes as JSON pages');
      return null;
    }
    if (e instanceof TickvaultDownloadError) {
      // The unit is spent either way; the same rows by pages cost no second one.
      ctx.log.warn({ interface: iface, symbol, tradedate, reason: e.message }, 'Parquet download broke off; this symbol-day comes as JSON pages');
      return null;
    }
    throw e;
  }
  const { rows, spool } = await spoolParquet(ctx.dataDir, ctx.spoolRoot, dataset, tradedate, symbol, bytes);
  return { dataset, tradedate, symbol, via: 'parquet', rows, spool };
}

async function* detailedPages(client: TickvaultClient, dataset: Dataset, tradedate: string, symbol: string): AsyncGenerator<Level2Page> {
  const params = { symbol, tradedate, page_size: PAGE_SIZE };
  const pages =
    dataset === 'level2'
      ? client.level2QuoteHistoryPages(params)
      : dataset === 'trade'
        ? client.level2TradeHistoryPages(params)
        : client.level2OrderHistoryPages(params);
  for await (const page of pages) {
    if (page.tradedate !== tradedate) throw new Error(`the upstream answered ${dataset} of ${symbol} for ${page.tradedate}, asked ${tradedate}`);
    yield page;
  }
}

function indexPages(client: TickvaultClient, tradedate: string, symbol: string): AsyncGenerator<TickHistoryData> {
  return client.tickHistoryPages({ symbols: symbol, tradedate, limit: TICK_LIMIT });
}

/** Every row of the pages is of the symbol-day asked for, in the dataset's fields. */
function checkRows(
  fields: readonly string[],
  items: readonly (readonly unknown[])[],
  dataset: Dataset,
  tradedate: string,
  symbol: string,
  iface: string,
): void {
  const expected = SCHEMAS[dataset].fieldNames;
  if (fields.join(',') !== expected.join(',')) throw new Error(`${iface} answered fields ${fields.join(',')}, not ${expected.join(',')}`);
  const s = fields.indexOf('symbol');
  const d = fields.indexOf('tradedate');
  for (const row of items) {
    if (row[s] !== symbol || row[d] !== tradedate) {
      throw new Error(`${iface} answered a row of ${String(row[s])} ${String(row[d])} for ${symbol} ${tradedate}`);
    }
  }
}

/** A refusal that ends the interface, as InterfaceStopped; anything else as it was. */
function stopOr(e: unknown, iface: UpstreamInterface): unknown {
  if (e instanceof TickvaultError && (e.code === 403 || e.code === 429)) {
    const wait = e.retryAfterSec === undefined ? '' : ` (the upstream said to retry after ${e.retryAfterSec} s)`;
    return new InterfaceStopped(`${iface} stopped: the upstream answered ${e.code}: ${e.message}${wait}`);
  }
  return e;
}

/**
 * Every symbol the upstream stores on a day, from a whole-market tick_history boundary query
 * (the last snapshot before 23:59 exists for every symbol with any snapshot that day), paged by
 * offset: stocks from the level-2 lake (`asset=stock`, six digits, made canonical here) or
 * indexes.
 */
export async function discoverSymbols(upstream: Upstream, asset: 'stock' | 'index', tradedate: string): Promise<string[]> {
  return upstream.on('tick_history', async (client) => {
    const found: string[] = [];
    try {
      for await (const page of client.tickHistoryPages({ asset, tradedate, trademin: '23:59', side: 'before', limit: TICK_LIMIT }, { fields: 'symbol' })) {
        for (const [code] of page.items) {
          if (asset === 'index') {
            found.push(String(code));
            continue;
          }
          const parsed = parseStockSymbol(code);
          if (!parsed.ok) throw new Error(`the upstream listed ${String(code)} as a stock: it ${parsed.reason}`);
          found.push(parsed.symbol);
        }
      }
    } catch (e) {
      throw stopOr(e, 'tick_history');
    }
    return found.sort();
  });
}
