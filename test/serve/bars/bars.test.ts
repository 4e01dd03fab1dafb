/**
 * The bar interfaces over HTTP (api-contract: Bars) against bars DuckDB computes from the
 * sealed trade and level-2 files (test/support/barsReference.ts), every field of every bar:
 * minute 1m, 5m and 60m for every stock and day (one stock-day suspended), daily across a
 * week boundary, weekly, monthly, daily_auc with its ratios to the day before, paging,
 * fields, and tradecal across the 2025 Spring Festival.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { addAccount, postApi, startServer, type ServerHandle } from '../../support/server.js';
import { BAR_DAYS, barLake, refDaily, refMinuteBars, SUSPENDED, type RefDaily } from '../../support/barsReference.js';
import { duckRows } from '../../support/duckdb.js';

const test = suite('bars over POST /api');
const s = {} as { server: ServerHandle; key: string; dataDir: string };

test.before(async () => {
  s.dataDir = (await barLake()).dataDir;
  // The evening of the lake's last day; the per-second limit out of the way of a test that asks many.
  s.server = await startServer(s.dataDir, { now: '2025-01-07T18:00:00+08:00', args: ['--rate-limit', '100000'] });
  s.key = addAccount(s.dataDir, 'standard').key;
});
test.after(async () => {
  await s.server?.stop();
});

interface Data {
  readonly fields: string[];
  readonly items: unknown[][];
  readonly has_more?: boolean;
}

async function call(apiname: string, params: Record<string, unknown>, fields?: string): Promise<Record<string, unknown>[]> {
  const res = await postApi<Data>(s.server, { apiname, apikey: s.key, params, ...(fields ? { fields } : {}) });
  assert.is(res.status, 200, res.text.slice(0, 300));
  const d = res.json.data!;
  return d.items.map((row) => Object.fromEntries(d.fields.map((f, i) => [f, row[i]])));
}

/** Every page of a paged answer, `limit` rows at a time. */
async function allPages(apiname: string, params: Record<string, unknown>, limit: number): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for (let offset = 0; ; offset += limit) {
    const res = await postApi<Data>(s.server, { apiname, apikey: s.key, params: { ...params, limit, offset } });
    const d = res.json.data!;
    out.push(...d.items.map((row) => Object.fromEntries(d.fields.map((f, i) => [f, row[i]]))));
    if (!d.has_more) return out;
  }
}

for (const period of [1, 5, 60]) {
  test(`minute ${period}m: every bar of every stock-day equals DuckDB's, the suspended day has none`, async () => {
    const symbols = [...new Set((await refDays()).map((r) => r.symbol))];
    assert.is(symbols.length, 4);
    for (const date of BAR_DAYS) {
      const expected = await refMinuteBars(s.dataDir, date, period);
      const got = await call('minute', { symbols: symbols.join(','), tradedate: date, period: `${period}m` });
      assert.is(got.length, expected.length, `${date} rows`);
      const perDay = period === 1 ? 241 : period === 5 ? 48 : 4;
      assert.is(got.length % perDay, 0);
      got.forEach((g, i) => {
        const e = expected[i];
        const amount = e.fen / 100;
        const hh = e.trademin.slice(0, 2);
        const mm = e.trademin.slice(2);
        const time = `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6)} ${hh}:${mm}:00`;
        assert.equal(
          g,
          {
            tradedate: date,
            symbol: e.symbol,
            trademin: e.trademin,
            time,
            open: e.open,
            high: e.high,
            low: e.low,
            close: e.close,
            vol: e.vol,
            amount,
            vwap: e.vol > 0 ? amount / e.vol : e.close,
          },
          `${date} ${e.symbol} ${e.trademin}`,
        );
      });
      const suspended = got.some((g) => g.symbol === SUSPENDED.symbol);
      assert.is(suspended, date !== SUSPENDED.tradedate, `${date}: ${SUSPENDED.symbol} bars`);
    }
  });
}

test('minute over several days pages by limit/offset to the same rows, fields select columns', async () => {
  const params = { symbols: '000001,600000.SH', startdate: '20250102', enddate: '20250107' };
  const whole = await call('minute', params);
  assert.is(whole.length, 241 * 7, '000001 4 days, 600000 3 days');
  assert.equal(
    whole.map((r) => `${r.symbol}${r.tradedate}`).filter((k, i, a) => a.indexOf(k) === i),
    [...BAR_DAYS.map((d) => `000001.SZ${d}`), ...BAR_DAYS.filter((d) => d !== SUSPENDED.tradedate).map((d) => `600000.SH${d}`)],
    'ordered by symbol, then date',
  );
  assert.equal(await allPages('minute', params, 100), whole);
  const some = await call('minute', { ...params, period: '1h' }, 'close,trademin');
  assert.equal(Object.keys(some[0]), ['close', 'trademin']);
  assert.equal(
    some.slice(0, 4).map((r) => r.trademin),
    ['1030', '1130', '1400', '1500'],
  );
});

