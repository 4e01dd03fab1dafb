import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { atStage, diskCauseOf } from '../../ingest/diskFault.js';
import { IngestError, stagingFailed } from '../../ingest/errors.js';

const t = suite('disk faults');

const sys = (code: string, path?: string) => Object.assign(new Error(`${code}: boom`), { code, ...(path ? { path } : {}) });

t('the cause is found on the error or down its cause chain, with the path the failing call names', () => {
  assert.equal(diskCauseOf(sys('ENOSPC', '/d/x')), { cause: 'no space left on device', path: '/d/x' });
  assert.equal(diskCauseOf(sys('EROFS')), { cause: 'read-only file system', path: null });
  assert.equal(diskCauseOf(sys('EDQUOT')), { cause: 'disk quota exceeded', path: null });
  assert.equal(diskCauseOf(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })), { cause: 'no space left on device', path: null });
  assert.equal(diskCauseOf(stagingFailed('commit', sys('ENOSPC', '/d/seg'))), { cause: 'no space left on device', path: '/d/seg' });
  assert.is(diskCauseOf(sys('ENOENT')), null);
  assert.is(diskCauseOf('text'), null);
});

t('atStage: a disk fault becomes one IngestError naming stage, path and cause; anything else passes unchanged', async () => {
  const e = await atStage('seal', '/data', async () => {
    throw sys('ENOSPC');
  }).catch((x: unknown) => x);
  assert.instance(e, IngestError);
  assert.is((e as IngestError).stage, 'seal');
  assert.is((e as IngestError).message, 'no space left on device while sealing files into /data: free space (or make it writable) and run the same command again; nothing half-written is listed');
  const other = new Error('not a disk');
  assert.is(await atStage('staging', '/data', async () => { throw other; }).catch((x: unknown) => x), other);
  assert.is(await atStage('staging', '/data', async () => 7), 7);
});

t.run();
