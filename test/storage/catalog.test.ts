import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { CATALOG_SCHEMA_VERSION, CatalogReader, CatalogWriter, openCatalog } from '../../storage/catalog.js';
import { tempDir } from '../support/tempDir.js';

const t = suite('catalog.db schema version');

t('a new catalog records its schema version; one written by a newer tickvault is refused, read-only too', () => {
  const path = join(tempDir(), 'catalog.db');
  openCatalog(path).close();
  const raw = new Database(path);
  assert.is(raw.pragma('user_version', { simple: true }), CATALOG_SCHEMA_VERSION);
  raw.pragma('user_version = 0'); // a catalog from before versions were kept opens as version 1
  raw.close();
  openCatalog(path).close();
  const again = new Database(path);
  assert.is(again.pragma('user_version', { simple: true }), CATALOG_SCHEMA_VERSION);
  again.pragma(`user_version = ${CATALOG_SCHEMA_VERSION + 1}`);
  again.close();
  const newer = CATALOG_SCHEMA_VERSION + 1;
  assert.throws(
    () => openCatalog(path),
    new RegExp(`schema version ${newer}, newer than this tickvault knows \\(${CATALOG_SCHEMA_VERSION}\\); upgrade tickvault`),
  );
  assert.throws(() => openCatalog(path, true), new RegExp(`schema version ${newer}, newer`));
});

const FILE = (symbol: string, relPath: string, rows: number, sha256: string) => ({
  symbol,
  relPath,
  rows,
  firstTimeMs: 34_200_000,
  lastTimeMs: 34_200_000 + rows,
  bytes: rows * 10,
  sha256,
  minuteBase: 570,
  minuteCounts: Uint8Array.of(rows, 0),
});

t('a catalog of schema 1 gains versions: its files are version 1, read-only readers of it see version 1 too', () => {
  const path = join(tempDir(), 'catalog.db');
  // Schema 1 as it was: files without a version column, no version tables.
  const raw = new Database(path);
  raw.exec(`CREATE TABLE files (dataset TEXT NOT NULL, tradedate TEXT NOT NULL, symbol TEXT NOT NULL, path TEXT NOT NULL, rows INTEGER NOT NULL,
    first_time_ms INTEGER NOT NULL, last_time_ms INTEGER NOT NULL, bytes INTEGER NOT NULL, sha256 TEXT NOT NULL, row_group_size INTEGER NOT NULL,
    minute_base INTEGER NOT NULL, minute_counts BLOB NOT NULL, sealed_at_ms INTEGER NOT NULL, PRIMARY KEY (dataset, tradedate, symbol)) WITHOUT ROWID;
    CREATE TABLE sealed_days (dataset TEXT NOT NULL, tradedate TEXT NOT NULL, sealed_at_ms INTEGER NOT NULL, PRIMARY KEY (dataset, tradedate)) WITHOUT ROWID;
    CREATE TABLE calendar_days (tradedate TEXT PRIMARY KEY, source TEXT NOT NULL) WITHOUT ROWID;
    INSERT INTO files VALUES ('level2', '20250102', '600000.SH', 'level2/date=20250102/600000.SH.parquet', 5, 1, 2, 3, 'ab', 1200, 570, x'0500', 9);
    PRAGMA user_version = 1;`);
  raw.close();
  const ro = new CatalogReader(openCatalog(path, true));
  assert.is(ro.file('level2', '20250102', '600000.SH')!.version, 1);
  assert.is(ro.fileVersion('level2', '20250102', '600000.SH', 2), null);
  assert.is(ro.restatedGeneration('level2', '20250102'), 0);
  assert.equal(ro.dayVersions('level2', '20250102'), { restatedSymbols: 0, highestVersion: 1 });
  ro.db.close();
  const db = openCatalog(path);
  assert.is(new CatalogReader(db).file('level2', '20250102', '600000.SH')!.version, 1);
  assert.is(db.pragma('user_version', { simple: true }), CATALOG_SCHEMA_VERSION);
  db.close();
});

t('a restatement: the new version current in one transaction, the old one kept and found by its version, parts replaced, the generation up', () => {
  const db = openCatalog(join(tempDir(), 'catalog.db'));
  const w = new CatalogWriter(db);
  const r = new CatalogReader(db);
  w.recordFiles(
    'index',
    '20250102',
    480,
    [FILE('000300', 'index/date=20250102/000300.parquet', 4, 'a1'), FILE('000905', 'index/date=20250102/000905.parquet', 6, 'b1')],
    100,
  );
  const part = (name: string, symbols: string[]) => ({
    relPath: `_boundary/index/date=20250102/${name}.part`,
    symbols,
    directory: Buffer.alloc(0),
    bytes: 1,
    sha256: name,
  });
  w.recordBoundaryPart('index', '20250102', part('p1', ['000300', '000905']), 100);
  w.markDaySealed('index', '20250102', 100);

  w.recordRestatement(
    'index',
    '20250102',
    480,
    [{ ...FILE('000300', 'index/date=20250102/000300.v2.parquet', 5, 'a2'), version: 2 }],
    ['_boundary/index/date=20250102/p1.part'],
    [part('p2', ['000300', '000905'])],
    200,
  );
  const now = r.file('index', '20250102', '000300')!;
  assert.equal([now.version, now.path, now.rows, now.sha256, now.sealedAtMs], [2, 'index/date=20250102/000300.v2.parquet', 5, 'a2', 200]);
  const old = r.fileVersion('index', '20250102', '000300', 1)!;
  assert.equal([old.version, old.path, old.rows, old.sha256], [1, 'index/date=20250102/000300.parquet', 4, 'a1']);
  assert.is(r.fileVersion('index', '20250102', '000300', 2)!.sha256, 'a2');
  assert.is(r.fileVersion('index', '20250102', '000300', 3), null);
  assert.is(r.file('index', '20250102', '000905')!.version, 1, 'an untouched symbol stays as sealed');
  assert.equal(
    r.boundaryParts('index', '20250102').map((p) => p.path),
    ['_boundary/index/date=20250102/p2.part'],
  );
  assert.is(r.restatedGeneration('index', '20250102'), 1);
  assert.equal(r.dayVersions('index', '20250102'), { restatedSymbols: 1, highestVersion: 2 });
  assert.equal(
    [...r.everyOldVersion()].map((f) => [f.path, f.version]),
    [['index/date=20250102/000300.parquet', 1]],
  );

  // Version 3, and a symbol the day lacked (its first version).
  w.recordRestatement(
    'index',
    '20250102',
    480,
    [
      { ...FILE('000300', 'index/date=20250102/000300.v3.parquet', 5, 'a3'), version: 3 },
      { ...FILE('000852', 'index/date=20250102/000852.parquet', 2, 'c1'), version: 1 },
    ],
    [],
    [],
    300,
  );
  assert.equal(
    [...r.everyOldVersion()].map((f) => f.version),
    [1, 2],
  );
  assert.is(r.file('index', '20250102', '000852')!.version, 1);
  assert.is(r.restatedGeneration('index', '20250102'), 2);
  assert.equal(r.dayVersions('index', '20250102'), { restatedSymbols: 1, highestVersion: 3 });
  assert.equal(r.symbolsOfDay('index', '20250102'), ['000300', '000852', '000905']);
  db.close();
});

t.run();