/** change to the fen and pct_chg to 4 decimals, by DuckDB's DECIMAL arithmetic. */
async function changes(close: number, pre: number): Promise<{ change: number; pct: number }> {
  const [r] = await duckRows(
    `SELECT round(CAST(${close} AS DECIMAL(18,3)) - CAST(${pre} AS DECIMAL(18,3)), 2) AS change,
            round(CAST(round(CAST(${close} AS DECIMAL(18,3)) - CAST(${pre} AS DECIMAL(18,3)), 2) AS DECIMAL(38,10)) * 100 / CAST(${pre} AS DECIMAL(38,10)), 4) AS pct`,
  );
  return { change: Number(r.change), pct: Number(r.pct) };
}

async function dailyExpected(e: {
  symbol: string;
  tradedate: string;
  open: number;
  high: number;
  low: number;
  close: number;
  pre_close: number | null;
  vol: number;
  fen: number;
}) {
  const c = await changes(e.close, e.pre_close!);
  return {
    tradedate: e.tradedate,
    symbol: e.symbol,
    name: null,
    open: e.open,
    high: e.high,
    low: e.low,
    close: e.close,
    pre_close: e.pre_close,
    change: c.change,
    pct_chg: c.pct,
    vol: e.vol / 100,
    amount: e.fen / 100,
  };
}

async function refDays(): Promise<RefDaily[]> {
  const all: RefDaily[] = [];
  for (const d of BAR_DAYS) all.push(...(await refDaily(s.dataDir, d)));
  return all.sort((a, b) => a.symbol.localeCompare(b.symbol) || a.tradedate.localeCompare(b.tradedate));
}

test('daily across a week boundary: one row per stock-day with fills, by symbol then date', async () => {
  const ref = await refDays();
  const got = await call('daily', { startdate: '20250101', enddate: '20250107' });
  assert.is(got.length, ref.length);
  assert.is(ref.length, 4 * 4 - 1, 'the suspended stock-day has no row');
  for (let i = 0; i < ref.length; i++) assert.equal(got[i], await dailyExpected(ref[i]), `${ref[i].symbol} ${ref[i].tradedate}`);
  const one = await call('daily', { symbols: '600000', recentdays: 2 });
  assert.equal(
    one.map((r) => r.tradedate),
    ['20250106', '20250107'],
  );
});

test('weekly and monthly fold the daily rows by calendar week and month', async () => {
  const ref = await refDays();
  for (const [api, keyOf] of [
    ['weekly', (d: string) => (d <= '20250105' ? 'w1' : 'w2')],
    ['monthly', () => 'm1'],
  ] as const) {
    const groups = new Map<string, RefDaily[]>();
    for (const r of ref) groups.set(`${r.symbol}|${keyOf(r.tradedate)}`, [...(groups.get(`${r.symbol}|${keyOf(r.tradedate)}`) ?? []), r]);
    const expected = [];
    for (const days of groups.values()) {
      const first = days[0];
      const last = days[days.length - 1];
      expected.push(
        await dailyExpected({
          symbol: first.symbol,
          tradedate: last.tradedate,
          open: first.open,
          close: last.close,
          high: Math.max(...days.map((d) => d.high)),
          low: Math.min(...days.map((d) => d.low)),
          pre_close: first.pre_close,
          vol: days.reduce((a, d) => a + d.vol, 0),
          fen: days.reduce((a, d) => a + d.fen, 0),
        }),
      );
    }
    assert.equal(await call(api, { startdate: '20250102', enddate: '20250107' }), expected, api);
  }
  // A range starting mid-week still folds the whole week.
  const w = await call('weekly', { symbols: '000001', startdate: '20250103', enddate: '20250103' });
  const days = ref.filter((r) => r.symbol === '000001.SZ' && r.tradedate <= '20250103');
  assert.is(w[0].open, days[0].open);
  assert.is(w[0].vol, (days[0].vol + days[1].vol) / 100);
});

