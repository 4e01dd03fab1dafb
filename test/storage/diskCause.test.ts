import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { diskCauseOf, isDiskCode } from '../../storage/diskCause.js';

const t = suite('storage/diskCause');

const sys = (code: string, path?: string) => Object.assign(new Error(`${code}: boom`), { code, ...(path ? { path } : {}) });

t('the cause is found on the error or down its cause chain, with the path the failing call names', () => {
  assert.equal(diskCauseOf(sys('ENOSPC', '/d/x')), { cause: 'no space left on device', path: '/d/x' });
  assert.equal(diskCauseOf(sys('EROFS')), { cause: 'read-only file system', path: null });
  assert.equal(diskCauseOf(sys('EDQUOT')), { cause: 'disk quota exceeded', path: null });
  assert.equal(diskCauseOf(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })), { cause: 'no space left on device', path: null });
  assert.equal(diskCauseOf(new Error('outer', { cause: new Error('mid', { cause: sys('ENOSPC', '/d/y') }) })), {
    cause: 'no space left on device',
    path: '/d/y',
  });
  assert.is(diskCauseOf(sys('ENOENT')), null);
  assert.is(diskCauseOf('text'), null);
  assert.is(diskCauseOf(null), null);
});

t('disk codes: errno and SQLite, nothing else', () => {
  assert.ok(isDiskCode('ENOSPC'));
  assert.ok(isDiskCode('SQLITE_FULL'));
  assert.not.ok(isDiskCode('ENOENT'));
  assert.not.ok(isDiskCode('toString'));
  assert.not.ok(isDiskCode(28));
});

t.run();
