/**
 * `minute`, `daily`, `weekly`, `monthly` and `daily_auc` (api-contract: Bars) over the bars the
 * seal derived: the daily rows from the catalog (a year of one stock, or a day of the whole
 * market, in one indexed read), the 1m bars from the day's minute file, one row group a stock;
 * a live day's from its staged rows (liveBars.ts), and the answer then says `live: true`.
 * Rows by symbol, date, then bar time; paged by limit/offset.
 */
import { previousTradingDay, tradingDaysInRange } from '../../calendar/tradingCalendar.js';
import { BarCatalogReader, type BarDay, type DailyBarRow } from '../../storage/bars/barCatalog.js';
import { periodLayout } from '../../storage/bars/barLabels.js';
import type { CatalogReader } from '../../storage/catalog.js';
import type { BarApiName } from '../access/plans.js';
import { successText } from '../http/envelope.js';
import type { Operation, OperationResult } from '../http/operation.js';
import type { ByteLru } from '../reading/byteLru.js';
import type { LiveStaging } from '../reading/liveStaging.js';
import { noDataInRange, noDataOnDay } from '../reading/noDataReason.js';
import { dateMessage } from '../tickHistory/dateResolution.js';
import { BAR_FIELDS } from './barFields.js';
import { aucRow, barsPerDay, dailyRow, minuteRows, monthOf, periodRows, weekOf, type Cell } from './barValues.js';
import { LiveBars, type BarStockDay } from './liveBars.js';
import { MinuteSource } from './minuteSource.js';
import { parseBarQuery, type BarQuery } from './params.js';

export interface BarDeps {
  readonly dataDir: string;
  readonly catalog: CatalogReader;
  /** The detail cache's LRU: minute row groups and footers are kept in its share. */
  readonly lru: ByteLru;
  /** Staging, for live days (api-contract: The live day); null: sealed days only. */
  readonly live: LiveStaging | null;
}

export function barOperation(api: BarApiName, deps: BarDeps): Operation {
  const source: StockDays = {
    bars: new BarCatalogReader(deps.catalog.db),
    minutes: new MinuteSource(deps.dataDir, deps.lru),
    live: deps.live === null ? null : new LiveBars(deps.dataDir, deps.catalog, deps.live),
  };
  return {
    apiname: api,
    async handle(req, ctx) {
      const q = parseBarQuery(api, req.params, req.fields, ctx.nowMs);
      await ctx.authorize(q.dates.kind === 'day' ? [q.dates.day] : tradingDaysInRange(q.span.from, q.span.to));
      return answer(q, await pageOf(source, q, ctx.nowMs), ctx.nowMs);
    },
  };
}

interface StockDays {
  readonly bars: BarCatalogReader;
  readonly minutes: MinuteSource;
  readonly live: LiveBars | null;
}

interface Page {
  readonly rows: readonly Cell[][];
  readonly total: number;
  readonly live: boolean;
}

/** The stock-days of [from, span.to] with fills, sealed and live, by symbol then date. */
async function stockDays(src: StockDays, q: BarQuery, from: string, nowMs: number): Promise<BarStockDay[]> {
  const to = q.span.to;
  const sealed = !src.bars.hasTables() ? [] : q.symbols === null ? src.bars.dailyOfAll(from, to) : q.symbols.flatMap((s) => src.bars.dailyOf(s, from, to));
  const days = new Map<string, BarDay | null>();
  const out = sealed.map((row): BarStockDay => ({ row, live: false, minuteBars: 241, slice: () => sealedSlice(src, days, row) }));
  const liveDays = src.live?.days(from, to) ?? [];
  if (liveDays.length === 0) return out;
  for (const d of liveDays) out.push(...(await src.live!.stockDays(d, q.symbols, nowMs)));
  return out.sort((a, b) => (a.row.symbol < b.row.symbol ? -1 : a.row.symbol > b.row.symbol ? 1 : a.row.tradedate < b.row.tradedate ? -1 : 1));
}

