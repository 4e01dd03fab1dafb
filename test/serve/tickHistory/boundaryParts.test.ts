/**
 * The boundary parts written at seal (storage/boundary/) against the files themselves: for a
 * replayed trading day of indexes and stocks, every minute of the day, both sides, every field
 * and a few, the answers read from the parts equal those computed from the full Parquet files
 * (the path a file no part names takes). A part gone or damaged costs speed only; a damaged
 * one is reported, once, as a DamagedFileError naming it.
 */
import { createHash } from 'node:crypto';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CatalogReader, openCatalog } from '../../../storage/catalog.js';
import { layoutFor } from '../../../storage/layout.js';
import { DamagedFileError } from '../../../storage/damagedFile.js';
import { SCHEMAS } from '../../../shared/schema.js';
import { FileColumnCache } from '../../../serve/reading/fileColumns.js';
import { BoundaryIndex, boundaryRowTexts } from '../../../serve/tickHistory/boundary.js';
import type { BoundaryItem } from '../../../serve/tickHistory/daySymbols.js';
import type { Side } from '../../../serve/tickHistory/params.js';
import { TickDays, type DayFile } from '../../../serve/tickHistory/dayFiles.js';
import { ByteLru } from '../../../serve/reading/byteLru.js';
import { preparedData } from '../../support/server.js';
import { tempDir } from '../../support/tempDir.js';

const DAY = '20250102';
const test = suite('boundary parts');

/** Sealed files as the boundary reads a day's symbols. */
const items = (files: readonly DayFile[]): BoundaryItem[] => files.map((df) => ({ kind: 'file', symbol: df.file.symbol, df }));
const at = (minute: number, side: Side) => ({ minute, side });

async function setup() {
  const { dataDir } = await preparedData({ days: 1, stocks: 6, indexes: 9, seed: 'boundary-parts' });
  const catalog = new CatalogReader(openCatalog(layoutFor(dataDir).catalogDb, true));
  const index = (): BoundaryIndex => new BoundaryIndex(new FileColumnCache(dataDir, 64 << 20), 64 << 20);
  return { dataDir, catalog, index };
}

test('the seal lists a part naming every file of the day, whole on disk', async () => {
  const { dataDir, catalog } = await setup();
  for (const dataset of ['index', 'level2'] as const) {
    const parts = catalog.boundaryParts(dataset, DAY);
    assert.ok(parts.length >= 1, `${dataset}: no part`);
    const named = parts.flatMap((p) => p.symbols).sort();
    assert.equal(named, catalog.symbolsOfDay(dataset, DAY), dataset);
    for (const p of parts) {
      const bytes = readFileSync(join(dataDir, p.path));
      assert.is(bytes.length, p.bytes);
      assert.is(createHash('sha256').update(bytes).digest('hex'), p.sha256);
      assert.ok(p.path.startsWith(`_boundary/${dataset}/date=${DAY}/`), p.path);
    }
  }
  assert.equal(catalog.boundaryParts('trade', DAY), []);
});

test('every minute of the day, both sides: parts answer exactly as the full files do', async () => {
  const { catalog, index } = await setup();
  const some = ['symbol', 'time', 'close', 'bid_vol5'].map((f) => SCHEMAS.index.position.get(f)!);
  const every = SCHEMAS.index.fields.map((_, i) => i);
  for (const dataset of ['index', 'level2'] as const) {
    const files = new TickDays(catalog, dataset, new ByteLru(64 << 20)).day(DAY).files;
    assert.ok(files.length >= 6, `${dataset}: ${files.length} files`);
    assert.ok(
      files.every((f) => f.boundary !== null),
      `${dataset}: a file without its part`,
    );
    const fromFiles: DayFile[] = files.map((f) => ({ ...f, boundary: null }));
    const parts = index();
    const full = index();
    let rows = 0;
    for (let minute = 0; minute < 24 * 60; minute++) {
      for (const side of ['before', 'after'] as const) {
        for (const fields of [every, some]) {
          const got = await boundaryRowTexts(parts, items(files), at(minute, side), fields);
          const want = await boundaryRowTexts(full, items(fromFiles), at(minute, side), fields);
          assert.equal(got, want, `${dataset} ${minute} ${side} ${fields.length} fields`);
          rows += got.rows.length;
        }
      }
    }
    // Not a comparison of empty answers: each file answers one side at nearly every minute.
    assert.ok(rows > 24 * 60 * 2 * files.length, `${dataset}: ${rows} rows compared`);
  }
});

