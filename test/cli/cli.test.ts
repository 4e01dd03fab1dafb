import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { runCli, type CliResult } from '../support/cli.js';
import { tempDir } from '../support/tempDir.js';

const root = tempDir('tickvault-cli-');
let n = 0;
/** A fresh working directory, so that a default ./data never lands in the repository. */
const cwd = () => {
  const d = join(root, `w${++n}`);
  mkdirSync(d);
  return d;
};

/** Bad arguments: exit 2, nothing on stdout, one non-empty line on stderr matching `reason`. */
async function usageError(args: string[], reason: RegExp, env?: Record<string, string>): Promise<CliResult> {
  const dir = cwd();
  const r = await runCli(args, { cwd: dir, env });
  const what = `tickvault ${args.join(' ')}`;
  assert.is(r.code, 2, `${what}: exit code (stderr: ${r.stderr})`);
  assert.is(r.stdout, '', `${what}: stdout`);
  const text = r.stderr.replace(/\n$/, '');
  assert.ok(text.length > 0, `${what}: a reason on stderr`);
  assert.not.ok(text.includes('\n'), `${what}: one line, got:\n${r.stderr}`);
  assert.not.match(text, /\bat .*\.js:\d+/, `${what}: no stack trace`);
  assert.match(text, reason, `${what}: reason`);
  assert.equal(readdirSync(dir), [], `${what}: nothing created`);
  return r;
}

// ---------------------------------------------------------------------------------------------
const top = suite('tickvault: commands');

top('unknown command', async () => {
  await usageError(['frobnicate'], /frobnicate/);
});

top('--help exits 0 with the usage', async () => {
  await Promise.all(
    ['generate', 'seal'].map(async (c) => {
      const r = await runCli([c, '--help'], { cwd: cwd() });
      assert.is(r.code, 0, c);
      assert.match(r.stdout, new RegExp(`tickvault ${c}`), c);
    }),
  );
});

top('bad common options: --log-level, TICKVAULT_NOW', async () => {
  await Promise.all([
    usageError(['calendar', '--from', '20250101', '--to', '20250110', '--log-level', 'loud'], /log-level/),
    usageError(['calendar', '--from', '20250101', '--to', '20250110'], /TICKVAULT_NOW/, { TICKVAULT_NOW: 'not-a-time' }),
  ]);
});

// ---------------------------------------------------------------------------------------------
const gen = suite('tickvault generate: bad arguments');

gen('missing --out', async () => {
  await usageError(['generate'], /--out/);
});

gen('bad values', async () => {
  await Promise.all([
    usageError(['generate', '--out', 'f.jsonl', '--days', '0'], /--days/),
    usageError(['generate', '--out', 'f.jsonl', '--faults', '2'], /--faults/),
    usageError(['generate', '--out', 'f.jsonl', '--from', '2025-01-02'], /--from/),
    usageError(['generate', '--out', 'f.jsonl', '--ticks', 'lots'], /--ticks/),
    usageError(['generate', '--out', 'f.jsonl', '--ticks', '-1'], /--ticks/),
    usageError(['generate', '--out', 'f.jsonl', '--ticks', '61'], /--ticks must be a number from 0 to 60/),
    usageError(['generate', '--out', 'f.jsonl', '--tick-days', '0'], /--tick-days/),
    usageError(['generate', '--out', 'f.jsonl', '--tick-days', 'x'], /--tick-days/),
  ]);
});

gen('an --out that cannot be written: non-zero exit, one line naming the path, no stack trace', async () => {
  const dir = cwd();
  await Promise.all(
    ['f.jsonl', 'f.jsonl.gz', 'f.jsonl.zst'].map(async (name) => {
      const out = join(dir, 'no-such-dir', name);
      const r = await runCli(['generate', '--out', out, '--days', '1', '--stocks', '1', '--indexes', '0'], { cwd: dir });
      assert.ok(r.code !== 0 && r.code !== null, `${name}: exit ${r.code}`);
      const text = r.stderr.replace(/\n$/, '');
      assert.not.ok(text.includes('\n'), `${name}: one line, got:\n${r.stderr}`);
      assert.ok(text.includes(out), `${name}: names the path: ${text}`);
    }),
  );
});

