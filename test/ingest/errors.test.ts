import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ClosureFileError } from '../../calendar/closureFile.js';
import { exitCodeOf } from '../../cli/exitCode.js';
import { IngestError, isStagingFailure, stagingFailed } from '../../ingest/errors.js';
import { ConfigError } from '../../shared/config.js';
import { isRetriable, TickvaultBaseError } from '../../shared/retry/baseError.js';

const t = suite('IngestError and its exit code');

t('defaults to not retriable, with empty context', () => {
  const e = new IngestError('consumer', 'gone');
  assert.ok(e instanceof Error);
  assert.is(e.name, 'IngestError');
  assert.is(e.stage, 'consumer');
  assert.is(e.retriable, false);
  assert.equal(e.context, {});
  assert.is(e.cause, undefined);
});

t('keeps flags, cause and context', () => {
  const cause = new Error('ECONNREFUSED');
  const e = new IngestError('produce', 'publishing failed', { retriable: true, cause, context: { file: 'a.gz', messages: 3 } });
  assert.is(e.retriable, true);
  assert.ok(e instanceof TickvaultBaseError, 'one hierarchy');
  assert.is(isRetriable(e), true);
  assert.is(isRetriable(new IngestError('consumer', 'gone')), false);
  assert.is(e.cause, cause);
  assert.equal(e.context, { file: 'a.gz', messages: 3 });
});

t('a staging failure names where it failed and is told apart from other stages', () => {
  const e = stagingFailed('group commit', new Error('ENOSPC'));
  assert.is(e.message, 'staging group commit failed: ENOSPC');
  assert.equal(e.context, { where: 'group commit' });
  assert.ok(isStagingFailure(e));
  assert.not.ok(isStagingFailure(new IngestError('decode', 'x')));
  assert.not.ok(isStagingFailure(new Error('staging x failed')));
});

t('the CLI exits 2 on input the user must fix, 1 on any ingest failure', () => {
  assert.is(exitCodeOf(new ConfigError('bad flag')), 2);
  assert.is(exitCodeOf(new ClosureFileError('bad line')), 2);
  assert.is(exitCodeOf(new IngestError('metrics', 'port in use')), 1);
  assert.is(exitCodeOf(new IngestError('decode', 'worker died', { retriable: true })), 1);
  assert.is(exitCodeOf(new Error('anything')), 1);
});

t.run();
