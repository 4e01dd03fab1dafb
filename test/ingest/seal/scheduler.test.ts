import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  dueDays,
  isCaughtUp,
  isDayComplete,
  isDayDue,
  lagOf,
  nextDueAtMs,
  sealDueAtMs,
  symbolsByOwnedPartition,
  type PartitionPosition,
} from '../../../ingest/seal/scheduler.js';
import { partitionForKey } from '../../../ingest/kafka/partitions.js';

const at = (iso: string) => Date.parse(iso);
const H16 = 16 * 3_600_000;

const due = suite('isDayDue / sealDueAtMs');

due('a day is due from its Beijing 16:00 on, not a millisecond before', () => {
  assert.is(sealDueAtMs('20250102', H16), at('2025-01-02T16:00:00+08:00'));
  assert.is(isDayDue('20250102', at('2025-01-02T15:59:59.999+08:00'), H16), false);
  assert.is(isDayDue('20250102', at('2025-01-02T16:00:00+08:00'), H16), true);
  assert.is(isDayDue('20250102', at('2025-01-03T09:00:00+08:00'), H16), true);
});

due('the grace period is configurable and counted in Beijing time whatever the host zone', () => {
  const h1730 = (17 * 60 + 30) * 60_000;
  // 09:29 UTC is 17:29 Beijing.
  assert.is(isDayDue('20250102', at('2025-01-02T09:29:00Z'), h1730), false);
  assert.is(isDayDue('20250102', at('2025-01-02T09:30:00Z'), h1730), true);
});

due('a day in the future is never due', () => {
  assert.is(isDayDue('20250106', at('2025-01-03T23:00:00+08:00'), H16), false);
});

due.run();

const days = suite('dueDays / nextDueAtMs');

days('keeps due days once each, oldest first, then by dataset name', () => {
  const now = at('2025-01-03T16:30:00+08:00');
  const out = dueDays(
    [
      { dataset: 'index', tradedate: '20250103' },
      { dataset: 'level2', tradedate: '20250103' },
      { dataset: 'level2', tradedate: '20250102' },
      { dataset: 'level2', tradedate: '20250103' },
      { dataset: 'level2', tradedate: '20250106' },
    ],
    now,
    H16,
  );
  assert.equal(out, [
    { dataset: 'level2', tradedate: '20250102' },
    { dataset: 'index', tradedate: '20250103' },
    { dataset: 'level2', tradedate: '20250103' },
  ]);
});

days('nothing due before the grace period ends', () => {
  assert.equal(dueDays([{ dataset: 'level2', tradedate: '20250103' }], at('2025-01-03T15:00:00+08:00'), H16), []);
});

days('nextDueAtMs names the earliest future due time, or null', () => {
  const now = at('2025-01-03T10:00:00+08:00');
  const list = [
    { dataset: 'level2' as const, tradedate: '20250102' },
    { dataset: 'level2' as const, tradedate: '20250106' },
    { dataset: 'index' as const, tradedate: '20250103' },
  ];
  assert.is(nextDueAtMs(list, now, H16), at('2025-01-03T16:00:00+08:00'));
  assert.is(nextDueAtMs([{ dataset: 'level2', tradedate: '20250102' }], now, H16), null);
});

days.run();

const caught = suite('lagOf / isCaughtUp');

const pos = (position: number | null, low: number, high: number, partition = 0): PartitionPosition => ({ topic: 't', partition, position, low, high });

caught('lag counts from the position, or the log start when nothing is recorded', () => {
  assert.is(lagOf(pos(5, 0, 10)), 5);
  assert.is(lagOf(pos(null, 0, 10)), 10);
  assert.is(lagOf(pos(null, 7, 10)), 3);
  // A position before the log start (retention dropped messages): only what is left counts.
  assert.is(lagOf(pos(2, 7, 10)), 3);
  assert.is(lagOf(pos(10, 0, 10)), 0);
  assert.is(lagOf(pos(null, 0, 0)), 0);
});

caught('caught up only when every owned partition is at its end', () => {
  assert.is(isCaughtUp([pos(10, 0, 10, 0), pos(4, 0, 4, 1)]), true);
  assert.is(isCaughtUp([pos(10, 0, 10, 0), pos(3, 0, 4, 1)]), false);
  assert.is(isCaughtUp([pos(null, 5, 5, 0)]), true);
  assert.is(isCaughtUp([]), true, 'owning nothing, there is nothing to wait for');
});

caught.run();

const owner = suite('symbolsByOwnedPartition');

owner('recorded partitions decide ownership; murmur2 is the fallback', () => {
  const symbols = ['600000.SH', '000001.SZ', '300001.SZ', '688001.SH'];
  const recorded = new Map([['600000.SH', 2]]);
  const all = symbolsByOwnedPartition(symbols, recorded, 4, new Set([0, 1, 2, 3]));
  const flat = [...all.entries()].flatMap(([p, list]) => list.map((s) => [s, p] as const));
  assert.is(flat.length, 4, 'owning every partition, every symbol is owned exactly once');
  for (const [s, p] of flat) assert.is(p, recorded.get(s) ?? partitionForKey(s, 4), s);
});

owner('two processes with disjoint partitions split the symbols without overlap', () => {
  const symbols = Array.from({ length: 50 }, (_, i) => `${String(600000 + i)}.SH`);
  const a = symbolsByOwnedPartition(symbols, new Map(), 4, new Set([0, 2]));
  const b = symbolsByOwnedPartition(symbols, new Map(), 4, new Set([1, 3]));
  const sa = [...a.values()].flat();
  const sb = [...b.values()].flat();
  assert.is(sa.length + sb.length, 50);
  assert.equal(
    sa.filter((s) => sb.includes(s)),
    [],
  );
});

owner.run();

const complete = suite('isDayComplete');

complete('complete when every partition 0..n-1 is sealed', () => {
  assert.is(isDayComplete(new Set([0, 1, 2, 3]), 4), true);
  assert.is(isDayComplete(new Set([0, 1, 3]), 4), false);
  assert.is(isDayComplete(new Set([0, 1, 2, 3]), 8), false, 'a topic that grew needs its new partitions too');
  assert.is(isDayComplete(new Set(), 0), false, 'an unknown partition count never completes a day');
});

complete.run();
