/**
 * Retries: against `tickvault serve` with a per-second limit of 1 (each test its own account,
 * the limit being per account), and against a scripted server for exact 429/503 sequences.
 * Waits are asserted as lower bounds only (the machine is loaded; later is always possible).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TickvaultClient, TickvaultError } from '../../client/index.js';
import { addAccount, serveDuringSuite } from '../support/server.js';
import { rejection } from './rejection.js';
import { countingFetch, envelope, scriptedServer, type ScriptedServer } from './scriptedServer.js';

const test = suite('client transport: retries');
const served = serveDuringSuite(test, { env: { TICKVAULT_RATE_LIMIT: '1' } });
const scripted: ScriptedServer[] = [];

test.after(async () => {
  for (const s of scripted) await s.close();
});

function client(baseUrl: string, apikey: string, more: Partial<ConstructorParameters<typeof TickvaultClient>[0]> = {}) {
  const counted = countingFetch();
  return { counted, client: new TickvaultClient({ baseUrl, apikey, fetch: counted.fetch, ...more }) };
}

test('a real 429 of the per-second limit is waited out and retried: every call succeeds', async () => {
  // Four at once against a limit of 1/s (fixed wall-clock seconds): unless they arrive spread
  // over more than 3 s, two share a second and one gets 429. Enough attempts for the queue.
  const { client: c, counted } = client(served.server.url, addAccount(served.dataDir, 'flagship').key, { retry: { maxAttempts: 8 } });
  const results = await Promise.all([0, 1, 2, 3].map(() => c.tickHistory({ symbol: '000300', tradedate: '20250102' })));
  for (const r of results) {
    assert.is(r.code, 200);
    assert.ok(r.data.items.length > 0);
  }
  const limited = counted.statuses.filter((s) => s === 429).length;
  assert.ok(limited >= 1, `statuses ${counted.statuses.join(',')}`);
  assert.is(counted.statuses.filter((s) => s === 200).length, 4);
  assert.is(counted.statuses.length, 4 + limited, 'each 429 was followed by exactly one retry');
});

test('Retry-After is honoured: the retry comes no sooner than it says', async () => {
  const fake = await scriptedServer([
    envelope(429, 'more than 1 requests per second for this account', null, { 'retry-after': '1' }),
    envelope(200, 'success', { fields: ['symbol'], items: [['000300']] }),
  ]);
  scripted.push(fake);
  const { client: c } = client(fake.baseUrl, 'k');
  const r = await c.tickHistory({ symbol: '000300' });
  assert.equal(r.data.items, [['000300']]);
  assert.is(fake.requests.length, 2);
  assert.ok(fake.requests[1].atMs - fake.requests[0].atMs >= 990, `waited ${fake.requests[1].atMs - fake.requests[0].atMs} ms`);
  assert.equal(fake.requests[1].body, fake.requests[0].body, 'the same request again');
});

test('503 is retried up to maxAttempts, then thrown as a TickvaultError with retryAfterSec', async () => {
  const fake = await scriptedServer([envelope(503, 'the account already has a level2_quote_history request in progress', null, { 'retry-after': '0' })]);
  scripted.push(fake);
  const { client: c } = client(fake.baseUrl, 'k', { retry: { maxAttempts: 3 } });
  const err = await rejection(c.level2QuoteHistory({ symbol: '600000' }));
  assert.instance(err, TickvaultError);
  const e = err as TickvaultError;
  assert.is(e.code, 503);
  assert.is(e.retryAfterSec, 0);
  assert.match(e.message, /in progress/);
  assert.is(fake.requests.length, 3);
});

test('a Retry-After beyond maxWaitSec is not waited for: thrown at once', async () => {
  const fake = await scriptedServer([envelope(429, 'the daily Parquet quota is used up', null, { 'retry-after': '3600' })]);
  scripted.push(fake);
  const { client: c } = client(fake.baseUrl, 'k', { retry: { maxWaitSec: 30 } });
  const err = (await rejection(c.level2QuoteHistory({ symbol: '600000' }))) as TickvaultError;
  assert.is(err.code, 429);
  assert.is(err.retryAfterSec, 3600);
  assert.is(fake.requests.length, 1);
});

/** Asserts that `call` fails with a TickvaultError of `code` and `message` after one request. */
async function failsOnce(name: string, c: ReturnType<typeof client>, call: (c: TickvaultClient) => Promise<unknown>, code: number, message: RegExp) {
  const err = await rejection(call(c.client));
  assert.instance(err, TickvaultError, name);
  assert.is((err as TickvaultError).code, code, name);
  assert.match((err as TickvaultError).message, message);
  assert.equal(c.counted.statuses, [code], `${name}: not retried`);
}

test('400, 401 and 403 of the real server: typed errors with the server message, one request each', async () => {
  await failsOnce(
    '400',
    client(served.server.url, addAccount(served.dataDir, 'flagship').key),
    (c) => c.level2QuoteHistory({ symbol: '600000', page_size: 0 }),
    400,
    /params\.page_size/,
  );
  await failsOnce('401', client(served.server.url, 'not-a-key'), (c) => c.tickHistory({ symbol: '000300' }), 401, /apikey/);
  await failsOnce(
    '403',
    client(served.server.url, addAccount(served.dataDir, 'free').key),
    (c) => c.level2QuoteHistory({ symbol: '600000' }),
    403,
    /free plan/,
  );
});

test('500 and a connection reset are not retried', async () => {
  const fake = await scriptedServer([envelope(500, 'internal server error', null)]);
  scripted.push(fake);
  const err = (await rejection(client(fake.baseUrl, 'k').client.tickHistory({ symbol: '000300' }))) as TickvaultError;
  assert.is(err.code, 500);
  assert.is(fake.requests.length, 1);

  const reset = await scriptedServer([(res) => res.socket?.destroy()]);
  scripted.push(reset);
  const net = await rejection(client(reset.baseUrl, 'k').client.tickHistory({ symbol: '000300' }));
  assert.not.instance(net, TickvaultError);
  assert.is(reset.requests.length, 1, 'the body had reached the server: never sent again');
});

test.run();