/** A copy of the prepared data, to spoil. */
async function copyOfData() {
  const { dataDir } = await setup();
  const copy = join(tempDir('tickvault-parts-'), 'data');
  cpSync(dataDir, copy, { recursive: true });
  const catalog = new CatalogReader(openCatalog(layoutFor(copy).catalogDb, true));
  const reports: DamagedFileError[] = [];
  const index = () => new BoundaryIndex(new FileColumnCache(copy, 64 << 20), 64 << 20, (e) => reports.push(e));
  return { copy, catalog, index, reports };
}

test('a part gone costs speed, not answers: the rows come from the files', async () => {
  const { copy, catalog, index } = await copyOfData();
  for (const dataset of ['index', 'level2'] as const) rmSync(join(copy, catalog.boundaryParts(dataset, DAY)[0].path));
  const every = SCHEMAS.index.fields.map((_, i) => i);
  let compared = 0;
  for (const dataset of ['index', 'level2'] as const) {
    const files = new TickDays(catalog, dataset, new ByteLru(64 << 20)).day(DAY).files;
    const fromFiles = files.map((f) => ({ ...f, boundary: null }));
    for (const minute of [9 * 60 + 25, 10 * 60 + 1, 11 * 60 + 30, 13 * 60, 14 * 60 + 59, 15 * 60 + 1]) {
      for (const side of ['before', 'after'] as const) {
        const want = await boundaryRowTexts(index(), items(fromFiles), at(minute, side), every);
        assert.equal(await boundaryRowTexts(index(), items(files), at(minute, side), every), want, `${dataset} ${minute} ${side}`);
        compared += want.rows.length;
      }
    }
  }
  assert.ok(compared > 100, `${compared} rows compared`);
});

test('a damaged part costs speed, not answers, and is reported once as a DamagedFileError naming it, never a silent detour', async () => {
  const { copy, catalog, reports } = await copyOfData();
  const [stockPart] = catalog.boundaryParts('level2', DAY);
  // Same size, every block's bytes changed: zstd refuses them.
  const damaged = readFileSync(join(copy, stockPart.path));
  for (let i = 4; i < damaged.length - 40; i++) damaged[i] ^= 0x5a;
  writeFileSync(join(copy, stockPart.path), damaged);
  const every = SCHEMAS.index.fields.map((_, i) => i);
  const files = new TickDays(catalog, 'level2', new ByteLru(64 << 20)).day(DAY).files;
  const fromFiles = files.map((f) => ({ ...f, boundary: null }));
  const reference = new BoundaryIndex(new FileColumnCache(copy, 64 << 20), 64 << 20);
  const spoiled = new BoundaryIndex(new FileColumnCache(copy, 64 << 20), 64 << 20, (e) => reports.push(e));
  let compared = 0;
  for (const minute of [10 * 60 + 1, 14 * 60 + 59]) {
    for (const side of ['before', 'after'] as const) {
      const want = await boundaryRowTexts(reference, items(fromFiles), at(minute, side), every);
      assert.equal(await boundaryRowTexts(spoiled, items(files), at(minute, side), every), want, `${minute} ${side}`);
      compared += want.rows.length;
    }
  }
  assert.ok(compared > 0, `${compared} rows compared`);
  assert.is(reports.length, 1, 'reported once, however many rows it could not give');
  assert.instance(reports[0], DamagedFileError);
  assert.is(reports[0].path, stockPart.path);
});

test('a catalog from before parts (no table, opened read only) has none', async () => {
  const path = join(tempDir('tickvault-oldcat-'), 'catalog.db');
  const db = openCatalog(path);
  db.exec('DROP TABLE boundary_parts');
  db.close();
  assert.equal(new CatalogReader(openCatalog(path, true)).boundaryParts('index', DAY), []);
});

test.run();
