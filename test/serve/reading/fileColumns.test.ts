import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { copyFileSync, mkdirSync, truncateSync } from 'node:fs';
import { DamagedFileError } from '../../../storage/damagedFile.js';
import { join } from 'node:path';
import { CatalogReader, openCatalog, type CatalogFile } from '../../../storage/catalog.js';
import { SCHEMAS, type Dataset } from '../../../shared/schema.js';
import { ByteLru } from '../../../serve/reading/byteLru.js';
import { FileColumnCache } from '../../../serve/reading/fileColumns.js';
import { duckRows, sqlString } from '../../support/duckdb.js';
import { cataloguedAs, preparedData } from '../../support/server.js';
import { tempDir } from '../../support/tempDir.js';

const test = suite('serve/fileColumns: decoded sealed files, fast reader and fallback');

async function duckColumns(path: string, dataset: Dataset): Promise<unknown[][]> {
  const rows = await duckRows(`SELECT * FROM read_parquet(${sqlString(path)}, hive_partitioning = false)`);
  return SCHEMAS[dataset].fieldNames.map((name) => rows.map((r) => (typeof r[name] === 'bigint' ? Number(r[name]) : r[name])));
}

async function catalogFiles(dataDir: string): Promise<CatalogFile[]> {
  const db = openCatalog(join(dataDir, 'catalog.db'), true);
  try {
    return [...new CatalogReader(db).everyFile()];
  } finally {
    db.close();
  }
}

test('every column of level2 and index files equals DuckDB, whole file and per row group', async () => {
  const { dataDir } = await preparedData();
  const files = await catalogFiles(dataDir);
  const cache = new FileColumnCache(dataDir, 64 << 20);
  const level2 = files.find((f) => f.dataset === 'level2')!;
  const index = files.find((f) => f.dataset === 'index')!;
  for (const file of [level2, index]) {
    const expected = await duckColumns(join(dataDir, file.path), file.dataset);
    const whole = await cache.get(file);
    assert.is(whole.rows, file.rows);
    whole.columns.forEach((col, c) => assert.equal(Array.from(col), expected[c], `${file.path} ${SCHEMAS[file.dataset].fieldNames[c]}`));
    // Row group 1 only, two columns: the same values at the same positions.
    const [g1] = await new FileColumnCache(dataDir, 64 << 20).rowGroups(file, [1], [2, 5]);
    const base = file.rowGroupSize;
    const time = g1.get(2)!;
    const num = g1.get(5)!;
    assert.is(time.kind, 'string');
    for (let i = 0; i < Math.min(file.rowGroupSize, file.rows - base); i++) {
      assert.is(time.values[i], expected[2][base + i]);
      const v = num.values[i] as number;
      assert.is(Number.isNaN(v) ? null : v, expected[5][base + i]);
    }
  }
});

test('a file in a layout this reader does not handle is decoded by the general reader, same shape', async () => {
  const { dataDir } = await preparedData();
  const [file] = (await catalogFiles(dataDir)).filter((f) => f.dataset === 'level2');
  // DuckDB writes dictionary pages, v2 statistics and its own row groups: rewrite with our
  // row-group size so the catalog's positions still hold, and read that copy.
  const other = tempDir();
  mkdirSync(join(other, 'level2'), { recursive: true });
  const copy = join(other, 'level2', 'copy.parquet');
  await duckRows(
    `COPY (SELECT * FROM read_parquet(${sqlString(join(dataDir, file.path))}, hive_partitioning = false)) TO ${sqlString(copy)} ` +
      `(FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${file.rowGroupSize})`,
  );
  const mine = await new FileColumnCache(dataDir, 64 << 20).get(file);
  const theirs = await new FileColumnCache(other, 64 << 20).get(cataloguedAs(file, other, 'level2/copy.parquet'));
  assert.equal(
    theirs.columns.map((c) => Array.from(c)),
    mine.columns.map((c) => Array.from(c)),
  );
});

test('a truncated file is a DamagedFileError naming it, not wrong data', async () => {
  const { dataDir } = await preparedData();
  const [file] = (await catalogFiles(dataDir)).filter((f) => f.dataset === 'level2');
  const other = tempDir();
  mkdirSync(join(other, 'level2'), { recursive: true });
  copyFileSync(join(dataDir, file.path), join(other, 'level2', 'x.parquet'));
  truncateSync(join(other, 'level2', 'x.parquet'), 1000);
  const cache = new FileColumnCache(other, 1 << 20);
  try {
    // Its size and SHA-256 listed as they are now: what fails is the decoding, not the check of the bytes.
    await cache.get(cataloguedAs(file, other, 'level2/x.parquet'));
    assert.unreachable('decoded a truncated file');
  } catch (e) {
    assert.instance(e, DamagedFileError);
    assert.is((e as DamagedFileError).path, 'level2/x.parquet');
  }
  assert.is(cache.lru.size, 0, 'failed entries are not kept');
});

test('the LRU stays within its byte budget and keeps recently used entries', async () => {
  const lru = new ByteLru(1000);
  await lru.set('a', 400, Promise.resolve(1));
  await lru.set('b', 400, Promise.resolve(2));
  await lru.get('a');
  await lru.set('c', 400, Promise.resolve(3));
  assert.ok(lru.usedBytes <= 1000);
  assert.ok(lru.get('a') !== undefined, 'recently used a kept');
  assert.is(lru.get('b'), undefined, 'least recently used b evicted');
  assert.equal(lru.keys(), ['c', 'a'], 'least to most recently used');
  // An entry larger than the whole budget is still served, but not kept (it would evict all).
  assert.is(await lru.set('huge', 5000, Promise.resolve(4)), 4);
  assert.is(lru.get('huge'), undefined);
  assert.equal(lru.keys(), ['c', 'a']);
  // A rejected value is dropped, so the next call computes again.
  const failed = lru.set('bad', 10, Promise.reject(new Error('decode failed')));
  await failed.catch(() => undefined);
  assert.is(lru.get('bad'), undefined);
  assert.ok(lru.usedBytes <= 1000 && lru.usedBytes >= 800, `${lru.usedBytes} bytes accounted`);
});

test.run();
