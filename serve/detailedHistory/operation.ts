/**
 * The detailed history interfaces (spec + api-contract: Detailed history, Trades and orders): one stock, one trading day, from
 * the sealed file of the interface's dataset (level2 snapshots, trades or orders), as
 * cursor-paged JSON or as the stored Parquet file itself. One operation, made per interface:
 * every rule is the same, and each interface has its own counts and slot (the app keys them
 * by apiname). Its services come in once, when the app is made (serve/operations.ts).
 */
import { isTradingDay, latestTradingDay } from '../../calendar/tradingCalendar.js';
import type { CatalogFile, CatalogReader } from '../../storage/catalog.js';
import { SCHEMAS } from '../../shared/schema.js';
import type { FileColumnCache } from '../reading/fileColumns.js';
import { lakeFileStream, type LakeFiles } from '../../storage/lakeFiles.js';
import { parseLevel2Query, MAX_PAGE_SIZE, type Level2Query } from './params.js';
import { planPage } from './paging.js';
import { firstRowAtOrAfter } from '../reading/rowSearch.js';
import { spanTimeLookup } from '../reading/rowTimes.js';
import { minuteStarts } from '../../storage/minuteIndex.js';
import { pageRowsJson, type RowJsonMaker } from './rows.js';
import type { RowTextSource } from './rowTextSource.js';
import type { CursorCodec } from './cursor.js';
import { successPieces } from '../http/envelope.js';
import type { JsonPiece } from '../http/jsonPieces.js';
import { badRequest, versionMissing } from '../http/apiError.js';
import type { Operation, OperationContext, OperationResult } from '../http/operation.js';
import type { DetailedApiName } from '../access/plans.js';
import { DATASET_OF, type DetailedDataset } from './interfaces.js';
import { requireAnswerableDate } from '../reading/answerableDates.js';
import { noDataOnDay } from '../reading/noDataReason.js';
import type { LiveStaging, LiveSymbolDay } from '../reading/liveStaging.js';
import { filePositionAfter, LIVE_PARQUET_REASON, livePage } from './livePage.js';

export const PARQUET_MEDIA_TYPE = 'application/vnd.apache.parquet';

/** What a detailed history operation reads through; shared by the three. */
export interface DetailedHistoryDeps {
  readonly dataDir: string;
  readonly catalog: CatalogReader;
  /** Decoded columns and serialised rows of sealed files. */
  readonly columns: FileColumnCache;
  /** The cursor codec (signing key from the state store: the same on every site). */
  readonly cursors: CursorCodec;
  /** Row-JSON workers for pages not yet cached; null: rows made on the main thread. */
  readonly rowJson: RowJsonMaker | null;
  /** Sealed files' row text, read before anything is decoded; null: never used. */
  readonly rowText: RowTextSource | null;
  /** Staging, for live days (api-contract: The live day); null: sealed days only. */
  readonly live: LiveStaging | null;
}

export function detailedHistoryOperation(apiname: DetailedApiName, deps: DetailedHistoryDeps): Operation {
  const dataset = DATASET_OF[apiname];
  return {
    apiname,
    async handle(req, ctx) {
      const q = parseLevel2Query(req, deps.cursors, apiname);
      if (q.tradedate !== null) requireAnswerableDate(`params.tradedate ${q.tradedate}`, q.tradedate, ctx.nowMs);
      // The latest trading day of the calendar in Beijing time, stored or not: no fallback.
      const tradedate = q.tradedate ?? latestTradingDay(ctx.nowMs);
      await ctx.authorize([tradedate], { parquet: q.format === 'parquet' });
      await ctx.acquireSlot();
      const listed = () => (isTradingDay(tradedate) ? fileToRead(deps.catalog, dataset, tradedate, q) : null);
      let file = listed();
      if (!file) {
        // No file listed: the day may be live (staged, not sealed), up to today.
        const live = isTradingDay(tradedate) && tradedate <= latestTradingDay(ctx.nowMs) ? deps.live?.symbolDay(dataset, tradedate, q.symbol) : undefined;
        if (live !== undefined) return liveAnswer(deps, apiname, q, tradedate, live);
        // Not live: it may have been sealed between the two looks (its staging is gone once listed).
        file = listed();
        if (!file) return noData(dataset, q, tradedate, noDataOnDay(tradedate, ctx.nowMs, notStored(deps.catalog, req.params.symbol, q.symbol, tradedate)));
      }
      // Nothing of a file whose bytes are not the catalog's goes out, as rows or as the file (api-contract 74).
      await deps.columns.integrity.check(file);
      if (q.format === 'parquet') return parquetFile(ctx, deps.columns.lake, file);
      return jsonPage(deps, apiname, q, file);
    },
  };
}

