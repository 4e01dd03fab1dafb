/**
 * Row-JSON workers against the rows made on this thread: for level-2, trade and order files,
 * every row group's bytes and offsets are the same; a page assembled from the workers' groups
 * equals DuckDB's rows; a file the dedicated reader cannot read is handed back (null), and a
 * file that does not match its catalog row is a DamagedFileError naming it, as if made here.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { SCHEMAS } from '../../../shared/schema.js';
import { FileColumnCache } from '../../../serve/reading/fileColumns.js';
import { RowJsonPool } from '../../../serve/detailedHistory/rowJsonPool.js';
import { DamagedFileError } from '../../../storage/damagedFile.js';
import { pageRowsJson } from '../../../serve/detailedHistory/rows.js';
import { piecesText } from '../../../serve/http/jsonPieces.js';
import { serializeRows } from '../../../storage/rowText/rowJson.js';
import { duckRows, sqlString } from '../../support/duckdb.js';
import { cataloguedAs, preparedFiles } from '../../support/server.js';
import { tempDir } from '../../support/tempDir.js';

const test = suite('serve/detailedHistory row-JSON workers');

const files = () => preparedFiles({ ticks: 1 });

test('every row group of level-2, trade and order files: the same bytes and offsets as this thread makes', async () => {
  const { dataDir, files: all } = await files();
  const pool = new RowJsonPool({ dataDir, footerBytes: 8 << 20 }, 2);
  try {
    const cache = new FileColumnCache(dataDir, 256 << 20);
    let groups = 0;
    for (const dataset of ['level2', 'trade', 'order'] as const) {
      const some = all.filter((f) => f.dataset === dataset).slice(0, 2);
      assert.ok(some.length > 0, dataset);
      for (const file of some) {
        const fields = SCHEMAS[dataset].fields.map((_, i) => i);
        const n = Math.ceil(file.rows / file.rowGroupSize);
        const made = await Promise.all(Array.from({ length: n }, (_, g) => pool.rows(file, g, 1024)));
        for (let g = 0; g < n; g++) {
          const [m] = await cache.rowGroups(file, [g], fields);
          const rows = Math.min(file.rowGroupSize, file.rows - g * file.rowGroupSize);
          const mine = serializeRows(
            fields.map((c) => m.get(c)!),
            0,
            rows,
          );
          assert.ok(made[g] !== null, `${file.path}#${g}`);
          assert.ok(made[g]!.bytes.equals(mine.bytes), `${file.path}#${g} bytes`);
          assert.equal(Array.from(made[g]!.offsets), Array.from(mine.offsets), `${file.path}#${g} offsets`);
          groups++;
        }
      }
    }
    assert.ok(groups >= 10, `${groups} row groups compared`);
  } finally {
    await pool.close();
  }
});

test("a whole-day page from the workers is DuckDB's rows", async () => {
  const { dataDir, files: all } = await files();
  const file = all.find((f) => f.dataset === 'level2')!;
  const pool = new RowJsonPool({ dataDir, footerBytes: 8 << 20 }, 2);
  try {
    const pieces = await piecesText(
      await pageRowsJson(
        new FileColumnCache(dataDir, 64 << 20),
        file,
        0,
        file.rows,
        SCHEMAS.level2.fields.map((_, i) => i),
        { rowText: null, pool },
      ),
    );
    const got = JSON.parse(`[${Buffer.concat(pieces).toString('utf8')}]`) as unknown[][];
    const want = await duckRows(`SELECT * FROM read_parquet(${sqlString(join(dataDir, file.path))}, hive_partitioning = false) ORDER BY time`);
    assert.is(got.length, file.rows);
    assert.equal(
      got,
      want.map((r) => SCHEMAS.level2.fieldNames.map((n) => r[n] ?? null)),
    );
  } finally {
    await pool.close();
  }
});

test('a file outside the dedicated reader is handed back; a file unlike its catalog row is an error', async () => {
  const { dataDir, files: all } = await files();
  const file = all.find((f) => f.dataset === 'level2')!;
  const other = tempDir();
  mkdirSync(join(other, 'level2'), { recursive: true });
  // Snappy pages: outside what the sealer writes, so the dedicated reader declines them.
  await duckRows(
    `COPY (SELECT * FROM read_parquet(${sqlString(join(dataDir, file.path))}, hive_partitioning = false)) TO ${sqlString(join(other, 'level2', 'duck.parquet'))} ` +
      `(FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE ${file.rowGroupSize})`,
  );
  copyFileSync(join(dataDir, file.path), join(other, 'level2', 'same.parquet'));
  const pool = new RowJsonPool({ dataDir: other, footerBytes: 8 << 20 }, 1);
  try {
    const duck = cataloguedAs(file, other, 'level2/duck.parquet');
    assert.is(await pool.rows(duck, 0, 1024), null);
    // …and the page is made on this thread instead, with the same rows.
    const fields = SCHEMAS.level2.fields.map((_, i) => i);
    const viaPool = Buffer.concat(
      await piecesText(await pageRowsJson(new FileColumnCache(other, 64 << 20), duck, 0, file.rows, fields, { rowText: null, pool })),
    );
    const original = Buffer.concat(await piecesText(await pageRowsJson(new FileColumnCache(dataDir, 64 << 20), file, 0, file.rows, fields)));
    assert.ok(viaPool.equals(original), "the general reader's page differs");
    try {
      await pool.rows({ ...file, path: 'level2/same.parquet', rows: file.rows + 1 }, 0, 1024);
      assert.unreachable('served a file whose row count differs from the catalog');
    } catch (e) {
      assert.match((e as Error).message, /rows, the catalog says/);
      // Made in the worker, it arrives as itself: the server answers it as a damaged file.
      assert.instance(e, DamagedFileError);
      assert.is((e as DamagedFileError).path, 'level2/same.parquet');
    }
    // The worker is still there for the next request.
    assert.ok((await pool.rows({ ...file, path: 'level2/same.parquet' }, 0, 1024)) !== null);
  } finally {
    await pool.close();
  }
});

test.run();
