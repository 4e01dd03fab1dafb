/**
 * The client's bar methods (minute, daily, weekly, monthly, dailyAuc, tradecal) against
 * `tickvault serve` on a replayed lake with trades (preparedData ticks 1: 20250102, -03, -06;
 * 5 stocks). Expected answers come from the raw HTTP answer (postApi) and, independently of
 * the server, from DuckDB over the sealed trade files (barsReference) and the calendar itself.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { rowsOf, TickvaultClient, TickvaultError, type BarPage, type DailyBar, type MinuteBar } from '../../client/index.js';
import { refDaily, refMinuteBars } from '../support/barsReference.js';
import { addAccount, postApi, preparedData, startServer, type ServerHandle } from '../support/server.js';

const test = suite('client bars');
const DAYS = ['20250102', '20250103', '20250106'];
let server: ServerHandle;
let dataDir: string;
let key: string;
let client: TickvaultClient;
/** The lake's stocks with trades on DAYS[0], canonical codes, sorted. */
let stocks: string[];

test.before(async () => {
  ({ dataDir } = await preparedData({ ticks: 1 }));
  stocks = readdirSync(join(dataDir, 'trade', `date=${DAYS[0]}`))
    .map((f) => f.replace(/\.parquet$/, ''))
    .sort();
  server = await startServer(dataDir, { env: { TICKVAULT_RATE_LIMIT: '1000' } });
  key = addAccount(dataDir, 'flagship').key;
  client = new TickvaultClient({ baseUrl: server.url, apikey: key });
});
test.after(async () => {
  await server?.stop();
});

async function collect<T>(pages: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const page of pages) all.push(page);
  return all;
}

/** The raw answer's data of one request, as the server sent it. */
async function raw(apiname: string, params: Record<string, unknown>, fields?: string): Promise<{ fields: string[]; items: unknown[][]; [k: string]: unknown }> {
  const res = await postApi<{ fields: string[]; items: unknown[][] }>(server, { apiname, apikey: key, params, ...(fields ? { fields } : {}) });
  assert.is(res.status, 200, res.text.slice(0, 300));
  return res.json.data!;
}

const cents = (x: number) => Math.round(x * 100);

test('minute 1m over pages of 100: 241 bars a stock-day, the same rows as one raw answer, equal to DuckDB over the trades', async () => {
  const two = stocks.slice(0, 2);
  // Another form of each code: the client sends them as given.
  const symbols = [two[0].slice(0, 6), `${two[1].slice(7).toLowerCase()}${two[1].slice(0, 6)}`];
  const pages: BarPage<MinuteBar>[] = await collect(client.minutePages({ symbols, tradedate: DAYS[0], limit: 100 }));
  assert.equal(
    pages.map((p) => [p.offset, p.limit, p.items.length, p.has_more]),
    [
      [0, 100, 100, true],
      [100, 100, 100, true],
      [200, 100, 100, true],
      [300, 100, 100, true],
      [400, 100, 82, false],
    ],
  );
  const items = pages.flatMap((p) => p.items);
  const whole = await raw('minute', { symbols: symbols.join(','), tradedate: DAYS[0] });
  assert.equal(pages[0].fields, ['tradedate', 'symbol', 'trademin', 'time', 'open', 'high', 'low', 'close', 'vol', 'amount', 'vwap']);
  assert.equal(whole.fields, pages[0].fields);
  assert.is(whole.has_more, false);
  assert.equal(items, whole.items);

  const bars = pages.flatMap((p) => rowsOf(p));
  assert.is(bars.length, 2 * 241);
  for (const b of bars) {
    assert.type(b.open, 'number');
    assert.type(b.vol, 'number');
    assert.type(b.vwap, 'number');
    assert.type(b.trademin, 'string');
    assert.is(b.tradedate, DAYS[0]);
    assert.is(b.time, `2025-01-02 ${b.trademin.slice(0, 2)}:${b.trademin.slice(2)}:00`);
  }
  assert.equal([...new Set(bars.map((b) => b.symbol))], two);

  const ref = (await refMinuteBars(dataDir, DAYS[0])).filter((r) => two.includes(r.symbol));
  assert.is(ref.length, bars.length);
  assert.equal(
    bars.map((b) => [b.symbol, b.trademin, b.open, b.high, b.low, b.close, b.vol, cents(b.amount)]),
    ref.map((r) => [r.symbol, r.trademin, r.open, r.high, r.low, r.close, r.vol, r.fen]),
  );
  for (const b of bars) {
    if (b.vol > 0) assert.ok(Math.abs(b.vwap - b.amount / b.vol) < 1e-6, `${b.symbol} ${b.trademin} vwap`);
    else assert.is(b.vwap, b.close);
  }
});

