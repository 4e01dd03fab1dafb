import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadOrCreateCursorKey } from '../../../serve/access/cursorKey.js';
import { CursorCodec, type CursorState } from '../../../serve/detailedHistory/cursor.js';
import { tempDir } from '../../support/tempDir.js';

const state: CursorState = {
  apiname: 'level2_quote_history',
  symbol: '600000.SH',
  tradedate: '20250102',
  startMs: 34_200_000,
  endMs: 53_999_999,
  position: 4321,
  version: 1,
};

const keys = suite('cursor key file');

keys('created once and reused; every codec on the directory agrees', () => {
  const dir = tempDir();
  const path = join(dir, 'cursor.key');
  const k1 = loadOrCreateCursorKey(path);
  assert.is(k1.length, 32);
  assert.is(statSync(path).mode & 0o777, 0o600);
  const k2 = loadOrCreateCursorKey(path);
  assert.ok(k1.equals(k2));
  const t = new CursorCodec(k1).encode(state);
  assert.ok(new CursorCodec(k2).parse(t).ok);
});

keys('a damaged key file is an error, never silently replaced', () => {
  const dir = tempDir();
  const path = join(dir, 'cursor.key');
  writeFileSync(path, 'short');
  assert.throws(() => loadOrCreateCursorKey(path), /holds 5 bytes/);
});

keys('concurrent first use by several processes yields one key', async () => {
  const dir = tempDir();
  const path = join(dir, 'cursor.key');
  const module = join(fileURLToPath(import.meta.url), '..', '..', '..', '..', 'serve', 'access', 'cursorKey.js');
  const script = `import(${JSON.stringify(module)}).then(m => process.stdout.write(m.loadOrCreateCursorKey(${JSON.stringify(path)}).toString('hex')))`;
  const outputs = await Promise.all(
    Array.from(
      { length: 6 },
      () =>
        new Promise<string>((resolve, reject) => {
          const child = spawn(process.execPath, ['--input-type=module', '-e', script]);
          let out = '';
          child.stdout.on('data', (d: Buffer) => (out += d.toString()));
          child.on('error', reject);
          child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}`))));
        }),
    ),
  );
  const onDisk = readFileSync(path).toString('hex');
  for (const o of outputs) assert.is(o, onDisk);
});

keys.run();
