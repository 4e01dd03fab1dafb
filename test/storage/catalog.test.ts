import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { CATALOG_SCHEMA_VERSION, openCatalog } from '../../storage/catalog.js';
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
  assert.throws(() => openCatalog(path), /schema version 2, newer than this tickvault knows \(1\); upgrade tickvault/);
  assert.throws(() => openCatalog(path, true), /schema version 2, newer/);
});

t.run();
