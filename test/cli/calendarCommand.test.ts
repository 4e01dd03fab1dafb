import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, runCli } from '../support/cli.js';
import { tempDir } from '../support/tempDir.js';

const root = tempDir('tickvault-calendar-');
let n = 0;
function freshDir(): string {
  const d = join(root, `c${++n}`);
  mkdirSync(d);
  return d;
}

// A test fixture for the import mechanism, not the exchanges' 2027 calendar. 20270101 is a
// Friday, 20270104 a Monday; 20270102 a Saturday.
const FIXTURE_2027 = '# fixture\n20270101\n\n20270104  # trailing comment\n';
const ACROSS_NEW_YEAR = ['calendar', '--from', '20261225', '--to', '20270110'];
const WEEKDAYS_ACROSS = '20261225\n20261228\n20261229\n20261230\n20261231\n20270101\n20270104\n20270105\n20270106\n20270107\n20270108\n';

const imp = suite('tickvault calendar import');

imp('before an import, a range past the known range lists its weekdays with a warning on stderr', async () => {
  const dir = freshDir();
  const r = await runCli([...ACROSS_NEW_YEAR, '--data-dir', join(dir, 'data')]);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout, WEEKDAYS_ACROSS);
  assert.match(r.stderr, /^warning: the calendar's known range is 20150101\.\.20261231; .*every weekday is listed as a trading day/);
});

imp('an import extends the known range of that data directory only; the listed closures are gone', async () => {
  const dir = freshDir();
  const data = join(dir, 'data');
  writeFileSync(join(dir, 'c2027.txt'), FIXTURE_2027);
  const r = await runCli(['calendar', 'import', join(dir, 'c2027.txt'), '--data-dir', data]);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^imported 2 closures for 2027 into .*calendar-closures\.txt; known range 20150101\.\.20271231\n$/);
  assert.ok(existsSync(join(data, 'calendar-closures.txt')));

  const after = await runCli([...ACROSS_NEW_YEAR, '--data-dir', data]);
  assert.is(after.code, 0, after.stderr);
  assert.is(after.stdout, WEEKDAYS_ACROSS.replace('20270101\n', '').replace('20270104\n', ''));
  assert.is(after.stderr, '', 'inside the known range: no warning');

  const shown = await runCli(['calendar', '--data-dir', data], { env: { TICKVAULT_NOW: '2026-11-25T12:00:00+08:00' } });
  assert.is(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /^known range 20150101\.\.20271231 /);
  assert.is(shown.stderr, '');

  const other = await runCli([...ACROSS_NEW_YEAR, '--data-dir', join(dir, 'elsewhere')]);
  assert.is(other.stdout, WEEKDAYS_ACROSS, 'another data directory keeps the shipped calendar');

  // The same year again: refused without --replace, accepted with it.
  const again = await runCli(['calendar', 'import', join(dir, 'c2027.txt'), '--data-dir', data]);
  assert.is(again.code, 2);
  assert.match(again.stderr, /2027 is already known .*--replace/);
  writeFileSync(join(dir, 'c2027b.txt'), '20270105\n');
  const replaced = await runCli(['calendar', 'import', '--replace', join(dir, 'c2027b.txt'), '--data-dir', data]);
  assert.is(replaced.code, 0, replaced.stderr);
  const now = await runCli(['calendar', '--from', '20270101', '--to', '20270106', '--data-dir', data]);
  assert.is(now.stdout, '20270101\n20270104\n20270106\n');
});

