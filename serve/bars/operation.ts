/**
 * `minute`, `daily`, `weekly`, `monthly` and `daily_auc` (api-contract: Bars) over the bars the
 * seal derived: the daily rows from the catalog (a year of one stock, or a day of the whole
 * market, in one indexed read), the 1m bars from the day's minute file, one row group a stock.
 * Rows by symbol, date, then bar time; paged by limit/offset.
 */
import { previousTradingDay, tradingDaysInRange } from '../../calendar/tradingCalendar.js';
import { BarCatalogReader, type BarDay, type DailyBarRow } from '../../storage/bars/barCatalog.js';
import type { CatalogReader } from '../../storage/catalog.js';
import type { BarApiName } from '../access/plans.js';
import { successText } from '../http/envelope.js';
import type { Operation, OperationResult } from '../http/operation.js';
import type { ByteLru } from '../reading/byteLru.js';
import { noDataInRange, noDataOnDay } from '../reading/noDataReason.js';
import { dateMessage } from '../tickHistory/dateResolution.js';
import { BAR_FIELDS } from './barFields.js';
import { aucRow, barsPerDay, dailyRow, minuteRows, monthOf, periodRows, weekOf, type Cell } from './barValues.js';
import { MinuteSource } from './minuteSource.js';
import { parseBarQuery, type BarQuery } from './params.js';

export interface BarDeps {
  readonly dataDir: string;
  readonly catalog: CatalogReader;
  /** The detail cache's LRU: minute row groups and footers are kept in its share. */
  readonly lru: ByteLru;
}

export function barOperation(api: BarApiName, deps: BarDeps): Operation {
  const bars = new BarCatalogReader(deps.catalog.db);
  const minutes = new MinuteSource(deps.dataDir, deps.lru);
  return {
    apiname: api,
    async handle(req, ctx) {
      const q = parseBarQuery(api, req.params, req.fields, ctx.nowMs);
      await ctx.authorize(q.dates.kind === 'day' ? [q.dates.day] : tradingDaysInRange(q.span.from, q.span.to));
      const page = bars.hasTables() ? await pageOf(bars, minutes, q) : { rows: [], total: 0 };
      return answer(q, page, ctx.nowMs);
    },
  };
}

interface Page {
  readonly rows: readonly Cell[][];
  readonly total: number;
}

/** A symbol's rows, or every stock's, of [from, to], by symbol then date. */
function dailyRows(bars: BarCatalogReader, q: BarQuery, from: string): DailyBarRow[] {
  return q.symbols === null ? bars.dailyOfAll(from, q.span.to) : q.symbols.flatMap((s) => bars.dailyOf(s, from, q.span.to));
}

async function pageOf(bars: BarCatalogReader, minutes: MinuteSource, q: BarQuery): Promise<Page> {
  const { from } = q.span;
  let all: Cell[][];
  switch (q.api) {
    case 'minute':
      return minutePage(bars, minutes, q);
    case 'daily':
      all = dailyRows(bars, q, from).map(dailyRow);
      break;
    case 'weekly':
    case 'monthly': {
      // A period's rows from its first day, so a range starting mid-week still gives the whole week.
      const start = q.api === 'weekly' ? weekOf : monthOf;
      all = periodRows(dailyRows(bars, q, start(from)), start).filter((r) => (r[0] as string) >= from);
      break;
    }
    case 'daily_auc': {
      const rows = dailyRows(bars, q, previousTradingDay(from));
      const byKey = new Map(rows.map((r) => [`${r.symbol}|${r.tradedate}`, r]));
      all = rows.filter((r) => r.tradedate >= from).map((r) => aucRow(r, byKey.get(`${r.symbol}|${previousTradingDay(r.tradedate)}`) ?? null));
      break;
    }
  }
  return { rows: all.slice(q.offset, q.offset + q.limit), total: all.length };
}

/** Only the stock-days the page reaches are read from their minute files. */
async function minutePage(bars: BarCatalogReader, minutes: MinuteSource, q: BarQuery): Promise<Page> {
  const perDay = barsPerDay(q.period);
  const stockDays = dailyRows(bars, q, q.span.from);
  const total = stockDays.length * perDay;
  const rows: Cell[][] = [];
  const days = new Map<string, BarDay | null>();
  const end = Math.min(total, q.offset + q.limit);
  for (let k = Math.floor(q.offset / perDay); k * perDay < end; k++) {
    const sd = stockDays[k];
    let day = days.get(sd.tradedate);
    if (day === undefined) days.set(sd.tradedate, (day = bars.barDay(sd.tradedate)));
    if (day === null) continue;
    const first = k * perDay;
    const slice = await minutes.slice(day, sd.minute_row);
    rows.push(...minuteRows(sd.symbol, sd.tradedate, slice, q.period, Math.max(0, q.offset - first), end - first));
  }
  return { rows, total };
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
      `,"limit":${q.limit},"offset":${q.offset},"has_more":${hasMore}`,
    ),
    rows: page.rows.length,
  };
}
