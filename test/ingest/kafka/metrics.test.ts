import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { IngestError } from '../../../ingest/errors.js';
import { IngestMetrics, startMetricsServer } from '../../../ingest/kafka/metrics.js';

const m = suite('IngestMetrics / startMetricsServer');

m('serves the counters, lag gauge and seal histogram at GET /metrics', async () => {
  const metrics = new IngestMetrics({ defaultMetrics: false });
  metrics.consumed.inc({ topic: 'md.level2' }, 5);
  metrics.quarantined.inc({ dataset: 'level2' }, 2);
  metrics.late.inc({ dataset: 'index' });
  metrics.setLag([{ topic: 'md.level2', partition: 3, lag: 42 }]);
  metrics.sealDuration.observe({ dataset: 'level2' }, 0.2);
  const server = await startMetricsServer(metrics, '127.0.0.1', 0);
  try {
    const res = await fetch(`http://127.0.0.1:${server.port}/metrics`);
    assert.is(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/plain/);
    const text = await res.text();
    assert.match(text, /tickvault_ingest_consumed_total\{topic="md.level2"\} 5/);
    assert.match(text, /tickvault_ingest_quarantined_total\{dataset="level2"\} 2/);
    assert.match(text, /tickvault_ingest_late_total\{dataset="index"\} 1/);
    assert.match(text, /tickvault_ingest_lag_messages\{topic="md.level2",partition="3"\} 42/);
    assert.match(text, /tickvault_ingest_seal_duration_seconds_count\{dataset="level2"\} 1/);
    const other = await fetch(`http://127.0.0.1:${server.port}/`);
    assert.is(other.status, 404);
    await other.text();
  } finally {
    await server.close();
  }
});

m('setLag replaces the series: partitions no longer owned disappear', async () => {
  const metrics = new IngestMetrics({ defaultMetrics: false });
  metrics.setLag([
    { topic: 't', partition: 0, lag: 1 },
    { topic: 't', partition: 1, lag: 2 },
  ]);
  metrics.setLag([{ topic: 't', partition: 1, lag: 0 }]);
  const text = await metrics.registry.metrics();
  assert.not.match(text, /partition="0"/);
  assert.match(text, /partition="1"\} 0/);
});

m('a port in use is a clear error', async () => {
  const metrics = new IngestMetrics({ defaultMetrics: false });
  const a = await startMetricsServer(metrics, '127.0.0.1', 0);
  try {
    await startMetricsServer(metrics, '127.0.0.1', a.port).then(
      () => assert.unreachable('second bind should fail'),
      (e: Error) => {
        assert.match(e.message, new RegExp(`cannot serve metrics on 127.0.0.1:${a.port}`));
        assert.ok(e instanceof IngestError);
        assert.is(e.stage, 'metrics');
        assert.equal(e.context, { host: '127.0.0.1', port: a.port });
      },
    );
  } finally {
    await a.close();
  }
});

m('GET /healthz: 200 ok; 503 with the disk fault while it lasts; the gauge 1 with its cause, then 0', async () => {
  const metrics = new IngestMetrics({ defaultMetrics: false });
  metrics.setDiskFault('staging', null);
  const server = await startMetricsServer(metrics, '127.0.0.1', 0);
  try {
    const health = async () => {
      const res = await fetch(`http://127.0.0.1:${server.port}/healthz`);
      return { status: res.status, retryAfter: res.headers.get('retry-after'), text: await res.text() };
    };
    assert.equal(await health(), { status: 200, retryAfter: null, text: 'ok\n' });
    const text = 'no space left on device while staging rows in /d/staging';
    metrics.setDiskFault('staging', { cause: 'no space left on device', text, sinceMs: Date.now() - 3000 });
    const bad = await health();
    assert.is(bad.status, 503);
    assert.is(bad.retryAfter, '5');
    assert.match(bad.text, /^staging: no space left on device while staging rows in \/d\/staging \(for 3 s; retrying\)\n$/);
    let prom = await metrics.registry.metrics();
    assert.match(prom, /tickvault_ingest_disk_fault\{stage="staging",cause="no space left on device"\} 1/);
    assert.not.match(prom, /cause="none"/);
    metrics.setDiskFault('staging', null);
    assert.is((await health()).status, 200);
    prom = await metrics.registry.metrics();
    assert.match(prom, /tickvault_ingest_disk_fault\{stage="staging",cause="none"\} 0/);
    assert.not.match(prom, /cause="no space left on device"/);
  } finally {
    await server.close();
  }
});

m.run();