gen('unknown flag and stray positionals', async () => {
  await Promise.all([
    usageError(['generate', '--out', 'f.jsonl', '--bogus'], /bogus/),
    usageError(['generate', '--out', 'f.jsonl', 'extra.jsonl'], /extra\.jsonl|argument|positional/i),
  ]);
});

// ---------------------------------------------------------------------------------------------
const rep = suite('tickvault replay: bad arguments');

rep('no feed file', async () => {
  await usageError(['replay'], /file/i);
});

rep('missing feed file, or a directory', async () => {
  await usageError(['replay', 'nope.jsonl.zst'], /nope\.jsonl\.zst/);
  const dir = cwd();
  const r = await runCli(['replay', dir, '--data-dir', join(dir, 'data')], { cwd: dir });
  assert.is(r.code, 2, r.stderr);
  assert.not.ok(existsSync(join(dir, 'data')), 'no data directory made for a bad call');
});

rep('unknown flag', async () => {
  await usageError(['replay', 'feed.jsonl', '--fast'], /fast/);
});

// ---------------------------------------------------------------------------------------------
const seal = suite('tickvault seal: bad arguments');

seal('missing or bad --date', async () => {
  await Promise.all([
    usageError(['seal'], /--date/),
    usageError(['seal', '--date', '20251340'], /--date/),
    usageError(['seal', '--date', '2025-01-02'], /--date/),
  ]);
});

seal('unknown flag and stray positionals', async () => {
  await Promise.all([
    usageError(['seal', '--date', '20250102', '--all'], /all/),
    usageError(['seal', '--date', '20250102', '20250103'], /20250103|argument|positional/i),
  ]);
});

// ---------------------------------------------------------------------------------------------
const cal = suite('tickvault calendar');

cal('prints exactly the trading days of 2025-01-25..2025-02-10 (Spring Festival closure)', async () => {
  const r = await runCli(['calendar', '--from', '20250125', '--to', '20250210'], { cwd: cwd() });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout, '20250127\n20250205\n20250206\n20250207\n20250210\n');
});

cal('a range of only closed days prints nothing; one trading day prints itself', async () => {
  const closed = await runCli(['calendar', '--from', '20250128', '--to', '20250204'], { cwd: cwd() });
  assert.is(closed.code, 0);
  assert.is(closed.stdout, '');
  const one = await runCli(['calendar', '--from', '20250102', '--to', '20250102'], { cwd: cwd() });
  assert.is(one.stdout, '20250102\n');
});

cal('bad arguments', async () => {
  await Promise.all([
    usageError(['calendar', '--to', '20250210'], /--from/),
    usageError(['calendar', '--from', '20250210', '--to', '20250125'], /--from.*--to|after/),
    usageError(['calendar', '--from', '20250230', '--to', '20250301'], /--from/),
    usageError(['calendar', '--from', '20250101', '--to', '20250201', '--weekends'], /weekends/),
  ]);
});

// ---------------------------------------------------------------------------------------------
const genOk = suite('tickvault generate: output');

