import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteStateStore } from '../../../serve/access/sqliteState.js';
import { SERVICE_SCHEMA_VERSION } from '../../../serve/access/serviceDb.js';
import { tempDir } from '../../support/tempDir.js';
import { stateContract } from './stateContract.js';

/** Two stores on one service.db stand for two server processes on one host. */
stateContract('SQLite (service.db)', async () => {
  const dir = tempDir();
  const opts = { path: join(dir, 'service.db'), cursorKeyFile: join(dir, 'cursor.key') };
  const a = new SqliteStateStore(opts);
  const b = new SqliteStateStore(opts);
  return { a, b, close: async () => void (await Promise.all([a.close(), b.close()])) };
});

const t = suite('SQLite state store: schema version');

t('service.db records its schema version and refuses one newer than this program', async () => {
  const dir = tempDir();
  const path = join(dir, 'service.db');
  const store = new SqliteStateStore({ path, cursorKeyFile: join(dir, 'cursor.key') });
  await store.close();
  const raw = new Database(path);
  assert.is(raw.pragma('user_version', { simple: true }), SERVICE_SCHEMA_VERSION);
  raw.pragma(`user_version = ${SERVICE_SCHEMA_VERSION + 1}`);
  raw.close();
  assert.throws(() => new SqliteStateStore({ path, cursorKeyFile: join(dir, 'cursor.key') }), /schema version 2, newer than this tickvault knows \(1\)/);
});

t.run();
