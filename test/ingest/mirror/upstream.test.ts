import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TickvaultError } from '../../../client/index.js';
import { apiBaseOf, MAX_WAIT_SEC, Pacer, Upstream, UpstreamUnreachableError } from '../../../ingest/mirror/upstream.js';
import { fakeUpstream } from '../../support/fakeUpstream.js';

const t = suite('mirror: the upstream and its rules');

t('the base address gets /api once; an address ending in /api is taken as is', () => {
  assert.is(apiBaseOf('http://h:8080'), 'http://h:8080');
  assert.is(apiBaseOf('http://h:8080/'), 'http://h:8080');
  assert.is(apiBaseOf('http://h:8080/api'), 'http://h:8080');
  assert.is(apiBaseOf('https://h/prefix/api/'), 'https://h/prefix');
});

t('the pacer spaces requests 1000/rate ms apart, from whichever caller', async () => {
  const pacer = new Pacer(20);
  const at: number[] = [];
  await Promise.all(
    Array.from({ length: 6 }, async () => {
      await pacer.take();
      at.push(Date.now());
    }),
  );
  at.sort((a, b) => a - b);
  // Six takes at 20/s span at least five gaps of 50 ms (timers never fire early).
  assert.ok(at[5]! - at[0]! >= 5 * 50 - 2, `span ${at[5]! - at[0]!} ms`);
});

t('one request per interface in flight; interfaces side by side; 429 and 503 waited out by Retry-After and counted', async () => {
  // Every third answer is a refusal asking for a 1 s wait.
  const up = await fakeUpstream((n) => (n % 3 === 1 ? { status: n % 2 === 0 ? 429 : 503, retryAfter: '1' } : { status: 200 }), 30);
  try {
    const upstream = new Upstream(`${up.url}/api`, 'k', 100);
    const started = Date.now();
    await Promise.all([
      ...Array.from({ length: 4 }, () => upstream.on('level2_quote_history', (c) => c.level2QuoteHistory({ symbol: '600000.SH' }))),
      ...Array.from({ length: 4 }, () => upstream.on('level2_trade_history', (c) => c.level2TradeHistory({ symbol: '600000.SH' }))),
    ]);
    assert.is(up.maxInFlight(), 1, 'never two requests of one interface at once');
    const refusals = up.seen.length - 8;
    assert.ok(refusals >= 1, 'the fake refused some');
    assert.is(upstream.counts.requests, up.seen.length);
    assert.is(upstream.counts.waits, refusals);
    assert.is(upstream.counts.waitedSec, refusals);
    assert.is((upstream.counts.byStatus.get(429) ?? 0) + (upstream.counts.byStatus.get(503) ?? 0), refusals);
    assert.is(upstream.counts.byStatus.get(200), 8);
    assert.ok(Date.now() - started >= 1000, 'the Retry-After second was waited');
  } finally {
    await up.close();
  }
});

t('a Retry-After beyond what is worth waiting (a daily quota) comes back as the error at once', async () => {
  const up = await fakeUpstream(() => ({ status: 429, retryAfter: String(MAX_WAIT_SEC + 1) }));
  try {
    const upstream = new Upstream(up.url, 'k', 100);
    const err = await upstream.on('level2_quote_history', (c) => c.level2QuoteHistory({ symbol: '600000.SH' })).catch((e: unknown) => e);
    assert.instance(err, TickvaultError);
    assert.is((err as TickvaultError).code, 429);
    assert.is((err as TickvaultError).retryAfterSec, MAX_WAIT_SEC + 1);
    assert.is(up.seen.length, 1);
  } finally {
    await up.close();
  }
});

t('a file damaged at the upstream (503 damaged) is not waited for: the error comes back at once, not counted as a wait', async () => {
  const up = await fakeUpstream(() => ({ status: 503, retryAfter: '1', reason: 'damaged' }));
  try {
    const upstream = new Upstream(up.url, 'k', 100);
    const err = await upstream.on('level2_quote_history', (c) => c.level2QuoteHistory({ symbol: '600000.SH' })).catch((e: unknown) => e);
    assert.instance(err, TickvaultError);
    assert.equal([(err as TickvaultError).code, (err as TickvaultError).reason, (err as TickvaultError).retriable], [503, 'damaged', false]);
    assert.is(up.seen.length, 1);
    assert.equal([upstream.counts.waits, upstream.counts.waitedSec, upstream.counts.byStatus.get(503)], [0, 0, 1]);
  } finally {
    await up.close();
  }
});

t('an upstream that does not answer is UpstreamUnreachableError naming the address and the cause', async () => {
  const up = await fakeUpstream(() => ({ status: 200 }));
  await up.close(); // the port is now closed
  const upstream = new Upstream(up.url, 'k', 100);
  const err = await upstream.on('tick_history', (c) => c.tickHistory({ symbol: '000300' })).catch((e: unknown) => e);
  assert.instance(err, UpstreamUnreachableError);
  assert.match((err as Error).message, `${up.url}/api did not answer: ECONNREFUSED`);
  assert.is((err as UpstreamUnreachableError).retriable, false, 'the request may have reached it: not repeated blindly');
});

t.run();
