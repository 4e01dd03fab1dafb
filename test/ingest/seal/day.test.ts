import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { sealDay, type SealDeps } from '../../../ingest/seal/day.js';
import { encodeParquet } from '../../../storage/parquet/writer.js';
import { openIngestStores, type IngestStores } from '../../../ingest/staging/stores.js';
import { CatalogReader } from '../../../storage/catalog.js';
import { SCHEMAS, type SnapshotRow } from '../../../shared/schema.js';
import { duckRows, sqlString } from '../../support/duckdb.js';
import { tempDir } from '../../support/tempDir.js';

const WIDTH = SCHEMAS.level2.valueFields.length;
const DAY = '20250102';

function row(symbol: string, timeMs: number, close: number): SnapshotRow {
  const values: (number | null)[] = new Array(WIDTH).fill(null);
  values[3] = close;
  return { dataset: 'level2', symbol, tradedate: DAY, timeMs, values };
}

function setup(): { stores: IngestStores; deps: SealDeps; dir: string } {
  const dir = tempDir();
  const stores = openIngestStores(dir, () => 1_735_800_000_000);
  const deps: SealDeps = { dataDir: dir, catalog: stores.catalog, staging: stores.staging, encode: encodeParquet, nowMs: () => 1_735_800_000_000 };
  return { stores, deps, dir };
}

// 09:30:00.000 + k minutes + 1.5 s, over three minutes: counts per minute 2, 1, 3.
const T = (min: number, ms: number) => (9 * 60 + 30 + min) * 60_000 + ms;
const ROWS = [
  row('600000.SH', T(0, 1500), 10.01),
  row('600000.SH', T(0, 4500), 10.02),
  row('600000.SH', T(1, 0), 10.03),
  row('600000.SH', T(2, 0), 10.04),
  row('600000.SH', T(2, 3000), 10.05),
  row('600000.SH', T(2, 59_999), 10.06),
];

const sealSuite = suite('sealDay');

sealSuite('writes the file, lists it with its facts, drops staging, seals the day', async () => {
  const { stores, deps, dir } = setup();
  stores.staging.stage([...ROWS].reverse(), []);
  const res = await sealDay(deps, 'level2', DAY);
  assert.equal({ files: res.files, rows: res.rows, skipped: res.skipped }, { files: 1, rows: 6, skipped: 0 });
  const path = join(dir, 'level2', `date=${DAY}`, '600000.SH.parquet');
  const bytes = readFileSync(path);
  const f = new CatalogReader(stores.catalog).file('level2', DAY, '600000.SH')!;
  assert.is(f.path, `level2/date=${DAY}/600000.SH.parquet`);
  assert.is(f.rows, 6);
  assert.is(f.bytes, bytes.length);
  assert.is(f.sha256, createHash('sha256').update(bytes).digest('hex'));
  assert.is(f.firstTimeMs, T(0, 1500));
  assert.is(f.lastTimeMs, T(2, 59_999));
  assert.is(f.rowGroupSize, SCHEMAS.level2.rowGroupSize);
  assert.is(f.minuteIndex.base, 9 * 60 + 30);
  assert.equal([...f.minuteIndex.counts], [2, 1, 3]);
  const got = await duckRows(`SELECT time, close FROM read_parquet(${sqlString(path)})`);
  assert.equal(got, [
    { time: '093001500', close: 10.01 },
    { time: '093004500', close: 10.02 },
    { time: '093100000', close: 10.03 },
    { time: '093200000', close: 10.04 },
    { time: '093203000', close: 10.05 },
    { time: '093259999', close: 10.06 },
  ]);
  assert.equal(stores.staging.openDays(), []);
  assert.ok(new CatalogReader(stores.catalog).isDaySealed('level2', DAY));
  assert.equal(new CatalogReader(stores.catalog).storedTradingDays(), [DAY]);
  stores.close();
});

sealSuite('overwrites an unlisted leftover file (crash before the catalog commit)', async () => {
  const { stores, deps, dir } = setup();
  const path = join(dir, 'level2', `date=${DAY}`, '600000.SH.parquet');
  mkdirSync(join(dir, 'level2', `date=${DAY}`), { recursive: true });
  writeFileSync(path, 'half-written garbage');
  stores.staging.stage(ROWS, []);
  await sealDay(deps, 'level2', DAY);
  const got = await duckRows(`SELECT count(*)::INT AS n FROM read_parquet(${sqlString(path)})`);
  assert.equal(got, [{ n: 6 }]);
  assert.not.ok(existsSync(`${path}.tmp-${process.pid}`));
  stores.close();
});

sealSuite('never rewrites a listed file: staged rows of a sealed symbol-day are dropped unwritten', async () => {
  const { stores, deps, dir } = setup();
  stores.staging.stage(ROWS, []);
  await sealDay(deps, 'level2', DAY, { markDaySealed: false });
  const path = join(dir, 'level2', `date=${DAY}`, '600000.SH.parquet');
  const before = { bytes: readFileSync(path), mtime: statSync(path).mtimeMs };
  // As if a crash hit between the catalog commit and dropping the staged rows.
  stores.staging.stage([row('600000.SH', T(0, 1500), 99.99)], []);
  const res = await sealDay(deps, 'level2', DAY);
  assert.equal({ files: res.files, skipped: res.skipped }, { files: 0, skipped: 1 });
  assert.ok(readFileSync(path).equals(before.bytes));
  assert.is(statSync(path).mtimeMs, before.mtime);
  assert.equal(stores.staging.openDays(), []);
  stores.close();
});

sealSuite('seals only the given symbols and can leave the day open', async () => {
  const { stores, deps } = setup();
  stores.staging.stage([...ROWS, row('000001.SZ', T(0, 0), 5)], []);
  const res = await sealDay(deps, 'level2', DAY, { symbols: ['000001.SZ'], markDaySealed: false });
  assert.is(res.files, 1);
  assert.equal(stores.staging.symbolsOf('level2', DAY), ['600000.SH']);
  assert.not.ok(new CatalogReader(stores.catalog).isDaySealed('level2', DAY));
  stores.close();
});

sealSuite.run();
