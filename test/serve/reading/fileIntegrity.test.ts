import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, readFileSync, renameSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CatalogFile } from '../../../storage/catalog.js';
import { DamagedFileError } from '../../../storage/damagedFile.js';
import { ByteLru } from '../../../serve/reading/byteLru.js';
import { FileIntegrity } from '../../../serve/reading/fileIntegrity.js';
import { preparedFiles } from '../../support/server.js';
import { tempDir } from '../../support/tempDir.js';

const test = suite("serve/fileIntegrity: a file is served only while it holds the catalog's bytes");

const DATA = { days: 1, stocks: 3, indexes: 1, ticks: 0.1 } as const;

/** A copy of a prepared data directory (its files may be spoiled) and the catalog's entries. */
async function copied(): Promise<{ original: string; dir: string; files: CatalogFile[] }> {
  const { dataDir, files } = await preparedFiles(DATA);
  const dir = join(tempDir('tickvault-integrity-'), 'data');
  cpSync(dataDir, dir, { recursive: true });
  return { original: dataDir, dir, files };
}

async function rejection(p: Promise<unknown>): Promise<DamagedFileError> {
  try {
    await p;
  } catch (e) {
    assert.instance(e, DamagedFileError);
    return e as DamagedFileError;
  }
  throw new Error('expected a DamagedFileError');
}

test('whole files pass; a flipped byte, a truncation and a missing file are each damage, named and reported once', async () => {
  const { dir, files } = await copied();
  const [flipped, truncated, missing, whole] = files;
  const bytes = readFileSync(join(dir, flipped.path));
  bytes[Math.floor(bytes.length / 2)] ^= 0x01;
  writeFileSync(join(dir, flipped.path), bytes);
  truncateSync(join(dir, truncated.path), truncated.bytes - 1);
  rmSync(join(dir, missing.path));
  const found: string[] = [];
  const integrity = new FileIntegrity(dir, new ByteLru(1 << 20), (e) => found.push(e.path));

  await integrity.check(whole);
  const sha = createHash('sha256').update(bytes).digest('hex');
  assert.is(
    (await rejection(integrity.check(flipped))).message,
    `stored file ${flipped.path} is damaged: its SHA-256 ${sha} differs from the catalog's ${flipped.sha256}`,
  );
  assert.is(
    (await rejection(integrity.check(truncated))).message,
    `stored file ${truncated.path} is damaged: it is ${truncated.bytes - 1} bytes, the catalog lists ${truncated.bytes}`,
  );
  assert.is((await rejection(integrity.check(missing))).message, `stored file ${missing.path} is damaged: it is missing`);
  // Asked again: the same answers, and nothing reported twice.
  for (const f of [flipped, truncated, missing]) await rejection(integrity.check(f));
  await integrity.check(whole);
  assert.equal(found, [flipped.path, truncated.path, missing.path]);
  assert.is(integrity.damagedCount, 3);
});

test('a damaged file is not read again while it is the same file; a verified copy renamed in is served without a restart', async () => {
  const { original, dir, files } = await copied();
  const file = files[0];
  const path = join(dir, file.path);
  const spoiled = readFileSync(path);
  spoiled[100] ^= 0xff;
  writeFileSync(path, spoiled);
  const integrity = new FileIntegrity(dir, new ByteLru(1 << 20));
  await rejection(integrity.check(file));
  // The same damage, rewritten in place with the same size and mtime, is still the same file:
  // if the check read it again it would now pass, so passing here would mean it re-read.
  const { mtimeMs, atimeMs } = statSync(path);
  writeFileSync(path, readFileSync(join(original, file.path)));
  utimesSync(path, atimeMs / 1000, mtimeMs / 1000);
  await rejection(integrity.check(file));
  // What tickvault repair does: a copy under a temporary name, renamed over (a new inode).
  copyFileSync(join(original, file.path), `${path}.tmp-repair`);
  renameSync(`${path}.tmp-repair`, path);
  await integrity.check(file);
  assert.is(integrity.damagedCount, 0);
});

test('damage found while reading a verified file (found) is remembered: later checks refuse it, once reported', async () => {
  const { dir, files } = await copied();
  const file = files[1];
  const found: string[] = [];
  const integrity = new FileIntegrity(dir, new ByteLru(1 << 20), (e) => found.push(e.message));
  await integrity.check(file);
  const decodeFault = new DamagedFileError(file.path, 'page 3 of column bid1 does not decompress');
  await integrity.found(decodeFault);
  await integrity.found(decodeFault);
  assert.is(await rejection(integrity.check(file)), decodeFault);
  assert.equal(found, [decodeFault.message]);
  // Replaced by another file: judged from its bytes again (here they are the catalog's).
  const path = join(dir, file.path);
  copyFileSync(path, `${path}.tmp`);
  renameSync(`${path}.tmp`, path);
  await integrity.check(file);
});

test.run();
