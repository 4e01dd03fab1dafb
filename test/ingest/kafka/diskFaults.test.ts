import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger } from '../../../shared/logger.js';
import { DiskFaults, type RetriedStage } from '../../../ingest/kafka/diskFaults.js';
import { IngestMetrics } from '../../../ingest/kafka/metrics.js';

const t = suite('DiskFaults: what the running ingestor says about a full disk');

const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });

function rig() {
  let now = 1_000_000;
  const lines: { level: number; msg: string; stage?: string }[] = [];
  const log = createLogger('info', 'test', { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) });
  const metrics = new IngestMetrics({ defaultMetrics: false });
  const changes: [RetriedStage, boolean][] = [];
  const faults = new DiskFaults({ log, metrics, nowMs: () => now, onChange: (s, f) => void changes.push([s, f]) });
  return { faults, metrics, lines, changes, advance: (ms: number) => (now += ms) };
}

t('one line when the fault begins, one a minute while it lasts, one when it ends; the gauge, /healthz text and onChange follow', async () => {
  const r = rig();
  const delays: number[] = [];
  for (let i = 0; i < 40; i++) {
    delays.push(r.faults.failed('staging', '/d/staging', enospc())!);
    r.advance(delays.at(-1)!);
  }
  assert.equal(delays.slice(0, 8), [100, 200, 400, 800, 1600, 3200, 5000, 5000]);
  const faultLines = r.lines.filter((l) => l.msg.startsWith('disk fault'));
  // 40 failures span about 2.8 minutes: the first line and two reminders.
  assert.is(faultLines.length, 3);
  assert.match(faultLines[0]!.msg, /^disk fault: no space left on device while staging rows in \/d\/staging; consumption paused/);
  assert.match(faultLines[1]!.msg, /^disk fault for 6\d s: no space left on device while staging rows in \/d\/staging/);
  assert.is(faultLines[0]!.level, 50);
  assert.equal(r.changes, [['staging', true]]);
  assert.equal(r.metrics.problems(Date.now()).length, 1);
  assert.match(await r.metrics.registry.metrics(), /tickvault_ingest_disk_fault\{stage="staging",cause="no space left on device"\} 1/);
  assert.match(await r.metrics.registry.metrics(), /tickvault_ingest_disk_write_failures_total\{stage="staging"\} 40/);

  r.faults.succeeded('staging');
  const last = r.lines.at(-1)!;
  assert.match(last.msg, /^disk writable again: staging resumed after 1\d\d\.\d s/);
  assert.equal(r.changes, [
    ['staging', true],
    ['staging', false],
  ]);
  assert.equal(r.metrics.problems(), []);
  assert.match(await r.metrics.registry.metrics(), /tickvault_ingest_disk_fault\{stage="staging",cause="none"\} 0/);
  r.faults.succeeded('staging');
  assert.is(r.lines.length, 4, 'a success without a fault says nothing');
});

t('anything but a full or read-only disk is not taken: null, nothing logged or shown', () => {
  const r = rig();
  assert.is(r.faults.failed('seal', '/d', new Error('bug')), null);
  assert.is(r.faults.failed('seal', '/d', Object.assign(new Error('gone'), { code: 'ENOENT' })), null);
  assert.equal(r.lines, []);
  assert.equal(r.changes, []);
  assert.ok(r.faults.due('seal'));
});

t('the seal waits for its retry delay between tries; a read-only disk is named as such', () => {
  const r = rig();
  const erofs = Object.assign(new Error('EROFS: read-only file system, open'), { code: 'EROFS', path: '/d/level2/x.parquet.tmp-1' });
  assert.is(r.faults.failed('seal', '/d', erofs), 100);
  assert.not.ok(r.faults.due('seal'));
  r.advance(100);
  assert.ok(r.faults.due('seal'));
  assert.match(r.lines[0]!.msg, /^disk fault: read-only file system while sealing files into \/d\/level2\/x\.parquet\.tmp-1; the day stays staged/);
  assert.is(r.faults.faultOf('seal')!.cause, 'read-only file system');
});

t.run();
