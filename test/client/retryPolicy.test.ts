import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TickvaultDownloadError, TickvaultError, TickvaultPagingError, isRetriable } from '../../client/index.js';
import { DEFAULT_RETRY_POLICY, parseRetryAfter, retryDelayMs } from '../../client/retryPolicy.js';

/** The retry decision as a pure function: which statuses, how long, how often. */
const test = suite('retry policy');
const policy = { maxAttempts: 3, maxWaitSec: 10, jitter: 0.2 };

test('never retries 400, 401, 403, 413, 415 or 500', () => {
  for (const status of [400, 401, 403, 413, 415, 500, 200]) assert.is(retryDelayMs(status, 1, 1, policy, 0.5), null, String(status));
});

test('429 and 503 wait Retry-After plus jitter within its bound', () => {
  assert.is(retryDelayMs(429, 2, 1, policy, 0), 2000);
  assert.is(retryDelayMs(429, 2, 1, policy, 0.999), 2000 + Math.floor(0.999 * 400));
  assert.is(retryDelayMs(503, 1, 1, policy, 0), 1000);
  assert.is(retryDelayMs(503, 1, 2, policy, 0.5), 1000 + 100, 'jitter at least up to 100 ms');
  assert.is(retryDelayMs(503, 0, 1, policy, 0.5), 50, 'Retry-After 0: jitter alone');
});

test('a 503 for a file damaged at the site is not retried, whatever its Retry-After; other reasons are', () => {
  assert.is(retryDelayMs(503, 1, 1, policy, 0, 'damaged'), null);
  assert.is(retryDelayMs(503, 1, 1, policy, 0, 'slot'), 1000);
  assert.is(retryDelayMs(429, 1, 1, policy, 0, 'rate'), 1000);
});

test('a missing Retry-After waits 1 s', () => {
  assert.is(retryDelayMs(429, undefined, 1, policy, 0), 1000);
});

test('capped: no retry once maxAttempts tries are made, nor when Retry-After exceeds maxWaitSec', () => {
  assert.is(retryDelayMs(429, 1, 3, policy, 0), null);
  assert.is(retryDelayMs(429, 11, 1, policy, 0), null);
  assert.is(retryDelayMs(429, 10, 1, policy, 0), 10_000);
  assert.is(retryDelayMs(429, 3600, 1, DEFAULT_RETRY_POLICY, 0), null, 'the Parquet quota until Beijing midnight is not waited for');
});

test('the errors say retriable themselves: 429 and 503 but a damaged file; nothing else', () => {
  for (const code of [400, 401, 403, 413, 415, 500]) assert.is(new TickvaultError(code, 'x').retriable, false, String(code));
  assert.is(new TickvaultError(429, 'x', 1, 'rate').retriable, true);
  assert.is(new TickvaultError(503, 'x', 1, 'slot').retriable, true);
  assert.is(new TickvaultError(503, 'x').retriable, true, "a vendor's 503, no reason");
  assert.is(new TickvaultError(503, 'x', 1, 'damaged').retriable, false);
  assert.is(isRetriable(new TickvaultDownloadError('interrupted', 'x')), false, 'a download already cost a quota unit');
  assert.is(isRetriable(new TickvaultPagingError('x')), false);
});

test('Retry-After: delta seconds, an HTTP date, or nothing', () => {
  const now = Date.parse('2025-01-06T08:00:00Z');
  assert.is(parseRetryAfter('3', now), 3);
  assert.is(parseRetryAfter(' 0 ', now), 0);
  assert.is(parseRetryAfter('Mon, 06 Jan 2025 08:00:05 GMT', now), 5);
  assert.is(parseRetryAfter('Mon, 06 Jan 2025 07:00:00 GMT', now), 0);
  assert.is(parseRetryAfter(null, now), undefined);
  assert.is(parseRetryAfter('soon', now), undefined);
});

test.run();