imp('a bad file: exit 2, one line naming the file and line, nothing written', async () => {
  const dir = freshDir();
  const data = join(dir, 'data');
  const cases: [string, RegExp][] = [
    ['20270101\n20270102\n', /bad\.txt:2: 20270102 is a weekend day/],
    ['20270101\n20270431\n', /bad\.txt:2: 20270431 is not a real date/],
    ['20270101\n# c\n20270101\n', /bad\.txt:3: 20270101 is listed twice/],
    ['2027-01-04\n', /bad\.txt:1: expected one date YYYYMMDD/],
    ['20280103\n', /bad\.txt: names 2028 but not 2027/],
    ['20260105\n', /2026 is already known/],
  ];
  for (const [text, reason] of cases) {
    writeFileSync(join(dir, 'bad.txt'), text);
    const r = await runCli(['calendar', 'import', join(dir, 'bad.txt'), '--data-dir', data]);
    assert.is(r.code, 2, `${reason}: ${r.stderr}`);
    const line = r.stderr.replace(/\n$/, '');
    assert.not.ok(line.includes('\n'), r.stderr);
    assert.match(line, reason);
    assert.not.ok(existsSync(join(data, 'calendar-closures.txt')), 'nothing stored');
  }
  const missing = await runCli(['calendar', 'import', join(dir, 'nope.txt'), '--data-dir', data]);
  assert.is(missing.code, 2);
  assert.match(missing.stderr, /nope\.txt/);
});

imp('the known range is shown with a warning within 30 days of its end', async () => {
  const dir = freshDir();
  const r = await runCli(['calendar', '--data-dir', join(dir, 'data')], { env: { TICKVAULT_NOW: '2026-12-15T12:00:00+08:00' } });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^known range 20150101\.\.20261231 /);
  assert.match(r.stderr, /^warning: the trading calendar is known only through 20261231 \(16 days left\)/);
  assert.equal(readdirSync(dir), [], 'showing the range creates no data directory');
});

imp('a damaged stored file fails every command on the directory with its line', async () => {
  const dir = freshDir();
  const data = join(dir, 'data');
  mkdirSync(data);
  writeFileSync(join(data, 'calendar-closures.txt'), '20270101\nbogus\n');
  const r = await runCli(['calendar', '--from', '20270101', '--to', '20270105', '--data-dir', data]);
  assert.is(r.code, 2);
  assert.match(r.stderr, /calendar-closures\.txt:2: expected one date YYYYMMDD, got "bogus"/);
});

imp('doctor shows the known range, with a warning near its end (not a problem: exit 0)', async () => {
  const data = join(freshDir(), 'data');
  mkdirSync(data);
  const r = await runCli(['doctor', '--data-dir', data], { env: { TICKVAULT_NOW: '2026-12-20T10:00:00+08:00' } });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^calendar: known range 20150101\.\.20261231$/m);
  assert.match(r.stdout, /^WARNING calendar +the trading calendar is known only through 20261231 \(11 days left\)/m);
  const j = await runCli(['doctor', '--json', '--data-dir', data], { env: { TICKVAULT_NOW: '2026-06-01T10:00:00+08:00' } });
  assert.equal((JSON.parse(j.stdout) as { calendar: unknown }).calendar, { first: '20150101', last: '20261231', warning: null });
});

imp('generate and replay warn about days past the known range', async () => {
  const dir = freshDir();
  const feed = join(dir, 'f.jsonl');
  const gen = await runCli(['generate', '--out', feed, '--from', '20270104', '--days', '1', '--stocks', '1', '--indexes', '0']);
  assert.is(gen.code, 0, gen.stderr);
  const warning = /1 day\(s\) past the calendar's known range \(through 20261231\), from 20270104/;
  assert.match(gen.stderr, warning);
  const rep = await runCli(['replay', feed, '--data-dir', join(dir, 'data')], { env: { TICKVAULT_NOW: '2027-01-05T18:00:00+08:00' } });
  assert.is(rep.code, 0, rep.stderr);
  assert.match(rep.stderr, warning);
});

imp.run();

const pipe = suite('tickvault calendar | head -1');

pipe('a reader that goes away ends the command quietly (no EPIPE stack trace), exit 0', async () => {
  // What `| head -1` does: read the first line, then close the pipe while output is still coming.
  const child = spawn(process.execPath, [CLI, 'calendar', '--from', '20150101', '--to', '20261231', '--data-dir', join(freshDir(), 'd')], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TICKVAULT_PROGRESS: 'off' },
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  let first = '';
  child.stdout.setEncoding('utf8').once('data', (d: string) => {
    first = d.split('\n')[0]!;
    child.stdout.destroy();
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  assert.is(first, '20150105');
  assert.is(stderr, '');
  assert.is(code, 0);
});

pipe.run();
