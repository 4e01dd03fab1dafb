/**
 * The contract every state store keeps (serve/access/stateStore.ts), run against SQLite and
 * PostgreSQL alike. `open` gives two stores on one shared state: two server processes (or
 * sites). Leases and windows run on the store's real clock, so timings here are real and
 * short; daily counters take the service clock, so days are pinned.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DuplicateKeyError } from '../../../serve/access/accounts.js';
import { PLANS } from '../../../serve/access/plans.js';
import { SlotLeases } from '../../../serve/access/slots.js';
import type { StateStore } from '../../../serve/access/stateStore.js';

export interface SharedState {
  readonly a: StateStore;
  readonly b: StateStore;
  close(): Promise<void>;
}

const L2 = 'level2_quote_history' as const;
const TICK = 'tick_history' as const;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Beijing 23:59:00 on 2025-01-06 (a Monday). */
const BEFORE_MIDNIGHT = Date.parse('2025-01-06T15:59:00Z');

/** Waits until the local clock is early in a second, so a burst lands inside one window. */
async function startOfSecond(): Promise<void> {
  const into = Date.now() % 1000;
  if (into > 150) await sleep(1000 - into + 20);
}

export function stateContract(name: string, open: () => Promise<SharedState>): void {
  const t = suite(`state store contract: ${name}`);
  let s: SharedState;
  let nextAccount = 1_000;
  t.before.each(async () => {
    s = await open();
  });
  t.after.each(async () => {
    await s.close();
  });

  t('accounts: keys authenticate on every process, share an account, revoke at once everywhere', async () => {
    const { a, b } = s;
    const acct = await a.createAccount('professional', 1);
    assert.match(acct.key, /^tv_[A-Za-z0-9_-]{43}$/);
    const second = (await b.addKey(acct.id, 2))!;
    assert.equal(await b.authenticate(acct.key), { id: acct.id, plan: PLANS.professional });
    assert.equal(await a.authenticate(second), { id: acct.id, plan: PLANS.professional });
    assert.is(await a.authenticate('tv_no-such-key'), null);
    assert.is(await a.addKey(987_654, 3), null, 'no such account');
    assert.ok(await a.revokeKey(acct.key, 4));
    assert.is(await b.revokeKey(acct.key, 5), false, 'already revoked');
    assert.is(await b.authenticate(acct.key), null, 'revoked on the other process at once');
    assert.ok(await b.authenticate(second), 'the other key still works');
    const chosen = await a.createAccount('trial', 6, 'my-own-chosen-key-123');
    assert.is(chosen.key, 'my-own-chosen-key-123');
    try {
      await b.createAccount('flagship', 7, 'my-own-chosen-key-123');
      assert.unreachable('a duplicate key must be refused');
    } catch (e) {
      assert.instance(e, DuplicateKeyError);
    }
    const list = await b.listAccounts();
    const mine = list.find((x) => x.id === acct.id)!;
    assert.is(mine.plan, 'professional');
    assert.is(mine.keys.length, 2);
    assert.equal(
      mine.keys.map((k) => k.revokedAtMs),
      [4, null],
    );
    assert.ok(
      mine.keys.every((k) => k.hint.endsWith('…') && k.hint.length <= 8),
      'hints only, never keys',
    );
    assert.ok(list.some((x) => x.id === chosen.id && x.plan === 'trial'));
    assert.not.ok(
      list.some((x) => x.plan === 'flagship' && x.createdAtMs === 7),
      'the refused account was rolled back',
    );
  });

  t('per-second limit: a burst from two processes admits exactly the limit in one window', async () => {
    const id = nextAccount++;
    await s.a.hitRate(id, 1); // connections warm, so the burst fits in one second
    await s.b.hitRate(id, 1);
    await sleep(1000);
    await startOfSecond();
    const burst = await Promise.all(Array.from({ length: 120 }, (_, i) => (i % 2 ? s.a : s.b).hitRate(id, 50)));
    const admitted = burst.filter((r) => r.ok).length;
    assert.is(admitted, 50, `admitted ${admitted} of 120`);
    const counts = burst.flatMap((r) => (r.ok ? [r.count] : [])).sort((x, y) => x - y);
    assert.equal(
      counts,
      Array.from({ length: 50 }, (_, i) => i + 1),
      'each admission saw its own count',
    );
    assert.ok(burst.every((r) => r.ok || r.retryAfterSec === 1));
    assert.ok((await s.a.hitRate(id + 100_000, 50)).ok, 'another account is independent');
    await sleep(1100);
    assert.equal(await s.b.hitRate(id, 50), { ok: true, count: 1 }, 'a new second starts afresh');
  });

  t('daily allowance: exactly the limit across processes, refusals uncounted, per interface and kind', async () => {
    const id = nextAccount++;
    const now = BEFORE_MIDNIGHT;
    const race = await Promise.all(Array.from({ length: 160 }, (_, i) => (i % 2 ? s.a : s.b).takeDaily(id, L2, 'calls', 100, now)));
    assert.is(race.filter((r) => r.ok).length, 100);
    const refused = race.find((r) => !r.ok);
    assert.equal(refused, { ok: false, retryAfterSec: 60 }, 'Retry-After runs to Beijing midnight');
    assert.is(await s.a.daily(id, L2, 'calls', now), 100, 'refusals do not count');
    assert.is(await s.b.daily(id, TICK, 'calls', now), 0);
    assert.ok((await s.a.takeDaily(id, TICK, 'calls', 100, now)).ok, 'per interface');
    assert.ok((await s.a.takeDaily(id, L2, 'parquet', 30, now)).ok, 'per kind');
    assert.equal(await s.a.takeDaily(id, L2, 'parquet', 0, now), { ok: false, retryAfterSec: 60 }, 'a zero allowance is always exhausted');
  });

  t('daily counters reset at Beijing midnight, and old days can be purged', async () => {
    const id = nextAccount++;
    const late = Date.parse('2025-01-06T15:59:58Z'); // 23:59:58 Beijing
    const early = Date.parse('2025-01-06T16:00:02Z'); // 00:00:02 Beijing, the next day
    for (let i = 0; i < 3; i++) assert.ok((await s.a.takeDaily(id, L2, 'parquet', 3, late)).ok);
    assert.is((await s.b.takeDaily(id, L2, 'parquet', 3, late)).ok, false);
    assert.equal(await s.b.takeDaily(id, L2, 'parquet', 3, early), { ok: true, count: 1 }, 'a new Beijing day');
    await s.a.purgeBefore(early);
    assert.is(await s.a.daily(id, L2, 'parquet', late), 0, "yesterday's count purged");
    assert.is(await s.a.daily(id, L2, 'parquet', early), 1, "today's kept");
  });

  t('slots: of many racing requests on two processes exactly one wins; release frees it', async () => {
    const id = nextAccount++;
    const race = await Promise.all(Array.from({ length: 24 }, (_, i) => (i % 2 ? s.a : s.b).acquireSlot(id, L2, `h${i}`, 30_000)));
    assert.is(race.filter(Boolean).length, 1);
    const winner = `h${race.indexOf(true)}`;
    assert.ok(await s.a.slotHeld(id, L2));
    assert.ok(await s.b.acquireSlot(id + 1, L2, 'other-account', 30_000), 'another account is free');
    assert.ok(await s.b.acquireSlot(id, TICK, 'other-api', 30_000), 'another interface is free');
    await s.b.releaseSlot(id, L2, 'not-the-holder');
    assert.is(await s.a.acquireSlot(id, L2, 'late', 30_000), false, 'only the holder releases');
    await s.a.releaseSlot(id, L2, winner);
    assert.is(await s.b.slotHeld(id, L2), false);
    assert.ok(await s.b.acquireSlot(id, L2, 'next', 30_000));
  });

  t('slots: a holder that never releases blocks only until its lease lapses; its late release frees nothing', async () => {
    const id = nextAccount++;
    assert.ok(await s.a.acquireSlot(id, L2, 'crashed', 400));
    assert.is(await s.b.acquireSlot(id, L2, 'early', 400), false);
    await sleep(550);
    assert.is(await s.b.slotHeld(id, L2), false, 'lapsed');
    assert.ok(await s.b.acquireSlot(id, L2, 'taker', 30_000), 'the lapsed lease is taken over');
    assert.is(await s.a.renewSlot(id, L2, 'crashed', 400), false, 'the old holder learns it lost the lease');
    await s.a.releaseSlot(id, L2, 'crashed');
    assert.ok(await s.a.slotHeld(id, L2), "the old holder's release left the new holder's lease alone");
  });

  t('slot leases renew themselves while held, so a long response keeps its slot past the first lease', async () => {
    const id = nextAccount++;
    const la = new SlotLeases(s.a, 300);
    const lb = new SlotLeases(s.b, 300);
    const held = await la.tryAcquire(id, L2);
    assert.ok(held);
    await sleep(900);
    assert.is(await lb.tryAcquire(id, L2), null, 'renewed three times over, still held');
    assert.is(held.lost, false);
    await held.release();
    await held.release(); // idempotent
    const next = await lb.tryAcquire(id, L2);
    assert.ok(next, 'free once released');
    await next.release();
  });

  t('the cursor signing key is one key for every process, and stays the same', async () => {
    const [ka, kb] = await Promise.all([s.a.cursorKey(), s.b.cursorKey()]);
    assert.is(ka.length, 32);
    assert.ok(ka.equals(kb));
    assert.ok((await s.a.cursorKey()).equals(ka));
    assert.not.ok(ka.equals(Buffer.alloc(32)), 'random, not zeros');
  });

  t('admissions are one round trip each', async () => {
    const id = nextAccount++;
    const before = s.a.roundTrips;
    await s.a.hitRate(id, 10);
    await s.a.takeDaily(id, L2, 'calls', 10, BEFORE_MIDNIGHT);
    await s.a.acquireSlot(id, L2, 'x', 1000);
    await s.a.releaseSlot(id, L2, 'x');
    assert.is(s.a.roundTrips - before, 4);
  });

  t.run();
}
