import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { backoff, nextDelayMs, parseRetryAfter, type Backoff } from '../../../shared/retry/backoff.js';

/** The one retry policy: each caller's cadence, computed by hand, and the rules that give up. */
const test = suite('retry policy (shared/retry/backoff)');

/** The waits until the policy gives up (or `limit` tries), with a fixed random number. */
function cadence(b: Backoff, limit: number, random = 0): number[] {
  const out: number[] = [];
  for (let attempt = 1; attempt <= limit; attempt++) {
    const d = nextDelayMs(b, { attempt, random });
    if (d === null) break;
    out.push(d);
  }
  return out;
}

test('exponential: the first wait doubled on each try, up to the cap (a full disk: 100 ms to 5 s)', () => {
  const disk = backoff({ firstDelayMs: 100, maxDelayMs: 5000 });
  assert.equal(cadence(disk, 9), [100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000]);
  // Long after the power would overflow, the wait is still the cap, never Infinity or NaN.
  assert.is(nextDelayMs(disk, { attempt: 10_000 }), 5000);
  assert.is(nextDelayMs(backoff({ firstDelayMs: 0, maxDelayMs: 5 }), { attempt: 10_000 }), 0);
});

test('another multiplier: 3 from 10 ms, capped at 500', () => {
  assert.equal(cadence(backoff({ firstDelayMs: 10, multiplier: 3, maxDelayMs: 500 }), 6), [10, 30, 90, 270, 500, 500]);
});

test('a constant wait (multiplier 1), given up after maxAttempts tries in all', () => {
  // 5 tries: 4 waits between them, none after the fifth.
  assert.equal(cadence(backoff({ firstDelayMs: 500, multiplier: 1, maxAttempts: 5 }), 100), [500, 500, 500, 500]);
  assert.equal(cadence(backoff({ firstDelayMs: 500, maxAttempts: 1 }), 100), [], 'one try: no retry at all');
});

test('given up once giveUpAfterMs has passed since the first try', () => {
  const b = backoff({ firstDelayMs: 1, maxDelayMs: 100, giveUpAfterMs: 10_000 });
  assert.is(nextDelayMs(b, { attempt: 3, elapsedMs: 9_999 }), 4);
  assert.is(nextDelayMs(b, { attempt: 3, elapsedMs: 10_000 }), null);
});

test('the wait a server asks for replaces the computed one; longer than maxWaitMs is not waited for', () => {
  const b = backoff({ firstDelayMs: 100, maxDelayMs: 200, maxWaitMs: 30_000 });
  assert.is(nextDelayMs(b, { attempt: 5, askedWaitMs: 7000 }), 7000, 'not capped by maxDelayMs: the server knows when');
  assert.is(nextDelayMs(b, { attempt: 1, askedWaitMs: 30_000 }), 30_000);
  assert.is(nextDelayMs(b, { attempt: 1, askedWaitMs: 30_001 }), null);
  assert.is(nextDelayMs(b, { attempt: 1, askedWaitMs: 0 }), 0);
});

test('jitter only adds: up to the fraction of the wait, at least up to the floor', () => {
  const b = backoff({ firstDelayMs: 2000, multiplier: 1, jitter: 0.2, jitterFloorMs: 100 });
  assert.is(nextDelayMs(b, { attempt: 1, random: 0 }), 2000);
  assert.is(nextDelayMs(b, { attempt: 1, random: 0.5 }), 2200, '0.5 of 20 % of 2 s');
  assert.is(nextDelayMs(b, { attempt: 1, random: 0.999 }), 2000 + Math.floor(0.999 * 400));
  assert.is(nextDelayMs(b, { attempt: 1, askedWaitMs: 100, random: 0.5 }), 150, '20 % of 100 ms is below the 100 ms floor');
  assert.is(nextDelayMs(backoff({ firstDelayMs: 100 }), { attempt: 1, random: 0.9 }), 100, 'no jitter unless asked');
});

test('Retry-After: delta seconds, an HTTP date, or nothing', () => {
  const now = Date.parse('2025-01-06T08:00:00Z');
  assert.is(parseRetryAfter('3', now), 3);
  assert.is(parseRetryAfter(' 0 ', now), 0);
  assert.is(parseRetryAfter('Mon, 06 Jan 2025 08:00:05 GMT', now), 5);
  assert.is(parseRetryAfter('Mon, 06 Jan 2025 08:00:04 GMT', now + 500), 4, 'a part second rounds up');
  assert.is(parseRetryAfter('Mon, 06 Jan 2025 07:00:00 GMT', now), 0);
  assert.is(parseRetryAfter(null, now), undefined);
  assert.is(parseRetryAfter('', now), undefined);
  assert.is(parseRetryAfter('soon', now), undefined);
});

test.run();
