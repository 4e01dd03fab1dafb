/**
 * Issue 46: one stray quote must not swallow the rest of a CSV file. Trade files whose every
 * row is known from their making (test/support/tradeCsv.ts), some lines damaged (a quote never
 * closed, a field more or fewer than the header), are imported into empty data directories
 * through the CLI. What was sealed is read back with DuckDB, what was quarantined with
 * `tickvault quarantine`, run as the import's own note says.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { compress } from '@mongodb-js/zstd';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli, type CliResult } from '../support/cli.js';
import { duckRows, sqlString } from '../support/duckdb.js';
import { REPLAY_NOW } from '../support/server.js';
import { tempDir } from '../support/tempDir.js';
import { tradeCsvText, tradeRowOf, writeTradeMapping, type Damage } from '../support/tradeCsv.js';

const env = { TICKVAULT_NOW: REPLAY_NOW };
const REASON: Record<Damage, string> = {
  quote: 'unterminated quote: a quoted field runs past the end of its line',
  extra: 'too many fields: 7, the header has 6',
  fewer: 'too few fields: 5, the header has 6',
};
/** The issue's files: a few hundred rows with the quote on line 11 (and a field more, one fewer), 200 rows with it on line 51. */
const FILE_A = {
  rows: 400,
  damage: new Map<number, Damage>([
    [11, 'quote'],
    [120, 'extra'],
    [300, 'fewer'],
  ]),
};
const FILE_B = { rows: 200, damage: new Map<number, Damage>([[51, 'quote']]) };

const fmt = (n: number) => n.toLocaleString('en-US');
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

async function importInto(file: string, map: string, dataDir = join(tempDir('tickvault-badcsv-'), 'data')): Promise<{ r: CliResult; dataDir: string }> {
  const r = await runCli(['import', file, '--mapping', map, '--data-dir', dataDir], { env });
  return { r, dataDir };
}

/** `SYMBOL TRADE_ID` of every sealed trade, sorted. */
async function sealedTrades(dataDir: string): Promise<string[]> {
  const rows = await duckRows(
    `SELECT symbol, trade_id FROM read_parquet(${sqlString(join(dataDir, 'trade', '*', '*.parquet'))}, hive_partitioning = false) ORDER BY symbol, trade_id`,
  );
  return rows.map((r) => `${String(r.symbol)} ${String(r.trade_id)}`);
}

/** What a file of `rows` with `damage` must seal: every undamaged row, by symbol and trade id. */
function expectedTrades(rows: number, damage: ReadonlyMap<number, Damage>, symbols = 1): string[] {
  const kept: { symbol: string; tradeId: number }[] = [];
  for (let k = 0; k < rows; k++) if (!damage.has(k + 2)) kept.push(tradeRowOf(k, symbols));
  kept.sort((a, b) => (a.symbol === b.symbol ? a.tradeId - b.tradeId : a.symbol < b.symbol ? -1 : 1));
  return kept.map((t) => `${t.symbol} ${t.tradeId}`);
}

/** The summary line of an import of one file, every count given. */
function summaryRe(rows: number, staged: number, damage: ReadonlyMap<number, Damage>, sealedFiles = 1): RegExp {
  const byReason = new Map<string, number>();
  for (const how of [...damage.entries()].sort((a, b) => a[0] - b[0]).map(([, h]) => h)) byReason.set(REASON[how], (byReason.get(REASON[how]) ?? 0) + 1);
  const reasons = [...byReason.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([r, n]) => `${fmt(n)} ${r}`)
    .join('; ');
  const quarantined = damage.size === 0 ? '0 quarantined' : `${fmt(damage.size)} quarantined (${reasons})`;
  return new RegExp(
    `^read 1 file: ${escapeRe(`${fmt(rows)} rows, ${fmt(staged)} staged, 0 already there, ${quarantined}; sealed 1 dataset-day, ${sealedFiles} files, ${fmt(staged)} rows in `)}[\\d.]+ s\\n$`,
  );
}

/** The listing `tickvault quarantine` must print for a file: its damaged lines, in line order. */
function expectedListing(file: string, lines: readonly string[], damage: ReadonlyMap<number, Damage>): string[] {
  return [...damage.entries()].sort((a, b) => a[0] - b[0]).map(([line, how]) => `${file}:${line}\t${REASON[how]}\t${lines[line - 1]}`);
}

