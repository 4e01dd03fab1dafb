/**
 * The bars a seal makes (storage/bars/): the day's minute and daily files, read back by DuckDB,
 * against bars DuckDB computes from the sealed trade and level-2 files (test/support/barsReference.ts),
 * every field of every bar; the catalog's daily rows the same; a suspended stock-day has none.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { duckRows, sqlString } from '../../support/duckdb.js';
import { BAR_DAYS, barLake, refDaily, refMinuteBars, SUSPENDED } from '../../support/barsReference.js';
import { openCatalog } from '../../../storage/catalog.js';
import { BarCatalogReader } from '../../../storage/bars/barCatalog.js';

test('every 1m bar of every stock-day in the minute files equals DuckDB’s bars from the trade files', async () => {
  const { dataDir } = await barLake();
  const catalog = new BarCatalogReader(openCatalog(join(dataDir, 'catalog.db'), true));
  let bars = 0;
  for (const date of BAR_DAYS) {
    const day = catalog.barDay(date);
    assert.ok(day?.minutePath, `bars listed for ${date}`);
    const expected = await refMinuteBars(dataDir, date);
    const got = await duckRows(`SELECT * FROM read_parquet(${sqlString(join(dataDir, day.minutePath))})`);
    assert.is(got.length, expected.length, `${date}: rows`);
    assert.is(got.length % 241, 0);
    got.forEach((g, i) => {
      const e = expected[i];
      const where = `${date} ${e.symbol} ${e.trademin}`;
      assert.equal(
        [g.tradedate, g.symbol, g.trademin, g.open, g.high, g.low, g.close, Number(g.vol), g.amount],
        [date, e.symbol, e.trademin, e.open, e.high, e.low, e.close, e.vol, e.fen / 100],
        where,
      );
    });
    bars += got.length;
    const symbols = new Set(got.map((g) => g.symbol));
    if (date === SUSPENDED.tradedate) assert.not.ok(symbols.has(SUSPENDED.symbol), 'a stock-day without fills has no bars');
    else assert.ok(symbols.has(SUSPENDED.symbol));
  }
  assert.ok(bars >= 241 * 15, `bars compared: ${bars}`);
});

test('the daily file and the catalog’s daily rows equal DuckDB’s day and opening auction', async () => {
  const { dataDir } = await barLake();
  const catalog = new BarCatalogReader(openCatalog(join(dataDir, 'catalog.db'), true));
  for (const date of BAR_DAYS) {
    const day = catalog.barDay(date)!;
    const expected = await refDaily(dataDir, date);
    const file = await duckRows(`SELECT * FROM read_parquet(${sqlString(join(dataDir, day.dailyPath!))}) ORDER BY symbol`);
    const rows = catalog.dailyOfAll(date, date);
    assert.is(file.length, expected.length);
    assert.is(rows.length, expected.length);
    expected.forEach((e, i) => {
      const f = file[i];
      const r = rows[i];
      const um =
        e.auc_price !== null && e.bid1 === e.auc_price ? [e.bid_vol1, 'B'] : e.auc_price !== null && e.ask1 === e.auc_price ? [e.ask_vol1, 'S'] : [0, null];
      assert.ok(e.auc_price !== null, `${date} ${e.symbol}: the generator's opening auction matched`);
      const want = [e.symbol, e.open, e.high, e.low, e.close, e.pre_close, e.vol, e.fen / 100, e.auc_price, e.auc_vol, e.auc_fen / 100, um[0], um[1]];
      assert.equal(
        [
          f.symbol,
          f.open,
          f.high,
          f.low,
          f.close,
          f.pre_close,
          Number(f.volume),
          f.amount,
          f.auc_price,
          Number(f.auc_volume),
          f.auc_amount,
          f.um_volume,
          f.um_side,
        ],
        want,
        `${date} ${e.symbol} (file)`,
      );
      assert.equal(
        [
          r.symbol,
          r.open,
          r.high,
          r.low,
          r.close,
          r.pre_close,
          r.volume,
          r.amount_fen / 100,
          r.auc_price,
          r.auc_volume,
          r.auc_amount_fen / 100,
          r.um_volume,
          r.um_side,
        ],
        want,
        `${date} ${e.symbol} (catalog)`,
      );
    });
  }
});

test.run();
