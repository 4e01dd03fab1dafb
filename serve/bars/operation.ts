/**
 * `minute`, `daily`, `weekly`, `monthly` and `daily_auc` (api-contract: Bars) over the bars the
 * seal derived: the daily rows from the catalog (a year of one stock, or a day of the whole
 * market, in one indexed read), the 1m bars from the day's minute file, one row group a stock;
 * a live day's from its staged rows (liveBars.ts), and the answer then says `live: true`.
 * Sealed rows' text is kept (barTexts.ts). Rows by symbol, date, then bar time; paged by
 * limit/offset.
 */
import { daysBetween, previousTradingDay, tradingDaysInRange } from '../../calendar/tradingCalendar.js';
import { BarCatalogReader, type BarDay, type DailyBarRow } from '../../storage/bars/barCatalog.js';
import { periodLayout } from '../../storage/bars/barLabels.js';
import type { CatalogReader } from '../../storage/catalog.js';
import type { BarApiName } from '../access/plans.js';
import { successPieces } from '../http/envelope.js';
import type { Operation, OperationResult } from '../http/operation.js';
import type { ByteLru } from '../reading/byteLru.js';
import type { LiveStaging } from '../reading/liveStaging.js';
import { noDataInRange, noDataOnDay } from '../reading/noDataReason.js';
import { dateMessage } from '../tickHistory/dateResolution.js';
import { BAR_FIELDS } from './barFields.js';
import { BarTexts, dailyRange, dailySlice, type MinuteText } from './barTexts.js';
import { aucRow, barsPerDay, dailyRow, minuteRows, monthOf, periodRows, weekOf, type Cell } from './barValues.js';
import { LiveBars, type BarStockDay } from './liveBars.js';
import { MinuteSource } from './minuteSource.js';
import { LakeFiles } from '../../storage/lakeFiles.js';
import { parseBarQuery, type BarQuery } from './params.js';

export interface BarDeps {
  readonly dataDir: string;
  readonly catalog: CatalogReader;
  /** The detail cache's LRU: minute row groups, footers and the rows' text are kept in its share. */
  readonly lru: ByteLru;
  /** Staging, for live days (api-contract: The live day); null: sealed days only. */
  readonly live: LiveStaging | null;
  /** Where sealed files are read (the data directory, the store for offloaded days); default the data directory. */
  readonly lake?: LakeFiles;
}

