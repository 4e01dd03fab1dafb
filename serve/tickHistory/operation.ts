/**
 * `tick_history` (spec + api-contract: tick_history) over the sealed index files: compatible mode (one
 * symbol-day, every row), enhanced plain detail (limit/offset pages over up to 200 symbols
 * and a month of days) and boundary snapshots (one row per index around a minute). Every mode
 * includes a live day (api-contract: The live day) from its staged rows (daySymbols.ts), and
 * an answer that read one says `"live":true`.
 */
import { tradingDaysInRange } from '../../calendar/tradingCalendar.js';
import { SCHEMAS } from '../../shared/schema.js';
import { dateMessage, effectiveSpan, type DateSelection } from './dateResolution.js';
import { noDataInRange, noDataOnDay } from '../reading/noDataReason.js';
import { successText } from '../http/envelope.js';
import type { Operation, OperationResult } from '../http/operation.js';
import type { CatalogReader } from '../../storage/catalog.js';
import type { FileColumnCache } from '../reading/fileColumns.js';
import type { DamagedFileError } from '../../storage/damagedFile.js';
import { BoundaryIndex, boundaryRowTexts } from './boundary.js';
import { calendarDates, TickDays } from './dayFiles.js';
import { DaySymbols, liveRowTexts, type DaySymbolList } from './daySymbols.js';
import { detailPage } from './detail.js';
import { parseTickQuery, type BoundaryQuery, type CompatibleQuery, type EnhancedQuery } from './params.js';
import { wholeFileText } from './rows.js';
import type { Asset } from '../../storage/tickShape.js';
import type { LiveStaging } from '../reading/liveStaging.js';
import { LiveBoundaries } from '../reading/liveBoundaries.js';
import { beijingDayStartMs } from '../../shared/clock.js';
import { MS_PER_MINUTE } from '../../shared/timeFormat.js';

const API = 'tick_history';

/** What tick_history reads through; it makes and owns its catalogs and boundary cache. */
export interface TickHistoryDeps {
  readonly dataDir: string;
  readonly catalog: CatalogReader;
  readonly columns: FileColumnCache;
  /** Memory for the boundary candidate rows (~170 KB per symbol-day), bytes. */
  readonly boundaryBytes: number;
  /** Told of a damaged boundary part (the answer then comes from the files). */
  readonly onDamagedPart: (e: DamagedFileError) => void;
  /** Staging, for live days (api-contract: The live day); null: sealed days only. */
  readonly live: LiveStaging | null;
}

export function tickHistoryOperation(deps: TickHistoryDeps): Operation {
  // Boundary candidates of both (keyed by file), and of a live day's staging in the same share.
  const boundaryIndex = new BoundaryIndex(deps.columns, deps.boundaryBytes, deps.onDamagedPart);
  const liveBoundaries = deps.live === null ? null : new LiveBoundaries(deps.dataDir, boundaryIndex.lru);
  // Index files, and level-2 files read as stock ticks.
  const catalogs: Readonly<Record<Asset, DaySymbols>> = {
    index: new DaySymbols('index', new TickDays(deps.catalog, 'index', deps.columns.lru), deps.live, liveBoundaries),
    stock: new DaySymbols('stock', new TickDays(deps.catalog, 'level2', deps.columns.lru), deps.live, liveBoundaries),
  };
  return {
    apiname: API,
    async handle(req, ctx) {
      const q = parseTickQuery(req.params, req.fields, ctx.nowMs);
      // Plan access and the trial's daily count come before any data is read; a call that
      // passes them counts whether or not it finds data (api-contract: Plans and limits).
      // Stock ticks are level-2 data: level 2's access and history depth, counted here (api-contract: tick_history).
      await ctx.authorize(datesRead(q.dates), q.asset === 'stock' ? { accessOf: 'level2_quote_history' } : {});
      const catalog = catalogs[q.asset];
      switch (q.mode) {
        case 'compatible':
          return compatible(deps.columns, catalog, q, ctx.nowMs);
        case 'enhanced':
          return enhanced(deps.columns, catalog, q, ctx.nowMs);
        case 'boundary':
          return boundary(boundaryIndex, catalog, q, ctx.nowMs);
      }
    },
  };
}

/** The trading days the request may read (for the plan's history-depth check). */
function datesRead(sel: DateSelection): string[] {
  if (sel.kind === 'day') return [sel.day];
  const span = effectiveSpan(sel);
  return tradingDaysInRange(span.from, span.to);
}

function envelope(message: string, fields: readonly number[], itemsText: string, extra = '', live = false): OperationResult {
  return {
    kind: 'rawJson',
    body: successText(
      message,
      fields.map((i) => SCHEMAS.index.fieldNames[i]),
      itemsText,
      // Only answers that read a live day say so: sealed days' bytes stay what they were.
      extra + (live ? ',"live":true' : ''),
    ),
  };
}

