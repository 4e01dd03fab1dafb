import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { listImportFiles, readCsvHeader } from '../../../ingest/import/importPlan.js';
import { hiveFolderOf } from '../../../ingest/import/hiveFolder.js';

const hiveDateOf = (path: string) => hiveFolderOf(path)?.date ?? null;
import { lakeColumnsMapper, lakeDatasetOf, missingLakeColumns } from '../../../ingest/import/lakeColumns.js';
import { SCHEMAS } from '../../../shared/schema.js';
import { tempDir } from '../../support/tempDir.js';

const t = suite('import planning');

t('folders are walked recursively in name order; only CSV and Parquet files are taken from them', () => {
  const dir = tempDir();
  for (const p of ['b/date=20250103/x.parquet', 'b/date=20250102/y.parquet', 'a.csv.zst', 'c/notes.txt', 'c/.hidden.csv', 'd.CSV', 'e.csv.gz']) {
    mkdirSync(join(dir, p, '..'), { recursive: true });
    writeFileSync(join(dir, p), '');
  }
  assert.equal(
    listImportFiles([dir]).map((p) => p.slice(dir.length + 1)),
    ['a.csv.zst', 'b/date=20250102/y.parquet', 'b/date=20250103/x.parquet', 'd.CSV', 'e.csv.gz'],
  );
  assert.throws(() => listImportFiles([join(dir, 'c', 'notes.txt')]), /notes\.txt: not a CSV \(\.csv, \.csv\.gz, \.csv\.zst\) or Parquet/);
  assert.throws(() => listImportFiles([join(dir, 'nope')]), /nope: no such file or folder/);
});

t('hive folders: date= and tradedate=, the date only when a folder is named so', () => {
  assert.is(hiveDateOf('/x/level2/date=20250102/600000.SH.parquet'), '20250102');
  assert.is(hiveDateOf('out/tradedate=20250103/part-0.parquet'), '20250103');
  assert.is(hiveDateOf('/x/level2/20250102.parquet'), null);
  assert.is(hiveDateOf('/x/date=20250102.parquet'), null);
});

t('a CSV header: BOM and blanks trimmed, quoted names, other delimiters; an empty file is refused', async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'a.csv'), '\uFEFFCode; "Px;1" ;Clock\r\nsh600000;1;2\n');
  assert.equal(await readCsvHeader(join(dir, 'a.csv'), ';'), ['Code', 'Px;1', 'Clock']);
  writeFileSync(join(dir, 'e.csv'), '');
  try {
    await readCsvHeader(join(dir, 'e.csv'), ',');
    assert.unreachable();
  } catch (e) {
    assert.match((e as Error).message, /e\.csv: empty: a CSV file needs a header row/);
  }
  // A header whose quote does not close on its line: the file is refused before any row is read.
  writeFileSync(join(dir, 'q.csv'), 'Code,"Px,Clock\nsh600000,1",2\n');
  try {
    await readCsvHeader(join(dir, 'q.csv'), ',');
    assert.unreachable();
  } catch (e) {
    assert.is((e as Error).name, 'ImportInputError');
    assert.match((e as Error).message, /q\.csv:1: the header is malformed: unterminated quote: a quoted field runs past the end of its line$/);
  }
});

t('lake columns: the dataset whose fields are all there (extra columns ignored), what is missing otherwise', () => {
  const level2 = [...SCHEMAS.level2.fieldNames];
  assert.is(lakeDatasetOf([...level2].reverse()), 'level2');
  assert.is(lakeDatasetOf([...SCHEMAS.trade.fieldNames, 'date']), 'trade');
  assert.is(lakeDatasetOf(level2.filter((c) => c !== 'bid7')), null);
  assert.equal(missingLakeColumns('order', ['symbol', 'tradedate', 'time', 'order_id']), ['price', 'volume', 'amount', 'side', 'order_type', 'order_no']);
});

t('lake columns mapper: cells as they are (bigint ids as numbers), the folder date for files without the column, rows of another date rejected', () => {
  const cols = SCHEMAS.trade.fieldNames.filter((c) => c !== 'tradedate');
  const m = lakeColumnsMapper('trade', cols, '20250102');
  const cells = ['600000.SH', '093000120', 7n, 10.23, 300, 3069, 'B', 'F', null, 12n];
  assert.equal(m.map(cells), { symbol: '600000.SH', tradedate: '20250102', time: '093000120', values: [7, 10.23, 300, 3069, 'B', 'F', null, 12] });
  const withDate = lakeColumnsMapper('trade', SCHEMAS.trade.fieldNames, '20250102');
  assert.is(
    withDate.map(['600000.SH', '20250103', '093000120', 7, 10.23, 300, 3069, 'B', 'F', null, 12]),
    'tradedate 20250103 is not the date of its folder date=20250102',
  );
});

t.run();