test('daily_auc: the opening auction, its ratios to the previous trading day, unmatched volume', async () => {
  const ref = await refDays();
  const got = await call('daily_auc', { startdate: '20250103', enddate: '20250107' });
  const expected = [];
  for (const r of ref.filter((x) => x.tradedate >= '20250103')) {
    const prevDay = BAR_DAYS[BAR_DAYS.indexOf(r.tradedate as (typeof BAR_DAYS)[number]) - 1];
    const prev = ref.find((x) => x.symbol === r.symbol && x.tradedate === prevDay) ?? null;
    const [q] = await duckRows(
      `SELECT round((CAST(${r.auc_price} AS DECIMAL(38,10)) - CAST(${r.pre_close} AS DECIMAL(38,10))) * 100 / CAST(${r.pre_close} AS DECIMAL(38,10)), 4) AS pct,
              ${prev ? `round(CAST(${r.auc_vol} AS DECIMAL(38,10)) * 100 / ${prev.vol}, 4)` : 'NULL'} AS to_pre_vol,
              ${prev ? `round(CAST(${r.auc_vol} AS DECIMAL(38,10)) / ${prev.auc_vol}, 4)` : 'NULL'} AS to_pre_auc`,
    );
    const um = r.bid1 === r.auc_price ? [r.bid_vol1, 'B'] : r.ask1 === r.auc_price ? [r.ask_vol1, 'S'] : [0, null];
    expected.push({
      tradedate: r.tradedate,
      symbol: r.symbol,
      name: null,
      m_price: r.auc_price,
      auc_pct_chg: Number(q.pct),
      open_bid_pct: null,
      auc_amt: r.auc_fen / 100,
      auc_vol: r.auc_vol,
      auc_vol_ratio: null,
      auc_to_pre_vol_pct: q.to_pre_vol === null ? null : Number(q.to_pre_vol),
      auc_to_pre_auc_vol_ratio: q.to_pre_auc === null ? null : Number(q.to_pre_auc),
      um_vol: um[0],
      um_side: um[1],
      auc_turnover_rate: null,
      auc_turnover: null,
    });
  }
  assert.equal(got, expected);
  // The stock-day after the suspended one has no previous day's volume to compare with.
  const after = got.find((g) => g.symbol === SUSPENDED.symbol && g.tradedate === '20250106')!;
  assert.is(after.auc_to_pre_vol_pct, null);
});

test('tradecal: every date of the range, closed through the 2025 Spring Festival (0128-0204), previous trading day', async () => {
  const got = await call('tradecal', { startdate: '20250124', enddate: '20250210', exchange: 'SSE' });
  // Independently known: SSE/SZSE closed 2025-01-28 … 2025-02-04 for the Spring Festival, and weekends.
  const closed = new Set(['20250128', '20250129', '20250130', '20250131', '20250203', '20250204']);
  const expected = [];
  let prevOpen = '20250123';
  for (let t = Date.UTC(2025, 0, 24); t <= Date.UTC(2025, 1, 10); t += 86_400_000) {
    const d = new Date(t);
    const date = d.toISOString().slice(0, 10).replaceAll('-', '');
    const open = d.getUTCDay() !== 0 && d.getUTCDay() !== 6 && !closed.has(date);
    expected.push({ cal_date: date, is_open: open ? 1 : 0, pretrade_date: prevOpen });
    if (open) prevOpen = date;
  }
  assert.equal(got, expected);
  // No range: the current year (the server's clock says 2025), every date of it.
  const year = await call('tradecal', {});
  assert.is(year.length, 365);
  assert.equal([year[0].cal_date, year[364].cal_date], ['20250101', '20251231']);
  assert.equal(
    year.filter((r) => (r.cal_date as string) >= '20250124' && (r.cal_date as string) <= '20250210'),
    expected,
  );
  const res = await postApi(s.server, { apiname: 'tradecal', apikey: s.key, params: { startdate: '20100101', enddate: '20100110' } });
  assert.is(res.status, 400);
  assert.match(res.json.message, /params\.startdate 20100101 is outside the trading calendar's known range/);
});

test('bad params are one-line 400s; a day with no bars says why', async () => {
  for (const [params, message] of [
    [{ tradedate: '20250102' }, /params\.symbols is required for minute/],
    [{ symbols: '000001', tradedate: '20250102', period: '2m' }, /params\.period must be one of 1m, 5m, 15m, 30m, 60m/],
    [{ symbols: 'nope', tradedate: '20250102' }, /params\.symbols must be stock codes/],
  ] as const) {
    const res = await postApi(s.server, { apiname: 'minute', apikey: s.key, params });
    assert.is(res.status, 400);
    assert.match(res.json.message, message);
  }
  const res = await postApi<Data>(s.server, { apiname: 'daily', apikey: s.key, params: { symbols: '600000', tradedate: SUSPENDED.tradedate } });
  assert.is(res.status, 200);
  assert.equal(res.json.data!.items, []);
  assert.is(res.json.message, 'no data; 600000.SH has no bars for 20250103 (a stock-day without fills has none)');
});

test.run();