/** Runs the command the import's note names (`list them with: tickvault quarantine …`), as a user would paste it. */
async function runNote(stderr: string): Promise<CliResult> {
  const m = /list them with: tickvault (quarantine [^(]*?) \(counts by reason: --count\)$/m.exec(stderr);
  assert.ok(m, `a note naming the command: ${stderr}`);
  return runCli(m![1].split(' '), { env });
}

const t = suite('tickvault import: a malformed CSV line is quarantined alone, the rest of the file staged');

t(
  "the issue's files (quote on line 11 of 400 rows with a field more and one fewer; quote on line 51 of 200) and a clean one, into empty data directories",
  async () => {
    const dir = tempDir('tickvault-badcsv-in-');
    const map = writeTradeMapping(dir);
    for (const [name, spec] of [
      ['a', FILE_A],
      ['b', FILE_B],
      ['clean', { rows: 300, damage: new Map<number, Damage>() }],
    ] as const) {
      const { text, lines } = tradeCsvText(spec.rows, spec.damage);
      mkdirSync(join(dir, name));
      const file = join(dir, name, 'trades_20250102.csv');
      writeFileSync(file, text);
      const { r, dataDir } = await importInto(file, map);
      const good = spec.rows - spec.damage.size;
      assert.match(r.stdout, summaryRe(spec.rows, good, spec.damage), name);
      assert.equal(await sealedTrades(dataDir), expectedTrades(spec.rows, spec.damage), `${name}: every good row sealed`);
      if (spec.damage.size === 0) {
        assert.is(r.code, 0, `${name}: ${r.stderr}`);
        assert.is(r.stderr, '', name);
        continue;
      }
      assert.is(r.code, 1, `${name}: exit 1 when a row was quarantined: ${r.stderr}`);
      const n = spec.damage.size;
      assert.is(
        r.stderr,
        `tickvault import: ${n} row${n === 1 ? '' : 's'} quarantined, not imported; list them with: tickvault quarantine --source ${file} --data-dir ${dataDir} (counts by reason: --count)\n`,
        name,
      );
      const listed = await runNote(r.stderr);
      assert.is(listed.code, 0, listed.stderr);
      assert.equal(listed.stdout.trimEnd().split('\n'), expectedListing(file, lines, spec.damage), name);
    }
  },
);

t('the same damage in .csv.gz and .csv.zst: the same rows sealed, the same lines quarantined', async () => {
  const dir = tempDir('tickvault-badcsv-z-');
  const map = writeTradeMapping(dir);
  const { text, lines } = tradeCsvText(FILE_A.rows, FILE_A.damage);
  const gz = join(dir, 'trades_20250102.csv.gz');
  const zst = join(dir, 'trades_20250102.csv.zst');
  writeFileSync(gz, gzipSync(Buffer.from(text)));
  writeFileSync(zst, await compress(Buffer.from(text), 3));
  for (const file of [gz, zst]) {
    const { r, dataDir } = await importInto(file, map);
    assert.is(r.code, 1, r.stderr);
    assert.match(r.stdout, summaryRe(FILE_A.rows, FILE_A.rows - 3, FILE_A.damage), file);
    assert.equal(await sealedTrades(dataDir), expectedTrades(FILE_A.rows, FILE_A.damage), file);
    const listed = await runNote(r.stderr);
    assert.equal(listed.stdout.trimEnd().split('\n'), expectedListing(file, lines, FILE_A.damage), file);
  }
});

t('the corrected file, imported over the sealed day, is refused naming the trade id it lacks; its rows count as refused', async () => {
  const dir = tempDir('tickvault-badcsv-fix-');
  const map = writeTradeMapping(dir);
  const bad = join(dir, 'bad', 'trades_20250102.csv');
  const fixed = join(dir, 'fixed', 'trades_20250102.csv');
  mkdirSync(join(dir, 'bad'));
  mkdirSync(join(dir, 'fixed'));
  writeFileSync(bad, tradeCsvText(FILE_B.rows, FILE_B.damage).text);
  writeFileSync(fixed, tradeCsvText(FILE_B.rows).text);
  const { r: first, dataDir } = await importInto(bad, map);
  assert.is(first.code, 1, first.stderr);
  const { r } = await importInto(fixed, map, dataDir);
  assert.is(r.code, 2, r.stderr);
  // Line 51 is row 50: trade 50, at 09:30:24.500.
  assert.is(
    r.stderr,
    `tickvault import: ${fixed} refused, nothing of it staged: trade 20250102 600000.SH 093024500 trade_id 50: no sealed row has trade_id 50; a sealed day changes only through \`tickvault restate\`\n`,
  );
  assert.match(
    r.stdout,
    /^read 1 file: 200 rows, 0 staged, 0 already there, 0 quarantined, 200 refused \(1 file\); sealed 0 dataset-days, 0 files, 0 rows in [\d.]+ s\n$/,
  );
  assert.equal(await sealedTrades(dataDir), expectedTrades(FILE_B.rows, FILE_B.damage), 'the sealed day unchanged');
});

t('a 1,000,000-row file with one bad quote on line 11 stages every other row', async () => {
  const dir = tempDir('tickvault-badcsv-big-');
  const map = writeTradeMapping(dir);
  const rows = 1_000_000;
  const symbols = 100;
  const damage = new Map<number, Damage>([[11, 'quote']]);
  const file = join(dir, 'trades_20250102.csv');
  const { text, lines } = tradeCsvText(rows, damage, symbols);
  writeFileSync(file, text);
  const { r, dataDir } = await importInto(file, map);
  assert.is(r.code, 1, r.stderr);
  assert.match(r.stdout, summaryRe(rows, rows - 1, damage, symbols));
  const secs = Number(/ rows in ([\d.]+) s/.exec(r.stdout)![1]);
  console.log(`  1,000,000 rows with one bad quote: imported and sealed in ${secs} s (${fmt(Math.round(rows / secs))} rows/s)`);
  // Line 11 is row 9: 600009.SH's first trade. Every other (symbol, trade id) is there once.
  const glob = sqlString(join(dataDir, 'trade', '*', '*.parquet'));
  const [got] = await duckRows(
    `SELECT count(*) AS n, count(DISTINCT (symbol, trade_id)) AS keys, CAST(sum(trade_id) AS BIGINT) AS ids, count(*) FILTER (WHERE symbol = '600009.SH' AND trade_id = 1) AS lost ` +
      `FROM read_parquet(${glob}, hive_partitioning = false)`,
  );
  // 100 symbols × trades 1..10,000, less one trade 1.
  assert.equal(got, { n: BigInt(rows - 1), keys: BigInt(rows - 1), ids: BigInt(symbols * ((10_000 * 10_001) / 2) - 1), lost: 0n });
  const listed = await runNote(r.stderr);
  assert.equal(listed.stdout.trimEnd().split('\n'), expectedListing(file, lines, damage));
});

t.run();
