import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { collectDayFacts, dayStatus, reportDays, statusJson, statusTable, type DayFactSource, type DayFacts } from '../../../ingest/status/dayStatus.js';
import type { Dataset } from '../../../shared/schema.js';

const BASE: DayFacts = {
  dataset: 'level2',
  day: '20250106',
  sealed: true,
  files: 3,
  rows: 300,
  highestVersion: 1,
  restatedSymbols: 0,
  stagedSymbols: 0,
  stagedRecords: 0,
  late: 0,
  symbols: ['A', 'B', 'C'],
  previous: { day: '20250103', symbols: ['A', 'B', 'C'] },
  stored: false,
  offloaded: false,
};

const status = suite('dayStatus');

status('sealed, restated (version above 1), live (rows staged), not sealed (files, nothing staged), empty', () => {
  assert.is(dayStatus(BASE).status, 'sealed');
  const r = dayStatus({ ...BASE, highestVersion: 3, restatedSymbols: 2 });
  assert.equal([r.status, r.version, r.restatedSymbols], ['restated', 3, 2]);
  const open = { ...BASE, sealed: false, files: 0, rows: 0, symbols: [], previous: null };
  assert.is(dayStatus({ ...open, stagedSymbols: 1, stagedRecords: 10 }).status, 'live');
  assert.is(dayStatus({ ...open, stagedSymbols: 1, stagedRecords: 10, files: 1, rows: 5 }).status, 'live', 'partly sealed, rows still staged');
  assert.is(dayStatus({ ...open, files: 1, rows: 5 }).status, 'not sealed', 'half sealed: files, day not marked');
  assert.is(dayStatus(open).status, 'empty');
});

status('missing symbols: those of the previous sealed trading day without a file, sorted; null unless both days are sealed', () => {
  assert.equal(dayStatus(BASE).missing, { against: '20250103', count: 0, symbols: [] });
  const m = dayStatus({ ...BASE, symbols: ['B', 'D'], previous: { day: '20250103', symbols: ['C', 'A', 'B'] } }).missing;
  assert.equal(m, { against: '20250103', count: 2, symbols: ['A', 'C'] });
  assert.is(dayStatus({ ...BASE, previous: null }).missing, null);
  assert.is(dayStatus({ ...BASE, sealed: false }).missing, null);
});

status.run();

const collect = suite('collectDayFacts');

/** A catalog of sealed level2 days 20250102 (A, B), 20250103 (A), 20250106 (A, B; B at version 2). */
function fakeCatalog(): DayFactSource {
  const days: Record<string, Record<string, number>> = {
    '20250102': { A: 1, B: 1 },
    '20250103': { A: 1 },
    '20250106': { A: 1, B: 2 },
  };
  const ofDay = (d: Dataset, t: string) => (d === 'level2' ? days[t] : undefined);
  return {
    isDaySealed: (d, t) => ofDay(d, t) !== undefined,
    dayTotals: (d, t) => ({ files: Object.keys(ofDay(d, t) ?? {}).length, rows: 10 * Object.keys(ofDay(d, t) ?? {}).length }),
    dayVersions: (d, t) => {
      const v = Object.values(ofDay(d, t) ?? {});
      return { restatedSymbols: v.filter((x) => x > 1).length, highestVersion: Math.max(1, ...v) };
    },
    symbolsOfDay: (d, t) => Object.keys(ofDay(d, t) ?? {}).sort(),
  };
}

