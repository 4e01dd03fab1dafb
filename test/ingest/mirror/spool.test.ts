import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { forEachCsvRecord } from '../../../ingest/import/csvRecords.js';
import { pruneSpool, spoolCsv, spoolCsvText, spoolMappingPath, spoolParquet, SpoolVerifyError } from '../../../ingest/mirror/spool.js';
import { readMapping } from '../../../ingest/import/mapping.js';
import { DATASETS, SCHEMAS, type Dataset } from '../../../shared/schema.js';
import { encodeParquet } from '../../../storage/parquet/writer.js';
import { tempDir } from '../../support/tempDir.js';

const t = suite('mirror: the spool');

async function lakeFile(dataset: Dataset, symbol: string, tradedate: string, rows: number): Promise<Uint8Array> {
  const schema = SCHEMAS[dataset];
  return encodeParquet(
    {
      dataset,
      symbol,
      tradedate,
      rows,
      timesMs: Int32Array.from({ length: rows }, (_, i) => 34_200_000 + i * 3000),
      values: schema.valueFields.map((f, j) => Float64Array.from({ length: rows }, (_, i) => (f.type === 'code' ? 66 : i + j))),
    },
    { rowGroupSize: 3 },
  );
}

t('CSV cells read back by the import as the JSON values were: numbers, nulls, text with commas and quotes', () => {
  const rows = [['600000.SH', '20250102', '093000120', 10.23, null, 0.1 + 0.2, 'a,"b"', 1e21, -0]];
  const text = spoolCsvText(['symbol', 'tradedate', 'time', 'p', 'n', 'x', 's', 'big', 'z'], [rows]);
  const read: string[][] = [];
  forEachCsvRecord(
    text,
    ',',
    1,
    (cells) => read.push([...cells]),
    (lineNo, raw, reason) => assert.unreachable(`line ${lineNo} ${raw}: ${reason}`),
  );
  assert.equal(read[0], ['symbol', 'tradedate', 'time', 'p', 'n', 'x', 's', 'big', 'z']);
  assert.equal(read[1], ['600000.SH', '20250102', '093000120', '10.23', '', '0.30000000000000004', 'a,"b"', '1e+21', '0']);
  assert.is(Number(read[1]![5]), 0.1 + 0.2, 'the double comes back exactly');
});

t('each dataset has the mapping that reads its JSON-paged spool, naming every field', () => {
  for (const d of DATASETS) {
    const path = spoolMappingPath(d);
    assert.ok(existsSync(path), path);
    const mapping = readMapping(path);
    assert.is(mapping.dataset, d);
  }
});

t('a downloaded file is kept only when it is the symbol-day asked for, whole, in the lake columns', async () => {
  const dataDir = tempDir();
  const spoolRoot = join(dataDir, 'mirror-spool');
  const good = await lakeFile('level2', '600000.SH', '20250102', 7);
  const ok = await spoolParquet(dataDir, spoolRoot, 'level2', '20250102', '600000.SH', good);
  assert.equal(ok, { rows: 7, spool: 'mirror-spool/level2/date=20250102/600000.SH.parquet' });

  const refused = async (dataset: Dataset, day: string, symbol: string, bytes: Uint8Array, why: RegExp) => {
    const err = await spoolParquet(dataDir, spoolRoot, dataset, day, symbol, bytes).catch((e: unknown) => e);
    assert.instance(err, SpoolVerifyError);
    assert.match((err as Error).message, why);
  };
  await refused('level2', '20250102', '600001.SH', good, /asked for 600001\.SH 20250102 holds a row of 600000\.SH 20250102 \(row 0\)/);
  await refused('level2', '20250103', '600000.SH', good, /holds a row of 600000\.SH 20250102/);
  await refused('trade', '20250102', '600000.SH', good, /has columns symbol,tradedate,time,open.*not the lake's symbol,tradedate,time,trade_id/);
  await refused('level2', '20250102', '600000.SH', good.subarray(0, good.length - 100), /not a readable Parquet file/);
  await refused('level2', '20250102', '600000.SH', new TextEncoder().encode('{"code":200}'), /not a readable Parquet file/);
});

t('JSON pages are written whole under the symbol-day name', async () => {
  const dataDir = tempDir();
  const rel = await spoolCsv(dataDir, join(dataDir, 'mirror-spool'), 'index', '20250102', '000300', 'a\n');
  assert.is(rel, 'mirror-spool/index/date=20250102/000300.csv');
});

t('pruning removes the folders sealed days left empty, never a day still waiting', async () => {
  const dataDir = tempDir();
  const root = join(dataDir, 'mirror-spool');
  await spoolCsv(dataDir, root, 'trade', '20250102', '600000.SH', 'a\n');
  mkdirSync(join(root, 'level2'), { recursive: true });
  pruneSpool(root);
  assert.ok(existsSync(join(root, 'trade/date=20250102/600000.SH.csv')));
  assert.not.ok(existsSync(join(root, 'level2')));
  pruneSpool(join(dataDir, 'nothing-here'));
});

t.run();