/** The one day of a single-day selection (boundary mode guarantees one). */
function singleDay(sel: DateSelection): string {
  return sel.kind === 'day' ? sel.day : sel.effective.to;
}

/** The no-data reason of a selection (api-contract: Envelope): calendar reasons first, then `notStored`. */
function noDataReason(sel: DateSelection, nowMs: number, notStored: string): string {
  return sel.kind === 'day' ? noDataOnDay(sel.day, nowMs, notStored) : noDataInRange(sel.effective, nowMs, notStored);
}

/** "for 20250103" or "in 20250101-20250131": where the request looked. */
function where(sel: DateSelection): string {
  const span = effectiveSpan(sel);
  return span.from === span.to ? `for ${span.from}` : `in ${span.from}-${span.to}`;
}

async function compatible(columns: FileColumnCache, days: DaySymbols, q: CompatibleQuery, nowMs: number): Promise<OperationResult> {
  const day = days.of(singleDay(q.dates), [q.symbol], nowMs);
  const item = day.items[0];
  if (!item) {
    const notStored = `${q.asset} ${q.symbol} ${day.live ? 'has no rows staged yet' : 'is not stored'} ${where(q.dates)}`;
    return envelope(dateMessage(q.dates, false, noDataReason(q.dates, nowMs, notStored)), q.fields, '', '', day.live);
  }
  const items =
    item.kind === 'file'
      ? await wholeFileText(columns, item.df.file, q.fields)
      : allLiveRows(item.live.day.rows, liveRowTexts(item.live, 0, item.live.day.rows, q.fields));
  return envelope(dateMessage(q.dates, true), q.fields, items, '', day.live);
}

function allLiveRows(rows: number, text: (position: number) => string): string {
  const parts = new Array<string>(rows);
  for (let p = 0; p < rows; p++) parts[p] = text(p);
  return parts.join(',');
}

/** The days of the selection with any of `symbols` (ascending). */
function daysOf(days: DaySymbols, sel: DateSelection, symbols: readonly string[], nowMs: number): DaySymbolList[] {
  const dates = sel.kind === 'day' ? [sel.day] : calendarDates(sel.effective.from, sel.effective.to);
  return dates.map((d) => days.of(d, symbols, nowMs)).filter((d) => d.items.length > 0 || d.live);
}

/** "indexes" or "stocks", for messages. */
const plural = (asset: Asset) => (asset === 'stock' ? 'stocks' : 'indexes');

async function enhanced(columns: FileColumnCache, catalog: DaySymbols, q: EnhancedQuery, nowMs: number): Promise<OperationResult> {
  const days = daysOf(catalog, q.dates, q.symbols, nowMs);
  const page = await detailPage(columns, days, q);
  const hasMore = q.offset + page.count < page.total;
  const stored = days.some((d) => d.items.length > 0);
  const notStored = stored
    ? `the requested ${plural(q.asset)} have no rows at the selected times ${where(q.dates)}`
    : `none of the requested ${plural(q.asset)} is stored ${where(q.dates)}`;
  return envelope(
    dateMessage(q.dates, page.total > 0, noDataReason(q.dates, nowMs, notStored)),
    q.fields,
    page.itemsText,
    `,"limit":${q.limit},"offset":${q.offset},"has_more":${hasMore}`,
    days.some((d) => d.live),
  );
}

async function boundary(index: BoundaryIndex, catalog: DaySymbols, q: BoundaryQuery, nowMs: number): Promise<OperationResult> {
  const date = singleDay(q.dates);
  const at = { minute: q.minute, side: q.side, nowMinute: Math.floor((nowMs - beijingDayStartMs(date)) / MS_PER_MINUTE) };
  const day = catalog.boundary(date, q.symbols, at, q.fields, nowMs);
  const { rows, total } = await boundaryRowTexts(index, day.items, at, q.fields, q);
  const minute = `${String(Math.floor(q.minute / 60)).padStart(2, '0')}:${String(q.minute % 60).padStart(2, '0')}`;
  const notStored =
    day.withRows > 0
      ? `no snapshot ${q.side === 'before' ? 'before' : 'at or after'} ${minute} on ${date}${day.live ? ' so far (the day is live)' : ''}`
      : q.symbols === null
        ? `no ${q.asset} is stored for ${date}`
        : `none of the requested ${plural(q.asset)} is stored for ${date}`;
  return envelope(
    dateMessage(q.dates, total > 0, noDataReason(q.dates, nowMs, notStored)),
    q.fields,
    rows.join(','),
    `,"limit":${q.limit},"offset":${q.offset},"has_more":${q.offset + rows.length < total}`,
    day.live,
  );
}
