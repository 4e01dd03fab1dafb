import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { tempDir } from '../support/tempDir.js';

const root = tempDir('tickvault-seal-');
let n = 0;
const freshData = () => join(root, `d${++n}`);

// 2025-01-08 is a Wednesday; 20250105 a Sunday; 20250129 inside the Spring Festival closure.
const NOW = { TICKVAULT_NOW: '2025-01-08T12:00:00+08:00' };

const refuse = suite('tickvault seal --date: refuses days that cannot be complete');

refuse('weekends, closures, days after the latest trading day and days past the known range: exit 2, nothing sealed', async () => {
  const cases: [string, RegExp][] = [
    ['20250105', /refusing to seal: 20250105 is not a trading day/],
    ['20250129', /refusing to seal: 20250129 is not a trading day/],
    ['20250109', /refusing to seal: 20250109 is after the latest trading day 20250108/],
    ['20300102', /refusing to seal: 20300102 is outside the calendar's known range 20150101\.\.20261231/],
  ];
  for (const [date, reason] of cases) {
    const data = freshData();
    const r = await runCli(['seal', '--date', date, '--data-dir', data], { env: NOW });
    assert.is(r.code, 2, `${date}: ${r.stderr}`);
    assert.match(r.stderr, reason);
    assert.match(r.stderr, /--force/);
    assert.not.ok(r.stderr.replace(/\n$/, '').includes('\n'), 'one line');
    assert.not.ok(existsSync(data), `${date}: nothing created`);
  }
});

refuse('the latest trading day and earlier ones seal; --force seals a refused day', async () => {
  const data = freshData();
  const ok = await runCli(['seal', '--date', '20250108', '--data-dir', data], { env: NOW });
  assert.is(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /^sealed index 20250108: 0 files/m);
  const forced = await runCli(['seal', '--date', '20250105', '--force', '--data-dir', data], { env: NOW });
  assert.is(forced.code, 0, forced.stderr);
  assert.match(forced.stdout, /^sealed level2 20250105: 0 files/m);
  assert.match(forced.stderr, /sealing anyway \(--force\)/);
});

refuse('an imported year makes its trading days sealable, on that data directory', async () => {
  const data = freshData();
  const env = { TICKVAULT_NOW: '2027-01-05T18:00:00+08:00' };
  const before = await runCli(['seal', '--date', '20270104', '--data-dir', data], { env });
  assert.is(before.code, 2);
  assert.match(before.stderr, /outside the calendar's known range/);
  mkdirSync(data, { recursive: true });
  const file = join(root, 'fixture-2027.txt'); // a fixture, not the published 2027 calendar
  writeFileSync(file, '20270101\n');
  assert.is((await runCli(['calendar', 'import', file, '--data-dir', data], { env })).code, 0);
  const after = await runCli(['seal', '--date', '20270104', '--data-dir', data], { env });
  assert.is(after.code, 0, after.stderr);
  const holiday = await runCli(['seal', '--date', '20270101', '--data-dir', data], { env });
  assert.is(holiday.code, 2);
  assert.match(holiday.stderr, /20270101 is not a trading day/);
});

refuse.run();