test('minute periods: 5m is 48 bars a day with the 1m bars summed; 1h equals 60m', async () => {
  const symbols = stocks[0];
  const one = rowsOf((await client.minute({ symbols, tradedate: DAYS[1] })).data);
  const five = rowsOf((await client.minute({ symbols, tradedate: DAYS[1], period: '5m' })).data);
  assert.is(five.length, 48);
  assert.is(five[0].trademin, '0935');
  assert.is(five.at(-1)!.trademin, '1500');
  // Each 5m bar folds the 1m bars labelled in (its end − 5 min, its end]; 0935 also the 0930 auction.
  const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(2));
  for (const bar of five) {
    const end = minutes(bar.trademin);
    const parts = one.filter((b) => minutes(b.trademin) <= end && (minutes(b.trademin) > end - 5 || (bar.trademin === '0935' && b.trademin === '0930')));
    assert.is(
      cents(bar.amount),
      parts.reduce((s, b) => s + cents(b.amount), 0),
      bar.trademin,
    );
    assert.is(
      bar.vol,
      parts.reduce((s, b) => s + b.vol, 0),
    );
    assert.is(bar.high, Math.max(...parts.map((b) => b.high)));
    assert.is(bar.close, parts.at(-1)!.close);
  }
  const h = await client.minute({ symbols, tradedate: DAYS[1], period: '1h' });
  const sixty = await client.minute({ symbols, tradedate: DAYS[1], period: '60m' });
  assert.is(h.data.items.length, 4);
  assert.equal(h.data.items, sixty.data.items);
  assert.equal(
    sixty.data.items.map((r) => r[2]),
    ['1030', '1130', '1400', '1500'],
  );
});

test('the fields option types and orders the rows, and paging keeps it', async () => {
  const pages = await collect(
    client.minutePages({ symbols: stocks.slice(0, 3), startdate: DAYS[0], enddate: DAYS[2], limit: 1000 }, { fields: ['time', 'close'] }),
  );
  assert.is(pages.length, Math.ceil((3 * 3 * 241) / 1000));
  for (const p of pages) assert.equal(p.fields, ['time', 'close']);
  const rows = pages.flatMap((p) => rowsOf(p));
  assert.is(rows.length, 3 * 3 * 241);
  const close: number = rows[0].close;
  assert.type(close, 'number');
  assert.equal(Object.keys(rows[0]), ['time', 'close']);
  // @ts-expect-error `symbol` was not asked for, so it is not in the row type
  assert.is(rows[0].symbol, undefined);
  const whole = await raw('minute', { symbols: stocks.slice(0, 3), startdate: DAYS[0], enddate: DAYS[2] }, 'time,close');
  assert.equal(
    pages.flatMap((p) => p.items),
    whole.items,
  );
});

test('daily equals the raw answer and DuckDB over the trades; weekly and monthly fold the daily rows', async () => {
  const params = { symbols: stocks.join(','), startdate: DAYS[0], enddate: DAYS[2] };
  const page = (await client.daily(params)).data;
  const whole = await raw('daily', params);
  assert.equal(page.items, whole.items);
  assert.equal(page.fields, ['tradedate', 'symbol', 'name', 'open', 'high', 'low', 'close', 'pre_close', 'change', 'pct_chg', 'vol', 'amount']);
  assert.is(page.has_more, false);
  const daily = rowsOf(page);
  assert.is(daily.length, stocks.length * 3);

  const ref = (await Promise.all(DAYS.map((d) => refDaily(dataDir, d)))).flat();
  const bySymbolDate = (a: { symbol: string; tradedate: string }, b: { symbol: string; tradedate: string }) =>
    a.symbol.localeCompare(b.symbol) || a.tradedate.localeCompare(b.tradedate);
  ref.sort(bySymbolDate);
  assert.equal(
    daily.map((d) => [d.symbol, d.tradedate, d.name, d.open, d.high, d.low, d.close, d.pre_close, d.vol, cents(d.amount)]),
    ref.map((r) => [r.symbol, r.tradedate, null, r.open, r.high, r.low, r.close, r.pre_close, r.vol / 100, r.fen]),
  );
  for (const d of daily) {
    assert.is(d.change, cents(d.close - d.pre_close) / 100);
    assert.ok(Math.abs(d.pct_chg - (d.change / d.pre_close) * 100) < 0.00005 + 1e-9, `${d.symbol} ${d.tradedate} pct_chg`);
  }

  // 20250102 (Thu) and 20250103 (Fri) are one week, 20250106 (Mon) the next; all three one month.
  const fold = (days: DailyBar[]) => ({
    tradedate: days.at(-1)!.tradedate,
    open: days[0].open,
    high: Math.max(...days.map((d) => d.high)),
    low: Math.min(...days.map((d) => d.low)),
    close: days.at(-1)!.close,
    pre_close: days[0].pre_close,
    vol: days.reduce((s, d) => s + d.vol, 0),
    amount: days.reduce((s, d) => s + cents(d.amount), 0),
  });
  const pick = (b: DailyBar) => ({
    tradedate: b.tradedate,
    open: b.open,
    high: b.high,
    low: b.low,
    close: b.close,
    pre_close: b.pre_close,
    vol: b.vol,
    amount: cents(b.amount),
  });
  const weekly = rowsOf((await client.weekly(params)).data);
  const monthly = rowsOf((await client.monthly(params)).data);
  assert.equal((await raw('weekly', params)).items, (await client.weekly(params)).data.items);
  assert.is(weekly.length, stocks.length * 2);
  assert.is(monthly.length, stocks.length);
  for (const s of stocks) {
    const days = daily.filter((d) => d.symbol === s);
    const w = weekly.filter((d) => d.symbol === s);
    assert.equal(w.map(pick), [fold(days.slice(0, 2)), fold(days.slice(2))], s);
    assert.equal(monthly.filter((d) => d.symbol === s).map(pick), [fold(days)], s);
  }
});

