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
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tempDir } from '../../support/tempDir.js';
import { readCatalog } from '../../support/catalog.js';
import { runCli } from '../../support/cli.js';
import { REPLAY_NOW } from '../../support/server.js';
import { checkDataDir, openDoctorIo } from '../../../storage/doctorCheck.js';

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

test('restate rebuilds the bars of the day it changes (version 2, the old files removed); doctor checks the bar files', async () => {
  const { dataDir: pristine, feedFile } = await barLake();
  const dataDir = join(tempDir('tickvault-bars-restate-'), 'data');
  cpSync(pristine, dataDir, { recursive: true });
  const date = '20250106';
  const symbol = '000001.SZ';
  // Corrections: the day's first ten fills at a price 0.05 higher, and a new fill at the close's match.
  const fills = readFileSync(feedFile, 'utf8')
    .split('\n')
    .filter((l) => l.includes(`"kind":"trade","symbol":"${symbol}","tradedate":"${date}"`) && l.includes('"trade_code":"F"'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const changed = fills.slice(0, 10).map((r) => ({ ...r, price: Math.round(((r.price as number) + 0.05) * 100) / 100 }));
  const added = { ...fills[fills.length - 1], trade_id: 99_999_999, time: '150000000', price: 12.34, volume: 500, amount: 6170 };
  const corrections = join(tempDir('tickvault-bars-corr-'), 'c.jsonl');
  writeFileSync(corrections, [...changed, added].map((r) => JSON.stringify(r)).join('\n') + '\n');
  const before = readCatalog(dataDir, (c) => new BarCatalogReader(c.db).barDay(date), null)!;
  const r = await runCli(['restate', '--data-dir', dataDir, '--dataset', 'trade', '--date', date, corrections], { env: { TICKVAULT_NOW: REPLAY_NOW } });
  assert.is(r.code, 0, r.stderr);

  const after = readCatalog(dataDir, (c) => new BarCatalogReader(c.db).barDay(date), null)!;
  assert.is(after.version, before.version + 1);
  assert.not.ok(existsSync(join(dataDir, before.minutePath!)), 'the replaced minute file is removed');
  const expected = await refMinuteBars(dataDir, date);
  const got = await duckRows(`SELECT * FROM read_parquet(${sqlString(join(dataDir, after.minutePath!))})`);
  assert.is(got.length, expected.length);
  got.forEach((g, i) => {
    const e = expected[i];
    assert.equal(
      [g.symbol, g.trademin, g.open, g.high, g.low, g.close, Number(g.vol), g.amount],
      [e.symbol, e.trademin, e.open, e.high, e.low, e.close, e.vol, e.fen / 100],
    );
  });
  const close = got.find((g) => g.symbol === symbol && g.trademin === '1500')!;
  assert.is(close.low, 12.34, 'the added fill at 15:00:00.000 is in the 1500 bar');
  const daily = readCatalog(dataDir, (c) => new BarCatalogReader(c.db).dailyOf(symbol, date, date), [])[0];
  assert.is(daily.low, 12.34);

  // doctor: the bar files are checked against the catalog.
  const io = openDoctorIo(dataDir);
  try {
    assert.ok((await checkDataDir(io)).ok);
    const minute = join(dataDir, after.minutePath!);
    const bytes = readFileSync(minute);
    bytes[100] ^= 0xff;
    writeFileSync(minute, bytes);
    writeFileSync(join(dataDir, 'bars', 'minute', `date=${date}`, 'stray.parquet'), 'x');
    const report = await checkDataDir(io);
    assert.equal(
      report.problems.map((p) => [p.kind, p.path]),
      [
        ['checksum-mismatch', after.minutePath],
        ['extra', `bars/minute/date=${date}/stray.parquet`],
      ],
    );
  } finally {
    io.close();
  }
});

test.run();
