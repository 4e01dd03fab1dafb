import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { Limits, secondsToNextBeijingDay } from '../../../serve/access/limits.js';
import { openServiceDb } from '../../../serve/access/serviceDb.js';
import { tempDir } from '../../support/tempDir.js';

const limits = suite('limits (service.db counters)');

/** Two connections to one service.db stand for two server processes. */
function twoConnections() {
  const path = join(tempDir(), 'service.db');
  return [openServiceDb(path), openServiceDb(path)] as const;
}

limits('per-second window: the limit passes, the next is refused with Retry-After 1, a new second resets', () => {
  const [a, b] = twoConnections();
  const la = new Limits(a);
  const lb = new Limits(b);
  const t = 1_700_000_000_000;
  for (let i = 1; i <= 4; i++) assert.equal((i % 2 ? la : lb).hitRate(7, 4, t + i), { ok: true, count: i });
  assert.equal(la.hitRate(7, 4, t + 900), { ok: false, retryAfterSec: 1 });
  assert.equal(lb.hitRate(8, 4, t + 900), { ok: true, count: 1 }, 'another account is independent');
  assert.equal(lb.hitRate(7, 4, t + 1000), { ok: true, count: 1 }, 'the next second starts afresh');
});

limits('daily allowance: exactly `limit` units across processes, then Retry-After to Beijing midnight', () => {
  const [a, b] = twoConnections();
  const la = new Limits(a);
  const lb = new Limits(b);
  const now = Date.parse('2025-01-06T15:59:00Z'); // 23:59 Beijing
  for (let i = 1; i <= 5; i++) assert.is((i % 2 ? la : lb).takeDaily(1, 'level2_quote_history', 'parquet', 5, now).ok, true);
  assert.equal(la.takeDaily(1, 'level2_quote_history', 'parquet', 5, now), { ok: false, retryAfterSec: 60 });
  assert.is(la.daily(1, 'level2_quote_history', 'parquet', now), 5, 'a refusal does not count');
  assert.is(la.takeDaily(1, 'tick_history', 'parquet', 5, now).ok, true, 'per interface');
  assert.is(la.takeDaily(1, 'level2_quote_history', 'calls', 5, now).ok, true, 'per kind');
  // 00:00 Beijing is a new day.
  const next = Date.parse('2025-01-06T16:00:00Z');
  assert.equal(lb.takeDaily(1, 'level2_quote_history', 'parquet', 5, next), { ok: true, count: 1 });
});

limits('a zero allowance is always exhausted', () => {
  const [a] = twoConnections();
  const r = new Limits(a).takeDaily(1, 'level2_quote_history', 'parquet', 0, Date.parse('2025-01-06T04:00:00Z'));
  assert.equal(r, { ok: false, retryAfterSec: 12 * 3600 });
});

limits('seconds to the next Beijing midnight', () => {
  assert.is(secondsToNextBeijingDay(Date.parse('2025-01-06T16:00:00Z')), 86400);
  assert.is(secondsToNextBeijingDay(Date.parse('2025-01-06T15:59:59.500Z')), 1);
});

limits.run();
