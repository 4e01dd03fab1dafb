/**
 * `tickvault quarantine` over a data directory two imports quarantined rows into, on two
 * days (by TICKVAULT_NOW): the rows listed with source, reason and raw text, filtered by
 * file, reason and day; counted by reason; JSON Lines; bad arguments refused in one line.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli } from '../support/cli.js';
import { tempDir } from '../support/tempDir.js';
import { tradeCsvText, writeTradeMapping, type Damage } from '../support/tradeCsv.js';

const QUOTE = 'unterminated quote: a quoted field runs past the end of its line';
const EXTRA = 'too many fields: 7, the header has 6';
const FEWER = 'too few fields: 5, the header has 6';
const DAY1 = '2025-03-03T18:00:00+08:00';
const DAY2 = '2025-03-05T09:00:00+08:00';

interface Fixture {
  readonly dataDir: string;
  readonly first: string;
  readonly second: string;
  readonly lines1: readonly string[];
  readonly lines2: readonly string[];
}

/** Two trade files imported a day apart: the first with a quote (line 11) and a field more (line 20), the second a field fewer (line 4) and a quote by a tab (line 7). */
async function fixture(): Promise<Fixture> {
  const dir = tempDir('tickvault-quarantine-');
  const map = writeTradeMapping(dir);
  const dataDir = join(dir, 'data');
  mkdirSync(join(dir, 'in', 'jan2'), { recursive: true });
  mkdirSync(join(dir, 'in', 'jan3'), { recursive: true });
  const first = join(dir, 'in', 'jan2', 'trades_20250102.csv');
  const second = join(dir, 'in', 'jan3', 'trades_20250103.csv');
  const a = tradeCsvText(
    30,
    new Map<number, Damage>([
      [11, 'quote'],
      [20, 'extra'],
    ]),
  );
  const b = tradeCsvText(10, new Map<number, Damage>([[4, 'fewer']]));
  const lines2 = [...b.lines];
  lines2[6] = lines2[6].replace(',09:', ',"09\t:'); // a quote never closed, and a tab in the raw text
  writeFileSync(first, a.text);
  writeFileSync(second, lines2.join('\n') + '\n');
  for (const [file, now] of [
    [first, DAY1],
    [second, DAY2],
  ] as const) {
    const r = await runCli(['import', file, '--mapping', map, '--data-dir', dataDir], { env: { TICKVAULT_NOW: now } });
    assert.is(r.code, 1, r.stderr);
  }
  return { dataDir, first, second, lines1: a.lines, lines2 };
}

const quarantine = (f: Fixture, ...args: string[]) => runCli(['quarantine', ...args, '--data-dir', f.dataDir]);
const out = (stdout: string) => stdout.trimEnd().split('\n');

const t = suite('tickvault quarantine');
let f: Fixture;

t.before(async () => {
  f = await fixture();
});

t('lists every row in the order quarantined: source, reason and raw text, tab-separated (a tab in the text shown as \\t)', async () => {
  const r = await quarantine(f);
  assert.is(r.code, 0, r.stderr);
  assert.equal(out(r.stdout), [
    `${f.first}:11\t${QUOTE}\t${f.lines1[10]}`,
    `${f.first}:20\t${EXTRA}\t${f.lines1[19]}`,
    `${f.second}:4\t${FEWER}\t${f.lines2[3]}`,
    `${f.second}:7\t${QUOTE}\t${f.lines2[6].replace('\t', '\\t')}`,
  ]);
  assert.is(r.stderr, '');
});

t('--source: a file name alone, a glob, a full path; --reason in any case; --from/--to the days quarantined (Beijing)', async () => {
  const sources = async (...args: string[]) => {
    const r = await quarantine(f, ...args);
    assert.is(r.code, 0, r.stderr);
    return out(r.stdout).map((l) => l.split('\t')[0]);
  };
  assert.equal(await sources('--source', 'trades_20250103.csv'), [`${f.second}:4`, `${f.second}:7`]);
  assert.equal(await sources('--source', 'jan2/*.csv'), [`${f.first}:11`, `${f.first}:20`]);
  assert.equal(await sources('--source', f.first), [`${f.first}:11`, `${f.first}:20`]);
  assert.equal(await sources('--source', 'trades_2025010?.csv', '--reason', 'QUOTE'), [`${f.first}:11`, `${f.second}:7`]);
  assert.equal(await sources('--from', '20250304'), [`${f.second}:4`, `${f.second}:7`]);
  assert.equal(await sources('--from', '20250303', '--to', '20250303'), [`${f.first}:11`, `${f.first}:20`]);
  assert.equal(await sources('--source', 'nothing.csv'), ['no quarantined rows']);
});

t('--json: one object a line, the raw text exact, the instant quarantined', async () => {
  const r = await quarantine(f, '--json', '--source', 'trades_20250103.csv');
  assert.is(r.code, 0, r.stderr);
  const rows = out(r.stdout).map((l) => JSON.parse(l) as { source: string; reason: string; raw: string; quarantined_at: string });
  assert.equal(
    rows.map(({ source, reason, raw }) => ({ source, reason, raw })),
    [
      { source: `${f.second}:4`, reason: FEWER, raw: f.lines2[3] },
      { source: `${f.second}:7`, reason: QUOTE, raw: f.lines2[6] },
    ],
  );
  // The clock starts at TICKVAULT_NOW and runs on: quarantined within the import's minute.
  for (const row of rows) {
    const ms = Date.parse(row.quarantined_at) - Date.parse(DAY2);
    assert.ok(ms >= 0 && ms < 60_000, row.quarantined_at);
  }
  const none = await quarantine(f, '--json', '--reason', 'no such reason');
  assert.is(none.stdout, '');
});

t('--count: rows by reason, the most frequent first, and the total; with --json one object a reason', async () => {
  const r = await quarantine(f, '--count');
  assert.is(r.code, 0, r.stderr);
  assert.equal(out(r.stdout), [`2  ${QUOTE}`, `1  ${FEWER}`, `1  ${EXTRA}`, '4 rows in quarantine']);
  const j = await quarantine(f, '--count', '--json', '--from', '20250305');
  assert.equal(
    out(j.stdout).map((l) => JSON.parse(l) as unknown),
    [
      { reason: FEWER, rows: 1 },
      { reason: QUOTE, rows: 1 },
    ],
  );
});

t('bad arguments: one line, exit 2', async () => {
  const cases: [string[], RegExp][] = [
    [['--from', '2025030'], /^tickvault quarantine: --from must be a real date YYYYMMDD, got "2025030"\n$/],
    [['--from', '20250305', '--to', '20250303'], /^tickvault quarantine: --from must not be after --to\n$/],
    [['--source', ''], /^tickvault quarantine: --source needs a file name or glob\n$/],
    [['--reason', ''], /^tickvault quarantine: --reason needs the text to look for\n$/],
    [['--sources', 'x'], /^tickvault quarantine: Unknown option '--sources'/],
    [['file.csv'], /^tickvault quarantine: Unexpected argument 'file.csv'/],
  ];
  for (const [args, re] of cases) {
    const r = await quarantine(f, ...args);
    assert.is(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, re);
    assert.is(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
    assert.is(r.stdout, '');
  }
  const missing = await runCli(['quarantine', '--data-dir', join(tempDir('tickvault-quarantine-none-'), 'nope')]);
  assert.is(missing.code, 2);
  assert.match(missing.stderr, /^tickvault quarantine: data directory not found: .*nope/);
});

t.run();