/**
 * The current version, or the one a new-kind cursor was issued on (api-contract: Corrections):
 * a cursor pages its version to the end, never a mix. A version this site does not hold yet (a
 * cursor from a site that applied a restatement first) is a 503 to retry, never other rows.
 */
function fileToRead(catalog: CatalogReader, dataset: DetailedDataset, tradedate: string, q: Level2Query): CatalogFile | null {
  if (q.start.kind !== 'token') return catalog.file(dataset, tradedate, q.symbol);
  const file = catalog.fileVersion(dataset, tradedate, q.symbol, q.start.version);
  if (file !== null) return file;
  const current = catalog.file(dataset, tradedate, q.symbol);
  if (current === null) return null;
  // Versions only grow: an older one missing was removed here (tickvault prune-versions).
  if (current.version > q.start.version) {
    throw badRequest(
      `params.cursor pages version ${q.start.version} of ${q.symbol} ${tradedate}, which was removed here; start again without the cursor (the current version is ${current.version})`,
    );
  }
  throw versionMissing(
    `params.cursor pages version ${q.start.version} of ${q.symbol} ${tradedate}, which this site does not hold (yet); retry, or start again without the cursor`,
    VERSION_RETRY_SEC,
  );
}

/** A site applies a restatement in seconds to minutes: ask again soon. */
const VERSION_RETRY_SEC = 30;

function fieldNames(dataset: DetailedDataset, q: Level2Query): string[] {
  return q.fields.map((i) => SCHEMAS[dataset].fieldNames[i]);
}

/** The envelope around a page's rows (cached bytes, spliced in) and the interface's own data members. */
function envelope(
  dataset: DetailedDataset,
  message: string,
  q: Level2Query,
  tradedate: string,
  items: readonly JsonPiece[],
  nextCursor: string | null,
  hasMore: boolean,
  version: number | null,
  live = false,
): JsonPiece[] {
  const rest =
    `,"tradedate":${JSON.stringify(tradedate)},"page_size":${q.format === 'json' ? q.pageSize : MAX_PAGE_SIZE},` +
    `"next_cursor":${nextCursor === null ? 'null' : JSON.stringify(nextCursor)},"has_more":${hasMore}` +
    (version === null ? '' : `,"version":${version}`) +
    // Only live answers say so: a sealed day's bytes stay what they were (api-contract: The live day).
    (live ? ',"live":true' : '');
  return successPieces(message, fieldNames(dataset, q), items, rest);
}

function noData(dataset: DetailedDataset, q: Level2Query, tradedate: string, reason: string, live = false): OperationResult {
  return { kind: 'rawJson', body: envelope(dataset, `no data; ${reason}`, q, tradedate, [], null, false, null, live), rows: 0 };
}

/** A live day's answer: its page of staged rows, or no data (a Parquet download, a symbol with nothing staged yet). */
function liveAnswer(deps: DetailedHistoryDeps, apiname: DetailedApiName, q: Level2Query, tradedate: string, day: LiveSymbolDay): OperationResult {
  const dataset = DATASET_OF[apiname];
  if (q.format === 'parquet') return noData(dataset, q, tradedate, LIVE_PARQUET_REASON, true);
  if (day.rows === 0) return noData(dataset, q, tradedate, `${q.symbol} has no rows staged yet for ${tradedate} (the day is live)`, true);
  const page = livePage(dataset, tradedate, q, day);
  const next =
    page.nextAfter === null
      ? null
      : deps.cursors.encode({ apiname, symbol: q.symbol, tradedate, startMs: q.startMs, endMs: q.endMs, position: 0, version: 1, after: page.nextAfter });
  const message =
    page.rows > 0
      ? 'success'
      : `no data; ${page.inWindow > 0 ? 'the cursor is past the last row' : `${q.symbol} has no rows between params.start_time and params.end_time on ${tradedate}`}`;
  return { kind: 'rawJson', body: envelope(dataset, message, q, tradedate, page.items, next, next !== null, null, true), rows: page.rows };
}

