/**
 * The one durable write (shared/durableFile.ts): the file is whole under its final name once
 * the call returns; a write that fails leaves neither a temporary file nor a changed final one.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { replaceDurably, writeDurably } from '../../shared/durableFile.js';
import { tempDir } from '../support/tempDir.js';

const test = suite('shared/durableFile');

test('writes the bytes under the final name, and nothing else is left in the folder', async () => {
  const dir = tempDir();
  const data = Buffer.from(Array.from({ length: 300_000 }, (_, i) => i % 251));
  await writeDurably(join(dir, 'a.bin'), data);
  assert.ok(readFileSync(join(dir, 'a.bin')).equals(data));
  assert.equal(readdirSync(dir), ['a.bin']);
});

test('a fill that throws installs nothing: an existing file keeps its bytes, no temporary file stays', async () => {
  const dir = tempDir();
  const path = join(dir, 'b.txt');
  writeFileSync(path, 'old');
  const err = await replaceDurably(path, async (fh) => {
    await fh.writeFile('half of the new');
    throw new Error('check failed');
  }).catch((e: unknown) => e);
  assert.match((err as Error).message, /check failed/);
  assert.is(readFileSync(path, 'utf8'), 'old');
  assert.equal(readdirSync(dir), ['b.txt']);
});

test('what the fill returns is returned, after the file is in place', async () => {
  const dir = tempDir();
  const path = join(dir, 'c.txt');
  const r = await replaceDurably(path, async (fh) => {
    await fh.write('xyz');
    return 3;
  });
  assert.is(r, 3);
  assert.is(readFileSync(path, 'utf8'), 'xyz');
});

test('a folder that does not exist: the error of the open, nothing created', async () => {
  const dir = tempDir();
  const err = await writeDurably(join(dir, 'missing', 'd.txt'), Buffer.from('x')).catch((e: unknown) => e);
  assert.is((err as NodeJS.ErrnoException).code, 'ENOENT');
  assert.equal(readdirSync(dir), []);
});

test.run();