async function sealedSlice(src: StockDays, days: Map<string, BarDay | null>, row: DailyBarRow) {
  let day = days.get(row.tradedate);
  if (day === undefined) days.set(row.tradedate, (day = src.bars.barDay(row.tradedate)));
  return src.minutes.slice(row.tradedate, day, row.minute_row);
}

async function pageOf(src: StockDays, q: BarQuery, nowMs: number): Promise<Page> {
  const { from } = q.span;
  let all: Cell[][];
  let read: BarStockDay[];
  switch (q.api) {
    case 'minute':
      return minutePage(await stockDays(src, q, from, nowMs), q);
    case 'daily':
      read = await stockDays(src, q, from, nowMs);
      all = read.map((s) => dailyRow(s.row));
      break;
    case 'weekly':
    case 'monthly': {
      // A period's rows from its first day, so a range starting mid-week still gives the whole week.
      const start = q.api === 'weekly' ? weekOf : monthOf;
      read = await stockDays(src, q, start(from), nowMs);
      all = periodRows(
        read.map((s) => s.row),
        start,
      ).filter((r) => (r[0] as string) >= from);
      break;
    }
    case 'daily_auc': {
      read = await stockDays(src, q, previousTradingDay(from), nowMs);
      const byKey = new Map(read.map((s) => [`${s.row.symbol}|${s.row.tradedate}`, s.row]));
      all = read
        .map((s) => s.row)
        .filter((r) => r.tradedate >= from)
        .map((r) => aucRow(r, byKey.get(`${r.symbol}|${previousTradingDay(r.tradedate)}`) ?? null));
      break;
    }
  }
  return { rows: all.slice(q.offset, q.offset + q.limit), total: all.length, live: read.some((s) => s.live && s.row.tradedate >= from) };
}

/** The period bars a stock-day answers: all of them, or on a live today those begun by now. */
function periodBars(s: BarStockDay, q: BarQuery): number {
  return s.minuteBars >= 241 ? barsPerDay(q.period) : periodLayout(q.period).barOf[s.minuteBars - 1] + 1;
}

/** Only the stock-days the page reaches are read from their minute files. */
async function minutePage(read: readonly BarStockDay[], q: BarQuery): Promise<Page> {
  const counts = read.map((s) => periodBars(s, q));
  const total = counts.reduce((a, n) => a + n, 0);
  const rows: Cell[][] = [];
  const end = Math.min(total, q.offset + q.limit);
  let first = 0;
  for (let k = 0; k < read.length && first < end; first += counts[k++]) {
    if (first + counts[k] <= q.offset) continue;
    const s = read[k];
    const slice = await s.slice();
    rows.push(...minuteRows(s.row.symbol, s.row.tradedate, slice, q.period, Math.max(0, q.offset - first), Math.min(counts[k], end - first), s.minuteBars));
  }
  return { rows, total, live: read.some((s) => s.live) };
}

function answer(q: BarQuery, page: Page, nowMs: number): OperationResult {
  const names = BAR_FIELDS[q.api].fieldNames;
  const items = page.rows.map((r) => JSON.stringify(q.fields.map((f) => r[f]))).join(',');
  const when = q.span.from === q.span.to ? `for ${q.span.from}` : `in ${q.span.from}-${q.span.to}`;
  const who = q.symbols === null ? 'no stock has bars' : q.symbols.length === 1 ? `${q.symbols[0]} has no bars` : 'none of the requested stocks has bars';
  const notStored = `${who} ${when} (a stock-day without fills has none)`;
  const reason = q.dates.kind === 'day' ? noDataOnDay(q.dates.day, nowMs, notStored) : noDataInRange(q.span, nowMs, notStored);
  const hasMore = q.offset + page.rows.length < page.total;
  return {
    kind: 'rawJson',
    body: successText(
      dateMessage(q.dates, page.total > 0, reason),
      q.fields.map((f) => names[f]),
      items,
      // Only answers that read a live day say so, as every interface does.
      `,"limit":${q.limit},"offset":${q.offset},"has_more":${hasMore}${page.live ? ',"live":true' : ''}`,
    ),
    rows: page.rows.length,
  };
}
