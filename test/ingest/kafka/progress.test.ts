import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import type { Admin } from 'kafkajs';
import { IngestMetrics } from '../../../ingest/kafka/metrics.js';
import { KafkaOffsetStore } from '../../../ingest/kafka/offsets.js';
import { IngestProgressTracker, type IngestProgress } from '../../../ingest/kafka/progress.js';

/** An admin client answering watermarks and the group's committed offsets from tables. */
function fakeAdmin(high: Record<string, number[]>, committed: Record<string, Record<number, number>>): Admin {
  return {
    fetchTopicOffsets: async (topic: string) => (high[topic] ?? []).map((h, partition) => ({ partition, low: '0', high: String(h), offset: String(h) })),
    fetchOffsets: async ({ topics }: { topics: string[] }) =>
      topics.map((topic) => ({
        topic,
        partitions: Object.entries(committed[topic] ?? {}).map(([p, o]) => ({ partition: Number(p), offset: String(o), metadata: null })),
      })),
  } as unknown as Admin;
}

function setup(admin: Admin) {
  const offsets = new KafkaOffsetStore(new Database(':memory:'));
  const metrics = new IngestMetrics({ defaultMetrics: false });
  const seen: IngestProgress[] = [];
  const tracker = new IngestProgressTracker({
    admin,
    group: 'g',
    offsets,
    metrics,
    log: pino({ level: 'silent' }),
    onProgress: (p) => seen.push(p),
  });
  return { offsets, metrics, seen, tracker };
}

async function metricValue(metrics: IngestMetrics, name: string, labels: Record<string, string>): Promise<number | undefined> {
  const m = (await metrics.registry.getMetricsAsJSON()).find((x) => x.name === name);
  const v = m?.values.find((x) => Object.entries(labels).every(([k, l]) => x.labels[k] === l));
  return v?.value;
}

const t = suite('IngestProgressTracker');

t('counts what group commits made durable and skipped re-deliveries, in counts and metrics', async () => {
  const { metrics, tracker } = setup(fakeAdmin({}, {}));
  tracker.countFlushed([
    { topic: 'md.level2', partition: 0, dataset: 'level2', next: 10, messages: 10, staged: 7, quarantined: 3, late: 1, skipped: 0, gap: 2 },
    { topic: 'md.index', partition: 1, dataset: 'index', next: 5, messages: 5, staged: 5, quarantined: 0, late: 0, skipped: 0, gap: 0 },
  ]);
  tracker.countSkipped('md.level2', 4);
  assert.equal(tracker.counts, { consumed: 19, staged: 12, quarantined: 3, late: 1, skipped: 4 });
  assert.is(await metricValue(metrics, 'tickvault_ingest_consumed_total', { topic: 'md.level2' }), 14);
  assert.is(await metricValue(metrics, 'tickvault_ingest_staged_total', { dataset: 'index' }), 5);
  assert.is(await metricValue(metrics, 'tickvault_ingest_redelivered_total', { topic: 'md.level2' }), 4);
});

t('lag is measured from the stored offset, else the group commit, else the log start', async () => {
  const admin = fakeAdmin({ 'md.level2': [100, 50, 30] }, { 'md.level2': { 1: 20 } });
  const { offsets, metrics, seen, tracker } = setup(admin);
  offsets.advance('md.level2', 0, 90, 0);
  await tracker.report(new Map([['md.level2', [0, 1, 2]]]));
  // 100 - 90 stored, 50 - 20 committed, 30 - 0 from the start.
  assert.is(seen.length, 1);
  assert.is(seen[0].lag, 10 + 30 + 30);
  assert.is(await metricValue(metrics, 'tickvault_ingest_lag_messages', { topic: 'md.level2', partition: '1' }), 30);
});

t('the sealer view answers watermarks and committed offsets through the admin client', async () => {
  const { tracker } = setup(fakeAdmin({ t: [7] }, { t: { 0: 3 } }));
  const view = tracker.view(() => null);
  assert.is(view.assignment(), null);
  assert.equal(await view.watermarks('t'), [{ partition: 0, low: 0, high: 7 }]);
  assert.equal([...(await view.committed('t'))], [[0, 3]]);
});

t.run();