genOk('same seed, same feed in .zst, .gz and plain; the announced days', async () => {
  const dir = cwd();
  const args = ['--from', '20250125', '--days', '2', '--stocks', '1', '--indexes', '1', '--seed', 'cli', '--faults', '0.01'];
  const texts: string[] = [];
  for (const out of ['a.jsonl.zst', 'b.jsonl.zst', 'c.jsonl.gz', 'd.jsonl']) {
    const r = await runCli(['generate', '--out', join(dir, out), ...args], { cwd: dir });
    assert.is(r.code, 0, r.stderr);
    const p = join(dir, out);
    texts.push(
      out.endsWith('.zst')
        ? execFileSync('zstd', ['-dc', p], { maxBuffer: 1 << 28 }).toString('utf8')
        : out.endsWith('.gz')
          ? gunzipSync(readFileSync(p)).toString('utf8')
          : readFileSync(p, 'utf8'),
    );
  }
  for (const t of texts) assert.is(t, texts[0]);
  const days = new Set<string>();
  for (const l of texts[0].split('\n')) {
    try {
      const o = JSON.parse(l) as { tradedate?: unknown };
      if (typeof o.tradedate === 'string') days.add(o.tradedate);
    } catch {
      // injected bad line
    }
  }
  // the generator's own bad lines may carry a broken tradedate; the real days are the first trading days on or after --from
  assert.ok(days.has('20250127') && days.has('20250205'), [...days].join(','));
  const other = await runCli(['generate', '--out', join(dir, 'e.jsonl'), ...args.map((a) => (a === 'cli' ? 'cli-2' : a))], { cwd: dir });
  assert.is(other.code, 0);
  assert.is.not(readFileSync(join(dir, 'e.jsonl'), 'utf8'), texts[3]);
});

genOk('orders and trades by default, on the latest --tick-days only; --ticks 0 writes none; the summary counts each kind', async () => {
  const dir = cwd();
  const args = ['--from', '20250102', '--days', '2', '--stocks', '2', '--indexes', '1', '--seed', 'kinds'];
  const count = (text: string) => {
    const perKind = new Map<string, Set<string>>();
    const c: Record<string, number> = {};
    for (const l of text.split('\n').filter((x) => x !== '')) {
      const o = JSON.parse(l) as { kind: string; tradedate: string };
      c[o.kind] = (c[o.kind] ?? 0) + 1;
      perKind.set(o.kind, (perKind.get(o.kind) ?? new Set()).add(o.tradedate));
    }
    return { c, days: (k: string) => [...(perKind.get(k) ?? [])].sort() };
  };
  const summary = (stdout: string) => /^generated (\d+) lines \(level2 (\d+), index (\d+), trade (\d+), order (\d+)\), /.exec(stdout)!.slice(1).map(Number);

  const last = await runCli(['generate', '--out', join(dir, 'last.jsonl'), ...args, '--tick-days', '1'], { cwd: dir });
  assert.is(last.code, 0, last.stderr);
  const got = count(readFileSync(join(dir, 'last.jsonl'), 'utf8'));
  const [lines, level2, index, trade, order] = summary(last.stdout);
  assert.equal({ level2: got.c.level2, index: got.c.index, trade: got.c.trade, order: got.c.order }, { level2, index, trade, order });
  assert.is(lines, level2 + index + trade + order);
  assert.ok(trade > 2 * 3000 && order > trade, last.stdout);
  assert.equal(got.days('trade'), ['20250103']);
  assert.equal(got.days('order'), ['20250103']);
  assert.equal(got.days('level2'), ['20250102', '20250103']);

  const all = await runCli(['generate', '--out', join(dir, 'all.jsonl'), ...args], { cwd: dir });
  assert.equal(count(readFileSync(join(dir, 'all.jsonl'), 'utf8')).days('trade'), ['20250102', '20250103']);
  const none = await runCli(['generate', '--out', join(dir, 'none.jsonl'), ...args, '--ticks', '0'], { cwd: dir });
  assert.is(none.code, 0, none.stderr);
  assert.equal(summary(none.stdout).slice(3), [0, 0]);
  // The snapshot lines are the same whatever the ticks.
  const snapshots = (f: string) =>
    readFileSync(join(dir, f), 'utf8')
      .split('\n')
      .filter((l) => /^\{"kind":"(level2|index)"/.test(l));
  assert.equal(snapshots('none.jsonl'), snapshots('last.jsonl'));
  assert.is(all.code, 0);
});

top.run();
gen.run();
rep.run();
seal.run();
cal.run();
genOk.run();