/**
 * "Not stored", with a hint when six bare digits were probably meant as an index: `000300`
 * resolves to the stock 000300.SZ (api-contract: Symbols), but the index 000300 is tick_history's.
 * An index is assumed when one is stored under that code for the day, or the code is in
 * Shenzhen's index range 399xxx, which no stock uses.
 */
function notStored(catalog: CatalogReader, raw: unknown, symbol: string, tradedate: string): string {
  const base = `${symbol} is not stored for ${tradedate}`;
  const six = symbol.slice(0, 6);
  if (typeof raw !== 'string' || raw.trim() !== six) return base;
  if (!six.startsWith('399') && !catalog.file('index', tradedate, six)) return base;
  return `${base} (${six} was read as the stock ${symbol}; the index ${six} is served by tick_history)`;
}

async function jsonPage(deps: DetailedHistoryDeps, apiname: DetailedApiName, q: Level2Query, file: CatalogFile): Promise<OperationResult> {
  const dataset = DATASET_OF[apiname];
  const { columns: cache, cursors, rowJson, rowText } = deps;
  const starts = minuteStarts(file.minuteIndex);
  const [lo, hiRaw] = await Promise.all([
    q.startMs === null ? 0 : firstRowAtOrAfter(file, starts, q.startMs, spanTimeLookup(cache, file)),
    // end_time is inclusive: the filtered rows end before the first row later than it.
    q.endMs === null ? file.rows : firstRowAtOrAfter(file, starts, q.endMs + 1, spanTimeLookup(cache, file)),
  ]);
  // A live cursor on a day sealed since: after its key in the file, which holds the same rows.
  const start =
    q.start.kind === 'token' && q.start.after !== undefined ? { ...q.start, position: await filePositionAfter(cache, file, q.start.after) } : q.start;
  const plan = planPage({ lo, hi: Math.max(lo, hiRaw) }, start, q.pageSize);
  const items = await pageRowsJson(cache, file, plan.first, plan.end, q.fields, { rowText, pool: rowJson });
  const next = plan.hasMore
    ? cursors.encode({ apiname, symbol: file.symbol, tradedate: file.tradedate, startMs: q.startMs, endMs: q.endMs, position: plan.end, version: file.version })
    : null;
  const message = plan.end > plan.first ? 'success' : `no data; ${emptyPageReason(q, file, plan.lo === plan.hi)}`;
  return { kind: 'rawJson', body: envelope(dataset, message, q, file.tradedate, items, next, plan.hasMore, file.version), rows: plan.end - plan.first };
}

function emptyPageReason(q: Level2Query, file: CatalogFile, noneInWindow: boolean): string {
  if (!noneInWindow) return 'the cursor is past the last row';
  if (q.startMs !== null || q.endMs !== null) return `${file.symbol} has no rows between params.start_time and params.end_time on ${file.tradedate}`;
  return `${file.symbol} has no rows stored for ${file.tradedate}`;
}

/**
 * The stored file itself, streamed. The quota unit is taken once the file is open (found) and
 * just before its first byte goes out; a failure to take it closes the file unsent.
 */
async function parquetFile(ctx: OperationContext, lake: LakeFiles, file: CatalogFile): Promise<OperationResult> {
  const f = await lake.open(file.path);
  try {
    await ctx.chargeParquet();
    // Large reads: a stock-day file (~0.4 MB) goes out in two or three chunks, not seven; an
    // offloaded one block-checked run by run as it streams (a wrong byte ends the stream).
    const body = lakeFileStream(f, 256 * 1024);
    return {
      kind: 'stream',
      contentType: PARQUET_MEDIA_TYPE,
      headers: { 'Content-Disposition': `attachment; filename="${file.symbol}_${file.tradedate}.parquet"`, 'X-Tickvault-Version': String(file.version) },
      length: f.size,
      body,
      rows: file.rows,
    };
  } catch (e) {
    await f.close();
    throw e;
  }
}
