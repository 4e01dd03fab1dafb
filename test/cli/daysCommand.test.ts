/**
 * `tickvault days` end to end on real files: a generated feed replayed with one symbol dropped
 * from its last day, late lines replayed again, a staged day, a restated day (version set to
 * 2 in the catalog), checked against what is known independently (the feed's lines, DuckDB's
 * read of the sealed files).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tradingDaysInRange } from '../../calendar/tradingCalendar.js';
import { Staging } from '../../ingest/staging/segments.js';
import { SCHEMAS, type SnapshotRow } from '../../shared/schema.js';
import { openCatalog } from '../../storage/catalog.js';
import { layoutFor } from '../../storage/layout.js';
import { runCli } from '../support/cli.js';
import { duckRows, sqlString } from '../support/duckdb.js';
import { tempDir } from '../support/tempDir.js';

const NOW = { TICKVAULT_NOW: '2025-03-03T18:00:00+08:00' };
const root = tempDir('tickvault-days-');
const data = join(root, 'data');
const DROPPED = '600000.SH';

interface FeedLine {
  readonly kind: string;
  readonly symbol: string;
  readonly tradedate: string;
}
/** Lines of the replayed feed, by `dataset|tradedate`, and symbols by the same key. */
const lineCount = new Map<string, number>();
let lateLines: string[] = [];
let restatedSymbol = '';

async function cli(args: readonly string[]) {
  return runCli(['days', '--data-dir', data, ...args], { env: NOW });
}

/**
 * The table's line of a dataset-day, split on runs of two spaces or more, without its WHERE
 * column, which is checked here: `local` for a day with files (no store here), else `-`.
 */
function lineOf(stdout: string, dataset: string, day: string): string[] {
  const line = stdout.split('\n').find((l) => l.startsWith(`${dataset} `) && l.includes(` ${day} `));
  assert.ok(line, `${dataset} ${day} listed in:\n${stdout}`);
  const cols = line.trim().split(/ {2,}/);
  assert.is(cols[3], cols[4] === '0' ? '-' : 'local', `WHERE of ${dataset} ${day}`);
  return [...cols.slice(0, 3), ...cols.slice(4)];
}

async function duckDay(dataset: string, day: string): Promise<{ files: number; rows: number }> {
  const glob = join(data, dataset, `date=${day}`, '*.parquet');
  const r = await duckRows(
    `SELECT count(DISTINCT filename)::INTEGER AS files, count(*)::INTEGER AS rows FROM read_parquet(${sqlString(glob)}, filename = true)`,
  );
  return { files: r[0]!.files as number, rows: r[0]!.rows as number };
}

const setup = suite('tickvault days: setup');

