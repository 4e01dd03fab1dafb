/**
 * `tick_history` (spec + api-contract: tick_history) over the sealed index files: compatible mode (one
 * symbol-day, every row), enhanced plain detail (limit/offset pages over up to 200 symbols
 * and a month of days) and boundary snapshots (one row per index around a minute).
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
import { TickDays, type DayFiles } from './dayFiles.js';
import { detailPage } from './detail.js';
import { parseTickQuery, type BoundaryQuery, type CompatibleQuery, type EnhancedQuery } from './params.js';
import { wholeFileText } from './rows.js';
import type { Asset } from '../../storage/tickShape.js';

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
}

export function tickHistoryOperation(deps: TickHistoryDeps): Operation {
  // Index files, and level-2 files read as stock ticks.
  const catalogs: Readonly<Record<Asset, TickDays>> = {
    index: new TickDays(deps.catalog, 'index', deps.columns.lru),
    stock: new TickDays(deps.catalog, 'level2', deps.columns.lru),
  };
  // Boundary candidates of both (keyed by file).
  const boundaryIndex = new BoundaryIndex(deps.dataDir, deps.columns, deps.boundaryBytes, deps.onDamagedPart);
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

function envelope(message: string, fields: readonly number[], itemsText: string, extra = ''): OperationResult {
  return {
    kind: 'rawJson',
    body: successText(
      message,
      fields.map((i) => SCHEMAS.index.fieldNames[i]),
      itemsText,
      extra,
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

async function compatible(columns: FileColumnCache, catalog: TickDays, q: CompatibleQuery, nowMs: number): Promise<OperationResult> {
  const df = catalog.day(singleDay(q.dates)).bySymbol.get(q.symbol);
  if (!df) return envelope(dateMessage(q.dates, false, noDataReason(q.dates, nowMs, `${q.asset} ${q.symbol} is not stored ${where(q.dates)}`)), q.fields, '');
  const items = await wholeFileText(columns, df.file, q.fields);
  return envelope(dateMessage(q.dates, true), q.fields, items);
}

function daysOf(catalog: TickDays, sel: DateSelection): DayFiles[] {
  if (sel.kind === 'day') {
    const day = catalog.day(sel.day);
    return day.files.length > 0 ? [day] : [];
  }
  return catalog.daysIn(sel.effective.from, sel.effective.to);
}

/** "indexes" or "stocks", for messages. */
const plural = (asset: Asset) => (asset === 'stock' ? 'stocks' : 'indexes');

async function enhanced(columns: FileColumnCache, catalog: TickDays, q: EnhancedQuery, nowMs: number): Promise<OperationResult> {
  const days = daysOf(catalog, q.dates);
  const page = await detailPage(columns, days, q);
  const hasMore = q.offset + page.count < page.total;
  const stored = days.some((d) => q.symbols.some((s) => d.bySymbol.has(s)));
  const notStored = stored
    ? `the requested ${plural(q.asset)} have no rows at the selected times ${where(q.dates)}`
    : `none of the requested ${plural(q.asset)} is stored ${where(q.dates)}`;
  return envelope(
    dateMessage(q.dates, page.total > 0, noDataReason(q.dates, nowMs, notStored)),
    q.fields,
    page.itemsText,
    `,"limit":${q.limit},"offset":${q.offset},"has_more":${hasMore}`,
  );
}

async function boundary(index: BoundaryIndex, catalog: TickDays, q: BoundaryQuery, nowMs: number): Promise<OperationResult> {
  const date = singleDay(q.dates);
  const day = catalog.day(date);
  const files = q.symbols === null ? day.files : q.symbols.map((s) => day.bySymbol.get(s)).filter((f) => f !== undefined);
  const { rows, total } = await boundaryRowTexts(index, files, q.minute, q.side, q.fields, q);
  const minute = `${String(Math.floor(q.minute / 60)).padStart(2, '0')}:${String(q.minute % 60).padStart(2, '0')}`;
  const notStored =
    files.length > 0
      ? `no snapshot ${q.side === 'before' ? 'before' : 'at or after'} ${minute} on ${date}`
      : q.symbols === null
        ? `no ${q.asset} is stored for ${date}`
        : `none of the requested ${plural(q.asset)} is stored for ${date}`;
  return envelope(
    dateMessage(q.dates, total > 0, noDataReason(q.dates, nowMs, notStored)),
    q.fields,
    rows.join(','),
    `,"limit":${q.limit},"offset":${q.offset},"has_more":${q.offset + rows.length < total}`,
  );
}