test('daily and daily_auc paged one row a page equal one request', async () => {
  const params = { symbols: stocks, recentdays: 3 };
  const pages = await collect(client.dailyPages({ ...params, limit: 1 }));
  assert.is(pages.length, stocks.length * 3);
  assert.equal(
    pages.flatMap((p) => p.items),
    (await client.daily(params)).data.items,
  );
  const auc = await collect(client.dailyAucPages({ ...params, limit: 4 }));
  assert.is(auc.length, Math.ceil((stocks.length * 3) / 4));
  assert.equal(
    auc.flatMap((p) => p.items),
    (await raw('daily_auc', { symbols: stocks.join(','), recentdays: 3 })).items,
  );
  assert.equal(
    (await collect(client.weeklyPages({ ...params, limit: 3 }))).flatMap((p) => p.items),
    (await client.weekly(params)).data.items,
  );
  assert.equal(
    (await collect(client.monthlyPages({ ...params, limit: 2 }))).flatMap((p) => p.items),
    (await client.monthly(params)).data.items,
  );
});

test('daily_auc: the auction fills of DuckDB, the nulls the contract names, um_side B/S/null', async () => {
  const rows = rowsOf((await client.dailyAuc({ symbols: stocks, tradedate: DAYS[1] })).data);
  const ref = await refDaily(dataDir, DAYS[1]);
  assert.is(rows.length, ref.length);
  rows.forEach((r, i) => {
    const want = ref[i];
    assert.is(r.symbol, want.symbol);
    assert.is(r.tradedate, DAYS[1]);
    assert.is(r.m_price, want.auc_price);
    assert.is(r.auc_vol, want.auc_vol);
    assert.is(cents(r.auc_amt), want.auc_fen);
    for (const n of [r.name, r.open_bid_pct, r.auc_vol_ratio, r.auc_turnover_rate, r.auc_turnover]) assert.is(n, null);
    const side = want.bid1 === want.auc_price ? 'B' : want.ask1 === want.auc_price ? 'S' : null;
    assert.is(r.um_side, side, r.symbol);
    assert.is(r.um_vol, side === 'B' ? want.bid_vol1 : side === 'S' ? want.ask_vol1 : 0);
    assert.type(r.auc_to_pre_vol_pct, 'number');
  });
});

test('tradecal: the calendar of early January 2025 as known (1 Jan a holiday, weekends closed)', async () => {
  const answer = await client.tradecal({ startdate: '20250101', enddate: '20250108', exchange: 'SZSE' });
  assert.equal(answer.data, await raw('tradecal', { startdate: '20250101', enddate: '20250108' }));
  assert.equal(answer.data.fields, ['cal_date', 'is_open', 'pretrade_date']);
  assert.equal(
    rowsOf(answer.data).map((d) => [d.cal_date, d.is_open, d.pretrade_date]),
    [
      ['20250101', 0, '20241231'],
      ['20250102', 1, '20241231'],
      ['20250103', 1, '20250102'],
      ['20250104', 0, '20250103'],
      ['20250105', 0, '20250103'],
      ['20250106', 1, '20250103'],
      ['20250107', 1, '20250106'],
      ['20250108', 1, '20250107'],
    ],
  );
});

test('a mistake is a TickvaultError 400 naming the parameter', async () => {
  try {
    // @ts-expect-error not a period
    await client.minute({ symbols: stocks[0], tradedate: DAYS[0], period: '2m' });
    assert.unreachable('a 400');
  } catch (err) {
    assert.instance(err, TickvaultError);
    assert.is((err as TickvaultError).code, 400);
    assert.match((err as Error).message, /period/);
  }
});

test.run();
