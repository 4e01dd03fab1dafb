import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Database from 'better-sqlite3';
import { quarantineCounts, quarantinedRows, sourceFile, sourceMatcher } from '../../../storage/staging/quarantineList.js';
import { STAGING_SCHEMA } from '../../../storage/staging/stagingReader.js';
import { beijingDayStartMs } from '../../../shared/clock.js';

const t = suite('the quarantine read back');

t("a source's file: without its :LINE or #ROW; a Kafka source is its own", () => {
  assert.is(sourceFile('/in/trades_20250102.csv:11'), '/in/trades_20250102.csv');
  assert.is(sourceFile('dl/x.parquet#0'), 'dl/x.parquet');
  assert.is(sourceFile('md.trade/3@1024'), 'md.trade/3@1024');
  assert.is(sourceFile('odd:name.csv:7'), 'odd:name.csv');
});

t('a glob matches the whole path or its end from a /: * any run of characters, ? one, nothing else special', () => {
  const yes: [string, string][] = [
    ['trades_20250102.csv', '/in/2025/trades_20250102.csv:11'],
    ['2025/trades_20250102.csv', '/in/2025/trades_20250102.csv:11'],
    ['/in/2025/trades_20250102.csv', '/in/2025/trades_20250102.csv:11'],
    ['/in/*', '/in/2025/trades_20250102.csv:11'],
    ['*.csv', 'rel/trades_20250102.csv:2'],
    ['trades_2025010?.csv', 'trades_20250103.csv:2'],
    ['x.parquet', 'dl/x.parquet#4'],
    ['md.trade/*', 'md.trade/0@17'],
    ['a+b (1).csv', 'a+b (1).csv:3'],
  ];
  for (const [glob, source] of yes) assert.ok(sourceMatcher(glob)(source), `${glob} ~ ${source}`);
  const no: [string, string][] = [
    ['rades_20250102.csv', '/in/trades_20250102.csv:11'],
    ['in/trades_20250102.csv', '/in/2025/trades_20250102.csv:11'],
    ['trades_20250102.csv:11', '/in/trades_20250102.csv:11'],
    ['*.csv', 'x.csv.gz:2'],
    ['trades.csv', 'tradesXcsv:1'],
    ['md.trade/*', 'md.order/0@17'],
  ];
  for (const [glob, source] of no) assert.not.ok(sourceMatcher(glob)(source), `${glob} !~ ${source}`);
});

t('rows in the order quarantined, filtered by source, reason (any case) and the Beijing days quarantined; counts by reason', () => {
  const db = new Database(':memory:');
  db.exec(STAGING_SCHEMA);
  const day1 = beijingDayStartMs('20250303');
  const day2 = beijingDayStartMs('20250304');
  const insert = db.prepare('INSERT INTO quarantine (at_ms, source, reason, raw) VALUES (?, ?, ?, ?)');
  insert.run(day1, 'a/t_1.csv:11', 'unterminated quote', 'x,"y');
  insert.run(day1 + 86_399_999, 'a/t_1.csv:12', 'too many fields: 3, the header has 2', 'x,y,z');
  insert.run(day2, 'b/t_2.csv:5', 'Unterminated Quote', '"');
  insert.run(day2 + 5, 'md.trade/0@9', 'late: trade 20250102 600000.SH is already sealed', '{}');
  const sources = (f: Parameters<typeof quarantinedRows>[1]) => [...quarantinedRows(db, f)].map((r) => r.source);
  assert.equal(sources({}), ['a/t_1.csv:11', 'a/t_1.csv:12', 'b/t_2.csv:5', 'md.trade/0@9']);
  assert.equal(sources({ source: 't_1.csv' }), ['a/t_1.csv:11', 'a/t_1.csv:12']);
  assert.equal(sources({ reason: 'QUOTE' }), ['a/t_1.csv:11', 'b/t_2.csv:5']);
  assert.equal(sources({ from: '20250304' }), ['b/t_2.csv:5', 'md.trade/0@9']);
  assert.equal(sources({ to: '20250303' }), ['a/t_1.csv:11', 'a/t_1.csv:12']);
  assert.equal(sources({ source: '*.csv', reason: 'quote', from: '20250304', to: '20250304' }), ['b/t_2.csv:5']);
  assert.equal(sources({ from: '20250305' }), []);
  const [first] = quarantinedRows(db, { source: 'md.trade/*' });
  assert.equal(first, { id: 4, atMs: day2 + 5, source: 'md.trade/0@9', reason: 'late: trade 20250102 600000.SH is already sealed', raw: '{}' });
  assert.equal(quarantineCounts(db, { reason: 'quote' }), [
    { reason: 'Unterminated Quote', rows: 1 },
    { reason: 'unterminated quote', rows: 1 },
  ]);
  assert.equal(quarantineCounts(db, { source: 'a/*' }), [
    { reason: 'too many fields: 3, the header has 2', rows: 1 },
    { reason: 'unterminated quote', rows: 1 },
  ]);
  db.close();
});

t.run();
