/**
 * `tickvault repair` and the bars (api-contract: Bars): a damaged minute file and a missing
 * daily file are found by doctor and made again from the day's own files (never fetched), as
 * the day's new version; doctor is then clean and the bars equal DuckDB's from the trade files.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { BarCatalogReader } from '../../storage/bars/barCatalog.js';
import { barLake, refDaily, refMinuteBars } from '../support/barsReference.js';
import { readCatalog } from '../support/catalog.js';
import { runCli } from '../support/cli.js';
import { duckRows, sqlString } from '../support/duckdb.js';
import { tempDir } from '../support/tempDir.js';

test('damaged and missing bar files are rebuilt from the day’s files; doctor is clean after', async () => {
  const { dataDir: pristine } = await barLake();
  const dataDir = join(tempDir('tickvault-repair-bars-'), 'data');
  cpSync(pristine, dataDir, { recursive: true });
  const day = (d: string) => readCatalog(dataDir, (c) => new BarCatalogReader(c.db).barDay(d), null)!;
  const before = { minute: day('20250103'), daily: day('20250106') };
  const minute = join(dataDir, before.minute.minutePath!);
  const bytes = readFileSync(minute);
  bytes[bytes.length >> 1] ^= 0x5a;
  writeFileSync(minute, bytes);
  rmSync(join(dataDir, before.daily.dailyPath!));

  const doctor = await runCli(['doctor', '--data-dir', dataDir]);
  assert.is(doctor.code, 1);
  assert.match(doctor.stdout + doctor.stderr, /checksum-mismatch/);
  assert.match(doctor.stdout + doctor.stderr, /missing/);

  const r = await runCli(['repair', '--from', pristine, '--data-dir', dataDir]);
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, new RegExp(`rebuilt ${before.minute.minutePath!.replaceAll('.', '\\.')} \\(bars of 20250103, from its files here\\)`));
  assert.match(r.stdout, new RegExp(`rebuilt ${before.daily.dailyPath!.replaceAll('.', '\\.')} \\(bars of 20250106, from its files here\\)`));
  assert.match(r.stdout, /bars of 2 of 2 days rebuilt; .*all repaired/);
  const clean = await runCli(['doctor', '--data-dir', dataDir]);
  assert.is(clean.code, 0, clean.stdout + clean.stderr);

  const after = { minute: day('20250103'), daily: day('20250106') };
  assert.is(after.minute.version, before.minute.version + 1);
  assert.not.ok(existsSync(minute), 'the damaged version is removed');
  const expected = await refMinuteBars(dataDir, '20250103');
  const got = await duckRows(`SELECT symbol, trademin, close, vol FROM read_parquet(${sqlString(join(dataDir, after.minute.minutePath!))})`);
  assert.equal(
    got.map((g) => [g.symbol, g.trademin, g.close, Number(g.vol)]),
    expected.map((e) => [e.symbol, e.trademin, e.close, e.vol]),
  );
  const daily = await duckRows(`SELECT symbol, close FROM read_parquet(${sqlString(join(dataDir, after.daily.dailyPath!))}) ORDER BY symbol`);
  assert.equal(
    daily.map((d) => [d.symbol, d.close]),
    (await refDaily(dataDir, '20250106')).map((e) => [e.symbol, e.close]),
  );
});

test('a day sealed before bars existed: doctor warns, doctor --rebuild makes its bars', async () => {
  const { dataDir: pristine } = await barLake();
  const dataDir = join(tempDir('tickvault-old-bars-'), 'data');
  cpSync(pristine, dataDir, { recursive: true });
  const day = '20250103';
  const before = readCatalog(dataDir, (c) => new BarCatalogReader(c.db).barDay(day), null)!;
  // What a catalog from before bars holds for the day: no bar rows, no bar files, no due mark.
  const db = new Database(join(dataDir, 'catalog.db'));
  db.prepare('DELETE FROM bar_days WHERE tradedate = ?').run(day);
  db.prepare('DELETE FROM daily_bars WHERE tradedate = ?').run(day);
  db.close();
  rmSync(join(dataDir, before.minutePath!));
  rmSync(join(dataDir, before.dailyPath!));

  const doctor = await runCli(['doctor', '--data-dir', dataDir]);
  assert.is(doctor.code, 0, 'a warning, not a problem');
  assert.match(doctor.stdout, new RegExp(`WARNING bars +bars/\\*/date=${day}: a sealed day without bars`));
  const rebuild = await runCli(['doctor', '--rebuild', '--data-dir', dataDir]);
  assert.is(rebuild.code, 0, rebuild.stdout + rebuild.stderr);
  assert.match(rebuild.stdout, /a sealed day without bars .* \(rebuilt\)/);
  const again = await runCli(['doctor', '--data-dir', dataDir]);
  assert.not.match(again.stdout, /WARNING bars/);
  const after = readCatalog(dataDir, (c) => new BarCatalogReader(c.db).barDay(day), null)!;
  const got = await duckRows(`SELECT symbol, trademin, close, vol FROM read_parquet(${sqlString(join(dataDir, after.minutePath!))})`);
  assert.equal(
    got.map((g) => [g.symbol, g.trademin, g.close, Number(g.vol)]),
    (await refMinuteBars(dataDir, day)).map((e) => [e.symbol, e.trademin, e.close, e.vol]),
  );
});

test.run();