setup('generate, drop a symbol from the last level2 day, replay, replay late lines, stage a day, restate a symbol', async () => {
  const feed = join(root, 'feed.jsonl');
  const gen = await runCli(['generate', '--out', feed, '--from', '20250102', '--days', '3', '--stocks', '3', '--indexes', '2', '--ticks', '0'], { env: NOW });
  assert.is(gen.code, 0, gen.stderr);
  const kept: string[] = [];
  for (const line of readFileSync(feed, 'utf8').split('\n')) {
    if (line === '') continue;
    const l = JSON.parse(line) as FeedLine;
    if (l.kind === 'level2' && l.tradedate === '20250106' && l.symbol === DROPPED) continue;
    kept.push(line);
    const key = `${l.kind}|${l.tradedate}`;
    lineCount.set(key, (lineCount.get(key) ?? 0) + 1);
  }
  const filtered = join(root, 'filtered.jsonl');
  writeFileSync(filtered, kept.join('\n') + '\n');
  const rep = await runCli(['replay', filtered, '--data-dir', data], { env: NOW });
  assert.is(rep.code, 0, rep.stderr);

  // Late: two level2 lines of 20250103 and one index line of 20250102, replayed again.
  const of = (kind: string, day: string) =>
    kept.filter((line) => {
      const l = JSON.parse(line) as FeedLine;
      return l.kind === kind && l.tradedate === day;
    });
  lateLines = [...of('level2', '20250103').slice(0, 2), of('index', '20250102')[0]!];
  const late = join(root, 'late.jsonl');
  writeFileSync(late, lateLines.join('\n') + '\n');
  const again = await runCli(['replay', late, '--data-dir', data], { env: NOW });
  // Nothing staged is exit 1 for replay; the three lines are in quarantine as late.
  assert.is(again.code, 1, again.stderr);
  assert.match(again.stderr, /all 3 lines were quarantined \(3 late/);

  // Staged, not sealed: five level2 records of 20250107 for two symbols.
  const layout = layoutFor(data);
  const staging = Staging.open(layout.ingestDb, () => Date.now());
  const values = new Array<number | null>(SCHEMAS.level2.valueFields.length).fill(null);
  const row = (symbol: string, min: number): SnapshotRow => ({
    dataset: 'level2',
    symbol,
    tradedate: '20250107',
    timeMs: (9 * 60 + 30 + min) * 60_000,
    values,
  });
  staging.stage([row('600000.SH', 0), row('600000.SH', 1), row('600000.SH', 2), row('000001.SZ', 0), row('000001.SZ', 1)], []);
  staging.close();

  // Restated: one index symbol of 20250103 at version 2 (as `restate` would leave the catalog).
  const db = openCatalog(layout.catalogDb);
  try {
    restatedSymbol = db.prepare("SELECT min(symbol) FROM files WHERE dataset = 'index' AND tradedate = '20250103'").pluck().get() as string;
    db.prepare("UPDATE files SET version = 2 WHERE dataset = 'index' AND tradedate = '20250103' AND symbol = ?").run(restatedSymbol);
  } finally {
    db.close();
  }
});

setup.run();

const table = suite('tickvault days: the table');

table('default range: every stored dataset, from the earliest stored day to the latest trading day', async () => {
  const r = await cli([]);
  assert.is(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split('\n');
  assert.match(lines[0]!, /^DATASET +DAY +STATUS +WHERE +FILES +ROWS +STAGED +LATE +MISSING$/);
  const days = tradingDaysInRange('20250102', '20250303');
  assert.is(lines.length, 1 + 2 * days.length, 'level2 and index, each day once');
  assert.match(lines[1]!, /^level2 +20250102 +sealed /);
  assert.match(lines[days.length + 1]!, /^index +20250102 +sealed /);
  assert.match(lines[lines.length - 1]!, /^index +20250303 +empty +- +0 +0 +- +0 +-$/);
  assert.is(r.stderr, '');
});

table('sealed days: files and rows as DuckDB reads them and as the feed had lines; late messages; the dropped symbol named', async () => {
  const r = await cli(['--to', '20250110']);
  assert.is(r.code, 0, r.stderr);
  for (const [dataset, day] of [
    ['level2', '20250102'],
    ['level2', '20250103'],
    ['level2', '20250106'],
    ['index', '20250102'],
    ['index', '20250106'],
  ] as const) {
    const cols = lineOf(r.stdout, dataset, day);
    const duck = await duckDay(dataset, day);
    assert.is(duck.rows, lineCount.get(`${dataset}|${day}`), `${dataset} ${day}: DuckDB and the feed agree`);
    assert.equal(cols.slice(2, 5), ['sealed', String(duck.files), String(duck.rows)], `${dataset} ${day}`);
  }
  assert.equal(lineOf(r.stdout, 'level2', '20250102').slice(5), ['-', '0', '-'], 'the first day: nothing to compare with');
  assert.equal(lineOf(r.stdout, 'level2', '20250103').slice(5), ['-', '2', '0'], 'two late lines, no symbol missing');
  assert.equal(lineOf(r.stdout, 'index', '20250102').slice(5), ['-', '1', '-'], 'one late line');
  const dropped = lineOf(r.stdout, 'level2', '20250106');
  assert.is(dropped[3], '2', 'one file fewer');
  assert.equal(dropped.slice(5), ['-', '0', `1: ${DROPPED}`]);
});

table('a staged day is live (records staged so far), a day with nothing is empty, a restated day shows its version', async () => {
  const r = await cli(['--to', '20250110']);
  assert.equal(lineOf(r.stdout, 'level2', '20250107').slice(2), ['live', '0', '0', '5', '0', '-']);
  assert.equal(lineOf(r.stdout, 'level2', '20250108').slice(2), ['empty', '0', '0', '-', '0', '-']);
  const restated = lineOf(r.stdout, 'index', '20250103');
  assert.is(restated[2], 'restated v2 (1 symbol)');
  assert.is(restated[7], '0');
  assert.equal(lineOf(r.stdout, 'index', '20250106').slice(2, 3), ['sealed']);
});

table.run();

const json = suite('tickvault days --json');

json('one object per line with the same facts; --dataset and the range narrow it', async () => {
  const r = await cli(['--json', '--dataset', 'level2', '--from', '20250103', '--to', '20250108']);
  assert.is(r.code, 0, r.stderr);
  const rows = r.stdout
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.equal(
    rows.map((x) => [x.dataset, x.day, x.status]),
    [
      ['level2', '20250103', 'sealed'],
      ['level2', '20250106', 'sealed'],
      ['level2', '20250107', 'live'],
      ['level2', '20250108', 'empty'],
    ],
  );
  const duck = await duckDay('level2', '20250106');
  assert.equal(rows[1], {
    dataset: 'level2',
    day: '20250106',
    status: 'sealed',
    where: 'local',
    version: 1,
    restatedSymbols: 0,
    files: duck.files,
    rows: duck.rows,
    stagedSymbols: 0,
    stagedRecords: 0,
    late: 0,
    missing: { against: '20250103', count: 1, symbols: [DROPPED] },
  });
  assert.is(rows[0]!.late, 2);
  assert.equal([rows[2]!.stagedSymbols, rows[2]!.stagedRecords, rows[2]!.missing], [2, 5, null]);
  const idx = await cli(['--json', '--dataset', 'index', '--from', '20250103', '--to', '20250103']);
  assert.equal(JSON.parse(idx.stdout), {
    dataset: 'index',
    day: '20250103',
    status: 'restated',
    where: 'local',
    version: 2,
    restatedSymbols: 1,
    files: 2,
    rows: lineCount.get('index|20250103'),
    stagedSymbols: 0,
    stagedRecords: 0,
    late: 0,
    missing: { against: '20250102', count: 0, symbols: [] },
  });
});

json.run();

const where = suite("tickvault days: WHERE from the store's tables");

where('both: wholly stored (not due again); stored: offloaded, the store only; local otherwise', async () => {
  // The marks upload and offload leave (test/storage/store/offload.test.ts makes them for real).
  const db = openCatalog(layoutFor(data).catalogDb);
  const due = db.prepare('SELECT tradedate, changes FROM store_due').all() as { tradedate: string; changes: number }[];
  try {
    db.exec(`DELETE FROM store_due;
             INSERT INTO stored_days (tradedate, objects, bytes, manifest_sha256, stored_at_ms) VALUES ('20250102', 1, 1, 'x', 0), ('20250103', 1, 1, 'x', 0);
             INSERT INTO offloaded_days (tradedate, offloaded_at_ms) VALUES ('20250102', 0)`);
    const r = await cli(['--json', '--dataset', 'level2', '--from', '20250102', '--to', '20250106']);
    assert.is(r.code, 0, r.stderr);
    const rows = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { day: string; where: string });
    assert.equal(
      rows.map((x) => `${x.day} ${x.where}`),
      ['20250102 stored', '20250103 both', '20250106 local'],
    );
  } finally {
    db.exec('DELETE FROM stored_days; DELETE FROM offloaded_days');
    for (const d of due) db.prepare('INSERT OR REPLACE INTO store_due (tradedate, changes) VALUES (?, ?)').run(d.tradedate, d.changes);
    db.close();
  }
});

where.run();

const edges = suite('tickvault days: empty directories and bad arguments');

edges('a data directory with nothing in it: a note, or empty days of every dataset for a range asked for', async () => {
  const empty = join(root, 'empty');
  mkdirSync(empty);
  const none = await runCli(['days', '--data-dir', empty], { env: NOW });
  assert.is(none.code, 0, none.stderr);
  assert.is(none.stdout, `no days: nothing sealed or staged in ${empty}\n`);
  const ranged = await runCli(['days', '--data-dir', empty, '--from', '20250102', '--to', '20250103', '--json'], { env: NOW });
  assert.is(ranged.code, 0, ranged.stderr);
  const rows = ranged.stdout
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as { dataset: string; status: string });
  assert.equal(
    rows.map((x) => `${x.dataset} ${x.status}`),
    ['level2', 'level2', 'index', 'index', 'trade', 'trade', 'order', 'order'].map((d) => `${d} empty`),
  );
});

edges('bad arguments and a missing data directory: exit 2, one line', async () => {
  const cases: [readonly string[], RegExp][] = [
    [['--from', '2025013'], /--from must be a real date/],
    [['--to', '20250230'], /--to must be a real date/],
    [['--from', '20250106', '--to', '20250102'], /--from must not be after --to/],
    [['--dataset', 'quotes'], /--dataset must be one of level2, index, trade, order/],
    [['extra'], /Unexpected argument|unexpected/i],
    [['--data-dir', join(root, 'nowhere')], /data directory not found/],
  ];
  for (const [args, message] of cases) {
    const r = await cli(args);
    assert.is(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
    assert.is(r.stderr.trimEnd().split('\n').length, 1, `${args.join(' ')}: one line`);
    assert.is(r.stdout, '');
  }
});

edges.run();
