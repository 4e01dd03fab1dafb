import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { asDiskFault, asOpenFault, atStage, isStageDiskFault } from '../../ingest/diskFault.js';
import { diskCauseOf } from '../../storage/diskCause.js';
import { IngestError, stagingFailed } from '../../ingest/errors.js';
import { errorFromWire, errorToWire } from '../../shared/workerErrors.js';
import { tempDir } from '../support/tempDir.js';

const t = suite('disk faults');

const sys = (code: string, path?: string) => Object.assign(new Error(`${code}: boom`), { code, ...(path ? { path } : {}) });

t("the cause is found down a stage error's cause chain, with the path the failing call names", () => {
  assert.equal(diskCauseOf(stagingFailed('commit', sys('ENOSPC', '/d/seg'))), { cause: 'no space left on device', path: '/d/seg' });
});

t("a stage's disk fault gives its own cause and path, not the stage folder", () => {
  const fault = asDiskFault('seal', '/data', sys('ENOSPC', '/data/level2/x.parquet'));
  assert.equal(diskCauseOf(new Error('wrapped', { cause: fault })), { cause: 'no space left on device', path: '/data/level2/x.parquet' });
});

t('atStage: a disk fault becomes one IngestError naming stage, path and cause; anything else passes unchanged', async () => {
  const e = await atStage('seal', '/data', async () => {
    throw sys('ENOSPC');
  }).catch((x: unknown) => x);
  assert.instance(e, IngestError);
  assert.is((e as IngestError).stage, 'seal');
  assert.is(
    (e as IngestError).message,
    'no space left on device while sealing files into /data: free space (or make it writable) and run the same command again; nothing half-written is listed',
  );
  const other = new Error('not a disk');
  assert.is(
    await atStage('staging', '/data', async () => {
      throw other;
    }).catch((x: unknown) => x),
    other,
  );
  assert.is(await atStage('staging', '/data', async () => 7), 7);
});

t('a spent quota (EDQUOT) reads like a full disk: the same one line, its own cause', async () => {
  const e = await atStage('staging', '/d/staging', async () => {
    throw sys('EDQUOT', '/d/staging/seg-1');
  }).catch((x: unknown) => x);
  assert.instance(e, IngestError);
  assert.is(
    (e as IngestError).message,
    'disk quota exceeded while staging rows in /d/staging/seg-1: free space (or make it writable) and run the same command again; nothing half-written is listed',
  );
  // Through a seal worker (its errors cross as data) and a SQLite wrapper alike.
  assert.equal(diskCauseOf(errorFromWire(errorToWire(stagingFailed('append', sys('EDQUOT'))))), { cause: 'disk quota exceeded', path: null });
});

t('a fault made by an inner stage keeps its words through an outer one (an import seals while it stages)', async () => {
  const e = await atStage('staging', '/d/staging', () =>
    atStage('seal', '/d', async () => {
      throw sys('ENOSPC');
    }),
  ).catch((x: unknown) => x);
  assert.is((e as IngestError).stage, 'seal');
  assert.match((e as IngestError).message, /^no space left on device while sealing files into \/d: /);
  // Also when it comes back from a seal worker.
  const crossed = errorFromWire(errorToWire(asDiskFault('seal', '/d', sys('ENOSPC'))));
  assert.ok(isStageDiskFault(crossed));
  assert.is(asDiskFault('staging', '/d/staging', crossed), crossed);
});

t('opening a data directory: SQLite\'s "unable to open" and mkdir\'s ENOENT stay as they are where the disk is writable', () => {
  const dir = join(tempDir(), 'data');
  mkdirSync(dir);
  const cantOpen = Object.assign(new Error('unable to open database file'), { code: 'SQLITE_CANTOPEN' });
  assert.is(asOpenFault(dir, cantOpen), cantOpen);
  const missing = sys('ENOENT', join(dir, 'x'));
  assert.is(asOpenFault(join(dir, 'x', 'y'), missing), missing);
  // A disk cause is mapped at once.
  assert.match((asOpenFault(dir, sys('EROFS')) as Error).message, new RegExp(`^read-only file system while opening the data directory at ${dir}: `));
});

t.run();
