import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DiskRetry } from '../../../ingest/kafka/diskRetry.js';

const t = suite('DiskRetry: the running ingestor on a full disk');
const policy = { firstDelayMs: 100, maxDelayMs: 5000, logEveryMs: 60_000 };

t('retries back off from 100 ms, doubling, to at most 5 s', () => {
  const r = new DiskRetry(policy);
  const delays: number[] = [];
  let now = 1000;
  for (let i = 0; i < 10; i++) {
    const step = r.failed(now);
    delays.push(step.retryInMs);
    now += step.retryInMs;
  }
  assert.equal(delays, [100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000, 5000]);
  // Thousands of failures later the delay is still the maximum (no overflow to Infinity/NaN).
  for (let i = 0; i < 5000; i++) now += r.failed(now).retryInMs;
  assert.is(r.failed(now).retryInMs, 5000);
});

t('logs when the fault begins, then once a minute while it lasts, never per retry', () => {
  const r = new DiskRetry(policy);
  const logged: [number, string][] = [];
  for (let now = 0; now <= 150_000; now += 5000) {
    const step = r.failed(now);
    if (step.log) logged.push([now, step.log]);
  }
  assert.equal(logged, [
    [0, 'first'],
    [60_000, 'still'],
    [120_000, 'still'],
  ]);
});

t('a retry is due only once its delay has passed; always when there is no fault', () => {
  const r = new DiskRetry(policy);
  assert.ok(r.due(0));
  r.failed(0);
  assert.not.ok(r.due(99));
  assert.ok(r.due(100));
  r.failed(100);
  assert.not.ok(r.due(299));
  assert.ok(r.due(300));
});

t('a success ends the fault: how long it lasted, how many writes failed; the next fault starts afresh', () => {
  const r = new DiskRetry(policy);
  assert.is(r.succeeded(5), null, 'no fault, nothing to report');
  r.failed(1000);
  r.failed(1100);
  r.failed(1300);
  assert.ok(r.faulted);
  assert.is(r.since, 1000);
  assert.equal(r.succeeded(4000), { faultedForMs: 3000, attempts: 3 });
  assert.not.ok(r.faulted);
  assert.is(r.succeeded(4001), null);
  const again = r.failed(10_000);
  assert.equal(again, { log: 'first', retryInMs: 100, attempts: 1, faultedForMs: 0 });
});

t.run();
