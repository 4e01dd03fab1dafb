/**
 * Server processes started together on a fresh data directory all open (and so create) the
 * same service.db at once. Each must come up: before openDb retried its set-up, the loser of
 * the race to switch the new file to WAL died with SQLITE_BUSY (65 of 100 tries with two).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SERVICE_SCHEMA_VERSION } from '../../serve/access/serviceDb.js';
import { tempDir } from '../support/tempDir.js';

const test = suite('openDb: several processes creating one database at once');
const SERVICE_DB = new URL('../../serve/access/serviceDb.js', import.meta.url).href;

/** Runs `openServiceDb(path)` in a new process that waits until `atMs` to open it. */
function openAt(path: string, atMs: number): Promise<{ code: number | null; out: string }> {
  const code = `
    const { openServiceDb } = await import(${JSON.stringify(SERVICE_DB)});
    while (Date.now() < ${atMs}) {}
    try { openServiceDb(${JSON.stringify(path)}).close(); } catch (e) { console.log(e.code, e.message); process.exit(1); }`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('error', reject);
    child.on('close', (exit) => resolve({ code: exit, out }));
  });
}

test('three processes, fifteen fresh files: every open succeeds and the file is complete', async () => {
  const root = tempDir('tickvault-opendb-');
  for (let i = 0; i < 15; i++) {
    const path = join(root, `service-${i}.db`);
    // Far enough ahead that all three have started and wait at the same instant.
    const at = Date.now() + 700;
    const results = await Promise.all([openAt(path, at), openAt(path, at), openAt(path, at)]);
    for (const r of results) assert.is(r.code, 0, `try ${i}: ${r.out.trim()}`);
    const db = new Database(path, { readonly: true });
    try {
      assert.is(db.pragma('journal_mode', { simple: true }), 'wal');
      assert.is(db.pragma('user_version', { simple: true }), SERVICE_SCHEMA_VERSION);
      const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((t) => t.name);
      assert.equal(tables, ['accounts', 'api_keys', 'daily_counts', 'rate_windows', 'slots']);
    } finally {
      db.close();
    }
  }
});

test.run();
