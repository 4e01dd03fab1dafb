import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mergeLoad, parseWrkOutput, type WrkRun } from '../../bench/wrkLoad.js';

const t = suite("wrk load: its output read and two servers' runs merged");

const uniform = (toMs: number): number[] => Array.from({ length: 1000 }, (_, i) => ((i + 1) / 1000) * toMs);

t("the script's lines and bash's `times` (the last line is the child's CPU)", () => {
  const quantilesUs = Array.from({ length: 1000 }, (_, i) => (i + 1) * 10);
  const out = [
    'Running 10s test @ http://127.0.0.1:1/api',
    'TV_RESULT 1234 567890 3',
    `TV_QUANTILES ${quantilesUs.join(' ')}`,
    '0m0.004s 0m0.001s',
    '1m2.500s 0m0.250s',
  ].join('\n');
  const run = parseWrkOutput(out);
  assert.is(run.requests, 1234);
  assert.is(run.bytes, 567890);
  assert.is(run.failed, 3);
  assert.is(run.quantilesMs[0], 0.01);
  assert.is(run.quantilesMs[999], 10);
  assert.is(run.cpuSeconds, 62.75);
  assert.throws(() => parseWrkOutput('TV_RESULT 1 2 0\n0m0.0s 0m0.0s'), /no result/);
});

t('quantiles of the whole weight each run by its requests; pages/s count only answers of 200', () => {
  // 300 requests spread evenly over 0–100 ms, and 100 that each took 1,000 ms.
  const a: WrkRun = { requests: 300, bytes: 300, failed: 0, quantilesMs: uniform(100), cpuSeconds: 1 };
  const b: WrkRun = { requests: 100, bytes: 100, failed: 20, quantilesMs: Array(1000).fill(1000), cpuSeconds: 3 };
  const m = mergeLoad([a, b], 10);
  // Half of 400 is 200: two thirds of the way through the fast run.
  assert.ok(Math.abs(m.p50Ms - 66.7) < 0.2, String(m.p50Ms));
  assert.is(m.p90Ms, 1000);
  assert.is(m.maxMs, 1000);
  assert.is(m.requests, 400);
  assert.is(m.failed, 20);
  assert.is(m.rps, 38);
  assert.is(m.generatorCores, 0.4);
});

t.run();
