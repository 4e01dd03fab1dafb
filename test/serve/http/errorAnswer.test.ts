import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { errorAnswerOf } from '../../../serve/http/errorAnswer.js';
import { badRequest, busy, internal, tooManyRequests } from '../../../serve/http/apiError.js';
import { StateDiskError, StateUnavailableError } from '../../../serve/access/stateStore.js';
import { DamagedFileError } from '../../../storage/damagedFile.js';

/** The one mapping from a thrown value to the answer a client sees (serve/http/errorAnswer.ts). */
const test = suite('error answers');

test('an exposed ApiError answers with its own code, message and Retry-After', () => {
  assert.equal(errorAnswerOf(badRequest('params.page_size must be a positive integer')), {
    code: 400,
    message: 'params.page_size must be a positive integer',
    reason: 'param',
  });
  assert.equal(errorAnswerOf(tooManyRequests('quota', 'used up', 3600)), { code: 429, message: 'used up', reason: 'quota', retryAfterSec: 3600 });
  assert.equal(errorAnswerOf(busy('in progress', 1)), { code: 503, message: 'in progress', reason: 'slot', retryAfterSec: 1 });
});

test('an unreachable shared state is a 503 with Retry-After, saying nothing was counted', () => {
  const a = errorAnswerOf(new StateUnavailableError('connect ECONNREFUSED 127.0.0.1:5432'));
  assert.is(a.code, 503);
  assert.is(a.reason, 'state');
  assert.is(a.retryAfterSec, 2);
  assert.match(a.message, /nothing was counted/);
  assert.not.match(a.message, /ECONNREFUSED|5432/);
});

test('a state write the disk refused is a 503 "disk" with a longer Retry-After, naming the cause but not the path', () => {
  const a = errorAnswerOf(
    new StateDiskError('no space left on device', '/srv/data/service.db', {
      cause: Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }),
    }),
  );
  assert.is(a.code, 503);
  assert.is(a.reason, 'disk');
  assert.is(a.retryAfterSec, 10);
  assert.match(a.message, /\(no space left on device\); nothing was counted/);
  assert.not.match(a.message, /service\.db|SQLITE/);
});

test('a damaged stored file is a 503 "damaged" naming the file, what is wrong and what helps, with Retry-After', () => {
  const a = errorAnswerOf(new DamagedFileError('level2/date=20250106/600998.SH.parquet', 'it is 500 bytes, the catalog lists 41022'));
  assert.equal(a, {
    code: 503,
    reason: 'damaged',
    retryAfterSec: 60,
    message:
      'stored file level2/date=20250106/600998.SH.parquet is damaged: it is 500 bytes, the catalog lists 41022; ' +
      'its rows are not served until it is repaired on this site (the operator is told); retry later or ask another site',
  });
});

test('anything else, and internal ApiErrors, are a fixed 500', () => {
  assert.equal(errorAnswerOf(new TypeError("Cannot read properties of undefined (reading 'x')")), {
    code: 500,
    message: 'internal server error',
    reason: 'internal',
  });
  assert.equal(errorAnswerOf(internal('authorize called twice')), { code: 500, message: 'internal server error', reason: 'internal' });
  assert.equal(errorAnswerOf('a thrown string'), { code: 500, message: 'internal server error', reason: 'internal' });
});

test.run();
