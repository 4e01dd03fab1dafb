import { tradingDaysInRange } from '../calendar/tradingCalendar.js';
import { SCHEMAS } from '../shared/schema.js';
import { dateMessage, effectiveSpan, type DateSelection } from './dateResolution.js';
import type { Operation, OperationResult, OperationServices } from './operation.js';
import { BoundaryIndex, boundaryRowTexts } from './tickBoundary.js';
import { TickCatalog, type DayFiles } from './tickHistoryCatalog.js';
import { detailPage } from './tickHistoryDetail.js';
import { parseTickQuery, type BoundaryQuery, type CompatibleQuery, type EnhancedQuery } from './tickHistoryParams.js';
import { wholeFileText } from './tickRows.js';

/**
 * `tick_history` (spec + decisions §5) over the sealed index files: compatible mode (one
 * symbol-day, every row), enhanced plain detail (limit/offset pages over up to 200 symbols
 * and a month of days) and boundary snapshots (one row per index around a minute).
 */
const API = 'tick_history';

/**
 * Memory for the boundary candidate rows (tickBoundary.ts), per server process: ~170 KB per
 * symbol-day, so about three whole-market days of 1,000 indexes.
 */
export const BOUNDARY_CACHE_BYTES = 512 * 1024 * 1024;

/** Per-process state the operation keeps beside the app's services (one per app instance). */
interface TickState {
  readonly catalog: TickCatalog;
  readonly boundary: BoundaryIndex;
}

const states = new WeakMap<OperationServices, TickState>();

export function tickState(services: OperationServices): TickState {
  let s = states.get(services);
  if (!s) {
    s = {
      catalog: new TickCatalog(services.catalog),
      boundary: new BoundaryIndex(services.dataDir, services.columns, BOUNDARY_CACHE_BYTES),
    };
    states.set(services, s);
  }
  return s;
}

export const tickHistoryOperation: Operation = {
  apiname: API,
  async handle(req, ctx) {
    const q = parseTickQuery(req.params, req.fields, ctx.nowMs);
    // Plan access and the trial's daily count come before any data is read; a call that
    // passes them counts whether or not it finds data (decisions §4).
    ctx.authorize(datesRead(q.dates));
    const state = tickState(ctx.services);
    switch (q.mode) {
      case 'compatible':
        return compatible(ctx.services, state, q);
      case 'enhanced':
        return enhanced(ctx.services, state, q);
      case 'boundary':
        return boundary(state, q);
    }
  },
};

/** The trading days the request may read (for the plan's history-depth check). */
function datesRead(sel: DateSelection): string[] {
  if (sel.kind === 'day') return [sel.day];
  const span = effectiveSpan(sel);
  return tradingDaysInRange(span.from, span.to);
}

function fieldsJson(fields: readonly number[]): string {
  return JSON.stringify(fields.map((i) => SCHEMAS.index.fieldNames[i]));
}

function envelope(message: string, fields: readonly number[], itemsText: string, extra = ''): OperationResult {
  return {
    kind: 'rawJson',
    body: `{"code":200,"message":${JSON.stringify(message)},"data":{"fields":${fieldsJson(fields)},"items":[${itemsText}]${extra}}}`,
  };
}

/** The one day of a single-day selection (boundary mode guarantees one). */
function singleDay(sel: DateSelection): string {
  return sel.kind === 'day' ? sel.day : sel.effective.to;
}

async function compatible(services: OperationServices, state: TickState, q: CompatibleQuery): Promise<OperationResult> {
  const df = state.catalog.day(singleDay(q.dates)).bySymbol.get(q.symbol);
  if (!df) return envelope(dateMessage(q.dates, false), q.fields, '');
  const items = await wholeFileText(services.columns, df.file, q.fields);
  return envelope(dateMessage(q.dates, true), q.fields, items);
}

function daysOf(state: TickState, sel: DateSelection): DayFiles[] {
  if (sel.kind === 'day') {
    const day = state.catalog.day(sel.day);
    return day.files.length > 0 ? [day] : [];
  }
  return state.catalog.daysIn(sel.effective.from, sel.effective.to);
}

async function enhanced(services: OperationServices, state: TickState, q: EnhancedQuery): Promise<OperationResult> {
  const page = await detailPage(services.columns, daysOf(state, q.dates), q);
  const hasMore = q.offset + page.count < page.total;
  return envelope(
    dateMessage(q.dates, page.total > 0),
    q.fields,
    page.itemsText,
    `,"limit":${q.limit},"offset":${q.offset},"has_more":${hasMore}`,
  );
}

async function boundary(state: TickState, q: BoundaryQuery): Promise<OperationResult> {
  const day = state.catalog.day(singleDay(q.dates));
  const files = q.symbols === null ? day.files : q.symbols.map((s) => day.bySymbol.get(s)).filter((f) => f !== undefined);
  const rows = await boundaryRowTexts(state.boundary, files, q.minute, q.side, q.fields);
  return envelope(dateMessage(q.dates, rows.length > 0), q.fields, rows.join(','));
}