collect('previous trading day by the calendar (over a weekend), late and staged by dataset-day', () => {
  const late = new Map([['level2|20250103', 4]]);
  const staged = [{ dataset: 'level2' as const, tradedate: '20250107', symbols: 2, records: 7 }];
  const facts = collectDayFacts(
    fakeCatalog(),
    ['level2', 'index'],
    ['20250102', '20250103', '20250106', '20250107'],
    late,
    staged,
    new Set(['20250102', '20250103', '20250107']),
    new Set(['20250102']),
  );
  const rows = facts.map(dayStatus);
  assert.equal(
    rows.map((r) => `${r.dataset} ${r.day} ${r.status}`),
    [
      'level2 20250102 sealed',
      'level2 20250103 sealed',
      'level2 20250106 restated',
      'level2 20250107 live',
      'index 20250102 empty',
      'index 20250103 empty',
      'index 20250106 empty',
      'index 20250107 empty',
    ],
  );
  assert.is(rows[0]!.missing, null, '20241231 is not sealed: nothing to compare with');
  assert.equal(rows[1]!.missing, { against: '20250102', count: 1, symbols: ['B'] });
  assert.is(rows[1]!.late, 4);
  assert.equal(rows[2]!.missing, { against: '20250103', count: 0, symbols: [] }, '20250106 is compared with Friday 20250103');
  assert.equal([rows[2]!.version, rows[2]!.restatedSymbols, rows[2]!.files, rows[2]!.rows], [2, 1, 2, 20]);
  assert.equal([rows[3]!.stagedSymbols, rows[3]!.stagedRecords, rows[3]!.missing], [2, 7, null]);
  // In the store: days with files there (both), offloaded (stored: the store only); without files nothing is anywhere (-).
  assert.equal(
    rows.map((r) => r.where),
    ['stored', 'both', 'local', '-', '-', '-', '-', '-'],
  );
});

collect('no catalog: every day empty or staged', () => {
  const facts = collectDayFacts(null, ['trade'], ['20250102'], new Map(), []);
  assert.equal(dayStatus(facts[0]!), {
    dataset: 'trade',
    day: '20250102',
    status: 'empty',
    where: '-',
    version: 1,
    restatedSymbols: 0,
    files: 0,
    rows: 0,
    stagedSymbols: 0,
    stagedRecords: 0,
    late: 0,
    missing: null,
  });
});

collect('reportDays: trading days of the range, plus stored days the calendar does not count', () => {
  // 20250101 is New Year's Day, 20250104/05 a weekend; 20250105 sealed with --force.
  assert.equal(reportDays('20250101', '20250106', []), ['20250102', '20250103', '20250106']);
  assert.equal(reportDays('20250101', '20250106', ['20250105', '20250105', '20250110']), ['20250102', '20250103', '20250105', '20250106']);
});

collect.run();

const format = suite('statusTable and statusJson');

format('aligned columns, numbers right, "-" for nothing staged or not compared, at most three names missing', () => {
  const rows = [
    dayStatus({ ...BASE, day: '20250103', previous: null, late: 12, stored: true }),
    dayStatus({ ...BASE, symbols: [], files: 0, rows: 0, previous: { day: '20250103', symbols: ['D', 'A', 'C', 'B'] } }),
    dayStatus({ ...BASE, day: '20250107', highestVersion: 2, restatedSymbols: 1, rows: 12345 }),
    dayStatus({ ...BASE, day: '20250108', sealed: false, files: 0, rows: 0, stagedSymbols: 1, stagedRecords: 5, symbols: [], previous: null }),
    dayStatus({ ...BASE, day: '20250109', previous: null, stored: true, offloaded: true }),
  ];
  assert.equal(statusTable(rows), [
    'DATASET  DAY       STATUS                  WHERE   FILES   ROWS  STAGED  LATE  MISSING',
    'level2   20250103  sealed                  both        3    300       -    12  -',
    'level2   20250106  sealed                  -           0      0       -     0  4: A, B, C, …',
    'level2   20250107  restated v2 (1 symbol)  local       3  12345       -     0  0',
    'level2   20250108  live                    -           0      0       5     0  -',
    'level2   20250109  sealed                  stored      3    300       -     0  -',
  ]);
  assert.match(statusTable([dayStatus({ ...BASE, highestVersion: 2, restatedSymbols: 2 })])[1]!, /restated v2 \(2 symbols\)/);
  assert.equal(statusTable(rows.slice(1, 2), 5)[1]!.endsWith('4: A, B, C, D'), true);
});

format('JSON: one object, one line, every fact', () => {
  const line = statusJson(dayStatus(BASE));
  assert.not.ok(line.includes('\n'));
  assert.equal(JSON.parse(line), {
    dataset: 'level2',
    day: '20250106',
    status: 'sealed',
    where: 'local',
    version: 1,
    restatedSymbols: 0,
    files: 3,
    rows: 300,
    stagedSymbols: 0,
    stagedRecords: 0,
    late: 0,
    missing: { against: '20250103', count: 0, symbols: [] },
  });
});

format.run();
