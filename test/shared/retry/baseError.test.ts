import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isRetriable, TickvaultBaseError } from '../../../shared/retry/baseError.js';

/** One hierarchy: an error says whether it is worth another try, and the question is asked the same way of any error. */
const test = suite('retriable errors (shared/retry/baseError)');

test('the error says retriable or not, and keeps its message and cause', () => {
  const cause = new Error('ECONNRESET');
  const e = new TickvaultBaseError('state unreachable', { retriable: true, cause });
  assert.ok(e instanceof Error);
  assert.is(e.retriable, true);
  assert.is(e.message, 'state unreachable');
  assert.is(e.cause, cause);
  assert.is(isRetriable(e), true);
  assert.is(isRetriable(new TickvaultBaseError('bad flag', { retriable: false })), false);
});

test('any error carrying retriable answers alike (kafkajs errors have one); one saying nothing is not retried', () => {
  assert.is(isRetriable(Object.assign(new Error('broker not found'), { retriable: true })), true);
  assert.is(isRetriable(Object.assign(new Error('SASL failed'), { retriable: false })), false);
  assert.is(isRetriable(Object.assign(new Error('truthy is not true'), { retriable: 'yes' })), false);
  assert.is(isRetriable(new Error('ENOSPC')), false);
  assert.is(isRetriable(undefined), false);
  assert.is(isRetriable('retriable'), false);
});

test.run();