export function barOperation(api: BarApiName, deps: BarDeps): Operation {
  const bars = new BarCatalogReader(deps.catalog.db);
  const source: StockDays = {
    bars,
    texts: new BarTexts(deps.catalog.db, bars, deps.lru),
    minutes: new MinuteSource(deps.lake ?? new LakeFiles(deps.dataDir), deps.lru),
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
  readonly texts: BarTexts;
  readonly minutes: MinuteSource;
  readonly live: LiveBars | null;
}

interface Page {
  /** The page's rows as JSON text, in order, each piece one or more rows. */
  readonly pieces: readonly (string | Buffer)[];
  readonly rows: number;
  readonly total: number;
  readonly live: boolean;
}

/** The stock-days of [from, span.to] with fills, sealed and live, by symbol then date. */
async function stockDays(src: StockDays, q: BarQuery, from: string, nowMs: number): Promise<BarStockDay[]> {
  const to = q.span.to;
  let sealed: readonly DailyBarRow[] = [];
  if (src.bars.hasTables()) {
    if (q.symbols !== null) {
      const days = daysBetween(from, to);
      sealed = q.symbols.flatMap((s) => src.texts.dailyOf(s, from, to, days));
    } else sealed = from === to ? src.texts.dailyOfDay(from) : src.bars.dailyOfAll(from, to);
  }
  const days = new Map<string, BarDay | null>();
  const out = sealed.map((row): BarStockDay => ({ row, live: false, minuteBars: 241, slice: () => sealedSlice(src, days, row) }));
  const liveDays = src.live?.days(from, to) ?? [];
  if (liveDays.length === 0) return out;
  for (const d of liveDays) out.push(...(await src.live!.stockDays(d, q.symbols, nowMs)));
  return out.sort((a, b) => (a.row.symbol < b.row.symbol ? -1 : a.row.symbol > b.row.symbol ? 1 : a.row.tradedate < b.row.tradedate ? -1 : 1));
}

async function sealedSlice(src: StockDays, days: Map<string, BarDay | null>, row: DailyBarRow) {
  return src.minutes.slice(row.tradedate, barDayOf(src, days, row.tradedate), row.minute_row);
}

function barDayOf(src: StockDays, days: Map<string, BarDay | null>, tradedate: string): BarDay | null {
  let day = days.get(tradedate);
  if (day === undefined) days.set(tradedate, (day = src.bars.barDay(tradedate)));
  return day;
}

/** Whether the query asks every field in the contract's order (the form whose text is kept). */
function allFields(q: BarQuery): boolean {
  return q.fields.length === BAR_FIELDS[q.api].fieldNames.length && q.fields.every((f, i) => f === i);
}

const textOf = (q: BarQuery, cells: readonly Cell[]) => JSON.stringify(q.fields.map((f) => cells[f]));

async function pageOf(src: StockDays, q: BarQuery, nowMs: number): Promise<Page> {
  const { from } = q.span;
  let all: string[];
  let read: BarStockDay[];
  switch (q.api) {
    case 'minute':
      return minutePage(src, await stockDays(src, q, from, nowMs), q);
    case 'daily': {
      const fast = dailyFast(src, q);
      if (fast) return fast;
      read = await stockDays(src, q, from, nowMs);
      const whole = allFields(q);
      all = read.map((s) => (whole && !s.live ? src.texts.rowText(s.row, (r) => JSON.stringify(dailyRow(r))) : textOf(q, dailyRow(s.row))));
      break;
    }
    case 'weekly':
    case 'monthly': {
      // A period's rows from its first day, so a range starting mid-week still gives the whole week.
      const start = q.api === 'weekly' ? weekOf : monthOf;
      read = await stockDays(src, q, start(from), nowMs);
      all = periodRows(
        read.map((s) => s.row),
        start,
      )
        .filter((r) => (r[0] as string) >= from)
        .map((cells) => textOf(q, cells));
      break;
    }
    case 'daily_auc': {
      read = await stockDays(src, q, previousTradingDay(from), nowMs);
      const byKey = new Map(read.map((s) => [`${s.row.symbol}|${s.row.tradedate}`, s.row]));
      all = read
        .map((s) => s.row)
        .filter((r) => r.tradedate >= from)
        .map((r) => textOf(q, aucRow(r, byKey.get(`${r.symbol}|${previousTradingDay(r.tradedate)}`) ?? null)));
      break;
    }
  }
  const rows = all.slice(q.offset, q.offset + q.limit);
  return { pieces: rows.length > 0 ? [rows.join(',')] : [], rows: rows.length, total: all.length, live: read.some((s) => s.live && s.row.tradedate >= from) };
}

/**
 * `daily` of every field over sealed days only, for one day of every stock or a long range of
 * given stocks: slices of the kept text (barTexts.ts), no row read or written per request.
 */
function dailyFast(src: StockDays, q: BarQuery): Page | null {
  const { from, to } = q.span;
  const oneDay = q.symbols === null && from === to;
  const long = q.symbols !== null && daysBetween(from, to) >= 60;
  if (!allFields(q) || !(oneDay || long) || !src.bars.hasTables() || (src.live?.days(from, to).length ?? 0) > 0) return null;
  const make = (r: DailyBarRow) => JSON.stringify(dailyRow(r));
  const parts = (q.symbols ?? [null]).map((symbol) => {
    const t = src.texts.dailyText(symbol, from, make);
    const [lo, hi] = dailyRange(t, from, to);
    return { t, lo, hi };
  });
  const total = parts.reduce((a, p) => a + p.hi - p.lo, 0);
  const pieces: Buffer[] = [];
  let skip = q.offset;
  let left = q.limit;
  for (const p of parts) {
    const n = p.hi - p.lo;
    if (skip >= n) {
      skip -= n;
      continue;
    }
    const lo = p.lo + skip;
    const hi = Math.min(p.hi, lo + left);
    skip = 0;
    if (hi > lo) pieces.push(dailySlice(p.t, lo, hi));
    left -= hi - lo;
    if (left === 0) break;
  }
  return { pieces, rows: q.limit - left, total, live: false };
}

/** The period bars a stock-day answers: all of them, or on a live today those begun by now. */
function periodBars(s: BarStockDay, q: BarQuery): number {
  return s.minuteBars >= 241 ? barsPerDay(q.period) : periodLayout(q.period).barOf[s.minuteBars - 1] + 1;
}

/** Only the stock-days the page reaches are read; a sealed one's text is made once and kept. */
async function minutePage(src: StockDays, read: readonly BarStockDay[], q: BarQuery): Promise<Page> {
  const counts = read.map((s) => periodBars(s, q));
  const total = counts.reduce((a, n) => a + n, 0);
  const end = Math.min(total, q.offset + q.limit);
  const days = new Map<string, BarDay | null>();
  const fieldsKey = q.fields.join('.');
  // Every stock-day of the page at once: their files' reads and decompression overlap on libuv's threads.
  const wanted: Promise<string | Buffer>[] = [];
  let first = 0;
  for (let k = 0; k < read.length && first < end; first += counts[k++]) {
    if (first + counts[k] <= q.offset) continue;
    const s = read[k];
    const make = async () => (await rowsOf(s, q)).map((cells) => textOf(q, cells));
    const from = Math.max(0, q.offset - first);
    const to = Math.min(counts[k], end - first);
    if (s.live) {
      wanted.push(make().then((rows) => rows.slice(from, to).join(',')));
      continue;
    }
    const day = barDayOf(src, days, s.row.tradedate);
    const key = `${s.row.tradedate}:v${day?.version ?? 0}:${s.row.symbol}:${q.period}:${fieldsKey}`;
    const whole = from === 0 && to === counts[k];
    wanted.push(rowsOrMade(src, key, make).then((rows) => (whole ? rows.joined : rows.rows.slice(from, to).join(','))));
  }
  const pieces = await Promise.all(wanted);
  return { pieces, rows: end - Math.min(end, q.offset), total, live: read.some((s) => s.live) };
}

async function rowsOf(s: BarStockDay, q: BarQuery): Promise<Cell[][]> {
  return minuteRows(s.row.symbol, s.row.tradedate, await s.slice(), q.period, 0, periodBars(s, q), s.minuteBars);
}

/** The kept text of a sealed stock-day's rows, made (from its minute file) when not kept. */
async function rowsOrMade(src: StockDays, key: string, make: () => Promise<string[]>): Promise<MinuteText> {
  return src.texts.minuteText(key) ?? src.texts.keepMinuteText(key, await make());
}

function answer(q: BarQuery, page: Page, nowMs: number): OperationResult {
  const names = BAR_FIELDS[q.api].fieldNames;
  const when = q.span.from === q.span.to ? `for ${q.span.from}` : `in ${q.span.from}-${q.span.to}`;
  const who = q.symbols === null ? 'no stock has bars' : q.symbols.length === 1 ? `${q.symbols[0]} has no bars` : 'none of the requested stocks has bars';
  const notStored = `${who} ${when} (a stock-day without fills has none)`;
  const reason = q.dates.kind === 'day' ? noDataOnDay(q.dates.day, nowMs, notStored) : noDataInRange(q.span, nowMs, notStored);
  const hasMore = q.offset + page.rows < page.total;
  const items: Buffer[] = [];
  page.pieces.forEach((p, i) => {
    if (i > 0) items.push(COMMA);
    items.push(typeof p === 'string' ? Buffer.from(p) : p);
  });
  return {
    kind: 'rawJson',
    body: successPieces(
      dateMessage(q.dates, page.total > 0, reason),
      q.fields.map((f) => names[f]),
      items,
      // Only answers that read a live day say so, as every interface does.
      `,"limit":${q.limit},"offset":${q.offset},"has_more":${hasMore}${page.live ? ',"live":true' : ''}`,
    ),
    rows: page.rows,
  };
}

const COMMA = Buffer.from(',');
