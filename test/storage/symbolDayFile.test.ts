/**
 * The lake's one writer of a symbol-day file: the file DuckDB reads back, the catalog facts
 * (size, SHA-256, minute counts) computed here from the bytes and the rows themselves, no row
 * text (it follows the listing: rowTextKeeper.ts), a restated version's name and metadata, and
 * nothing listed-looking left when the encoder fails.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SCHEMAS, type Dataset } from '../../shared/schema.js';
import { rowTextRelPath, sealedDayDir } from '../../storage/layout.js';
import { decodeMinuteCounts } from '../../storage/minuteIndex.js';
import type { SymbolDayColumns } from '../../storage/parquet/writer.js';
import { symbolDayCandidates, VERSION_KEY, writeSymbolDay } from '../../storage/symbolDayFile.js';
import { duckRows, sqlString } from '../support/duckdb.js';
import { tempDir } from '../support/tempDir.js';

const test = suite('storage/symbolDayFile');
const HOUR = 3_600_000;
const MIN = 60_000;

/** A day of `rows` rows from 09:30, one every 7 s; value j of row i is i * 10 + j (ids integral). */
function day(dataset: Dataset, symbol: string, rows: number): SymbolDayColumns {
  const width = SCHEMAS[dataset].valueFields.length;
  const timesMs = Int32Array.from({ length: rows }, (_, i) => 9 * HOUR + 30 * MIN + i * 7000);
  const values = Array.from({ length: width }, (_, j) => {
    const f = SCHEMAS[dataset].valueFields[j]!;
    return Float64Array.from({ length: rows }, (_, i) => (f.type === 'code' ? 'BS'.charCodeAt(i % 2) : i * 10 + j));
  });
  return { dataset, symbol, tradedate: '20240102', rows, timesMs, values };
}

/** Rows per minute counted from the times, independently of the index's builder. */
function perMinute(timesMs: Int32Array): Map<number, number> {
  const counts = new Map<number, number>();
  for (const t of timesMs) counts.set(Math.floor(t / MIN), (counts.get(Math.floor(t / MIN)) ?? 0) + 1);
  return counts;
}

test('a trade day: the file DuckDB reads, its catalog facts, and no row text', async () => {
  const dataDir = tempDir();
  const cols = day('trade', '000001.SZ', 1500);
  const guarded: string[] = [];
  const { file, candidates } = await writeSymbolDay(
    {
      dataDir,
      guard: (path, write) => {
        guarded.push(path.slice(dataDir.length + 1));
        return write();
      },
    },
    cols,
  );
  assert.is(file.relPath, 'trade/date=20240102/000001.SZ.parquet');
  assert.is(file.version, 1);
  assert.equal(guarded, [file.relPath], 'the one disk write passes the guard');
  const path = join(dataDir, file.relPath);
  const bytes = readFileSync(path);
  assert.is(file.bytes, bytes.length);
  assert.is(file.sha256, createHash('sha256').update(bytes).digest('hex'));
  assert.is(file.rows, 1500);
  assert.is(file.firstTimeMs, 9 * HOUR + 30 * MIN);
  assert.is(file.lastTimeMs, 9 * HOUR + 30 * MIN + 1499 * 7000);

  const counts = decodeMinuteCounts(file.minuteCounts);
  const want = perMinute(cols.timesMs);
  assert.is(file.minuteBase, 9 * 60 + 30);
  assert.is(counts.length, want.size);
  counts.forEach((n, i) => assert.is(n, want.get(file.minuteBase + i), `minute ${file.minuteBase + i}`));

  const rows = await duckRows(`SELECT trade_id, volume, bs_flag FROM read_parquet(${sqlString(path)}) ORDER BY trade_id`);
  assert.is(rows.length, 1500);
  const at = (name: string) => SCHEMAS.trade.valueFields.findIndex((f) => f.name === name);
  assert.is(Number(rows[1234]!.trade_id), 1234 * 10 + at('trade_id'));
  assert.is(Number(rows[1234]!.volume), 1234 * 10 + at('volume'));
  assert.is(rows[1234]!.bs_flag, 'B'); // row 1234 is even: 'BS'[0]
  assert.is(rows[1235]!.bs_flag, 'S');
  const kv = await duckRows(`SELECT decode(key) AS key FROM parquet_kv_metadata(${sqlString(path)})`);
  assert.not.ok(
    kv.some((r) => r.key === VERSION_KEY),
    'version 1 names no version',
  );

  assert.not.ok(existsSync(join(dataDir, rowTextRelPath(file.relPath))), 'row text is made after the listing, not here');
  assert.is(candidates, null, 'trades have no boundary candidates');
});

test('a level-2 day has the boundary candidates a part is made of; a restated version sits beside it, named in its metadata', async () => {
  const dataDir = tempDir();
  const cols = day('level2', '600000.SH', 600);
  const first = await writeSymbolDay({ dataDir }, cols);
  assert.ok(first.candidates !== null);
  assert.equal(first.candidates, symbolDayCandidates(cols), 'a new file and a written one give the same candidates');
  // One candidate per minute (the minute's last row) at least: 600 rows at 7 s span 70 minutes.
  assert.ok(first.candidates.positions.length >= perMinute(cols.timesMs).size);

  const second = await writeSymbolDay({ dataDir }, day('level2', '600000.SH', 300), 2);
  assert.is(second.file.relPath, 'level2/date=20240102/600000.SH.v2.parquet');
  assert.is(second.file.version, 2);
  const path2 = join(dataDir, second.file.relPath);
  const kv = await duckRows(`SELECT decode(key) AS key, decode(value) AS value FROM parquet_kv_metadata(${sqlString(path2)})`);
  assert.equal(
    kv.filter((r) => r.key === VERSION_KEY),
    [{ key: VERSION_KEY, value: '2' }],
  );
  const [count] = await duckRows(`SELECT count(*)::INTEGER AS n FROM read_parquet(${sqlString(path2)})`);
  assert.is(count!.n, 300);
  assert.ok(statSync(join(dataDir, first.file.relPath)).size > 0, 'version 1 stays for cursors issued on it');
});

test('an encoder that fails leaves nothing under the day, and its error as it was', async () => {
  const dataDir = tempDir();
  const cols = day('order', '600000.SH', 50);
  const failure = new Error('encoder broke');
  try {
    await writeSymbolDay({ dataDir, encode: () => Promise.reject(failure) }, cols);
    assert.unreachable('the write must fail');
  } catch (e) {
    assert.is(e, failure);
  }
  const dir = sealedDayDir(dataDir, 'order', '20240102');
  assert.equal(existsSync(dir) ? readdirSync(dir) : [], []);
});

test.run();
