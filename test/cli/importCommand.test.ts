/**
 * `tickvault import` end to end, as a desk would run it: a sealed lake (generate + replay) is
 * exported by DuckDB (the independent writer) to Parquet in our columns and to CSV in a
 * vendor-like layout, imported into empty data directories, and compared with
 * `doctor --digests` (byte-identical files) and DuckDB reading the results back.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Database from 'better-sqlite3';
import { exited, runCli, startCli } from '../support/cli.js';
import { duckRows, sqlString } from '../support/duckdb.js';
import { preparedData, REPLAY_NOW } from '../support/server.js';
import { tempDir } from '../support/tempDir.js';

const env = { TICKVAULT_NOW: REPLAY_NOW };
const DATA = { days: 2, stocks: 3, indexes: 2, ticks: 0.1 } as const;
const DATASETS = ['level2', 'index', 'trade', 'order'] as const;

const importCli = (args: string[], dataDir: string) => runCli(['import', ...args, '--data-dir', dataDir], { env });
const digests = async (dataDir: string) => {
  const r = await runCli(['doctor', '--digests', '--data-dir', dataDir]);
  assert.is(r.code, 0, r.stderr);
  return r.stdout;
};
const fresh = (name = 'data') => join(tempDir('tickvault-import-'), name);

/** Quarantine rows of a data directory (ingest.db), oldest first. */
function quarantine(dataDir: string): { source: string; reason: string }[] {
  const db = new Database(join(dataDir, 'ingest.db'), { readonly: true });
  try {
    return db.prepare('SELECT source, reason FROM quarantine ORDER BY id').all() as { source: string; reason: string }[];
  } finally {
    db.close();
  }
}

function stagedSymbols(dataDir: string): number {
  const db = new Database(join(dataDir, 'ingest.db'), { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM open_symbols').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

const lakeGlob = (dataDir: string, dataset: string) => sqlString(join(dataDir, dataset, '*', '*.parquet'));

/** DuckDB's COPY of one dataset of a lake into one Parquet file in our columns (SNAPPY, DuckDB's default). */
async function exportParquet(dataDir: string, dataset: string, out: string, codec = 'snappy'): Promise<void> {
  await duckRows(
    `COPY (SELECT * FROM read_parquet(${lakeGlob(dataDir, dataset)}, hive_partitioning = false)) TO ${sqlString(out)} (FORMAT parquet, COMPRESSION ${codec})`,
  );
}

// ---- a vendor-like CSV layout: prices ×10000 as integers, volumes in lots, sh600000,
// HH:MM:SS.fff, the date only in the file name (one file per dataset-day) -----------------

const prefixed = `lower(split_part(symbol, '.', 2)) || split_part(symbol, '.', 1)`;
const hmsOf = (t: string) => `substr(${t}, 1, 2) || ':' || substr(${t}, 3, 2) || ':' || substr(${t}, 5, 2) || '.' || substr(${t}, 7, 3)`;
const scaled = (c: string, as = c) => `CAST(round(${c} * 10000) AS BIGINT) AS ${as}`;
const lots = (c: string, as = c) => `${c} / 100 AS ${as}`;
const levels = (p: string, n: number) => Array.from({ length: n }, (_, i) => `${p}${i + 1}`);

const VENDOR_SELECT: Record<(typeof DATASETS)[number], string> = {
  level2: [
    `${prefixed} AS Code`,
    `${hmsOf('time')} AS Clock`,
    ...['open', 'high', 'low', 'close', 'pre_close'].map((c) => scaled(c, `P_${c}`)),
    lots('volume', 'Lots'),
    'amount AS Turnover',
    ...levels('bid', 10).map((c) => scaled(c, `P_${c}`)),
    ...levels('ask', 10).map((c) => scaled(c, `P_${c}`)),
    ...levels('bid_vol', 10).map((c) => lots(c, `L_${c}`)),
    ...levels('ask_vol', 10).map((c) => lots(c, `L_${c}`)),
  ].join(', '),
  // Index symbols are bare codes; the vendor writes them as sh000300.
  index: [
    `'sh' || symbol AS Code`,
    `substr(time, 12) AS Clock`,
    ...['open', 'high', 'low', 'close'].map((c) => scaled(c, `P_${c}`)),
    lots('vol', 'Lots'),
    'amount AS Turnover',
    'transaction_num AS Deals',
    ...levels('bid', 5).map((c) => scaled(c, `P_${c}`)),
    ...levels('ask', 5).map((c) => scaled(c, `P_${c}`)),
    ...levels('bid_vol', 5).map((c) => lots(c, `L_${c}`)),
    ...levels('ask_vol', 5).map((c) => lots(c, `L_${c}`)),
  ].join(', '),
  trade: [
    `${prefixed} AS Code`,
    `${hmsOf('time')} AS Clock`,
    'trade_id AS TradeNo',
    scaled('price', 'Px'),
    lots('volume', 'Lots'),
    'amount AS Turnover',
    `CASE bs_flag WHEN 'B' THEN 1 WHEN 'S' THEN 2 WHEN 'N' THEN 0 END AS Side`,
    'trade_code AS Kind',
    'buy_order_id AS BuyNo',
    'sell_order_id AS SellNo',
  ].join(', '),
  order: [
    `${prefixed} AS Code`,
    `${hmsOf('time')} AS Clock`,
    'order_id AS OrderNo',
    scaled('price', 'Px'),
    lots('volume', 'Lots'),
    'amount AS Turnover',
    `CASE side WHEN 'B' THEN 1 ELSE 2 END AS Side`,
    'order_type AS Kind',
    'order_no AS Seq',
  ].join(', '),
};

const field = (name: string, column: string) => `field ${name} ${column}`;
const VENDOR_MAPPING: Record<(typeof DATASETS)[number], string> = {
  level2: [
    'dataset level2',
    'symbol Code form=prefixed',
    'tradedate file pattern=_(\\d{8})\\.csv',
    'time Clock form=hh:mm:ss.fff',
    'price_scale 10000',
    'volume_unit lots',
    ...['open', 'high', 'low', 'close', 'pre_close'].map((c) => field(c, `P_${c}`)),
    field('volume', 'Lots'),
    field('amount', 'Turnover'),
    ...[...levels('bid', 10), ...levels('ask', 10)].map((c) => field(c, `P_${c}`)),
    ...[...levels('bid_vol', 10), ...levels('ask_vol', 10)].map((c) => field(c, `L_${c}`)),
  ].join('\n'),
  index: [
    'dataset index',
    'symbol Code form=prefixed',
    'tradedate file pattern=_(\\d{8})\\.csv',
    'time Clock form=hh:mm:ss.fff',
    'price_scale 10000',
    'volume_unit lots',
    ...['open', 'high', 'low', 'close'].map((c) => field(c, `P_${c}`)),
    field('vol', 'Lots'),
    field('amount', 'Turnover'),
    field('transaction_num', 'Deals'),
    ...[...levels('bid', 5), ...levels('ask', 5)].map((c) => field(c, `P_${c}`)),
    ...[...levels('bid_vol', 5), ...levels('ask_vol', 5)].map((c) => field(c, `L_${c}`)),
  ].join('\n'),
  trade: [
    'dataset trade',
    'symbol Code form=prefixed',
    'tradedate file pattern=_(\\d{8})\\.csv',
    'time Clock form=hh:mm:ss.fff',
    'price_scale 10000',
    'volume_unit lots',
    field('trade_id', 'TradeNo'),
    field('price', 'Px'),
    field('volume', 'Lots'),
    field('amount', 'Turnover'),
    'code bs_flag Side 1=B 2=S 0=N',
    'code trade_code Kind',
    field('buy_order_id', 'BuyNo'),
    field('sell_order_id', 'SellNo'),
  ].join('\n'),
  order: [
    'dataset order',
    'symbol Code form=prefixed',
    'tradedate file pattern=_(\\d{8})\\.csv',
    'time Clock form=hh:mm:ss.fff',
    'price_scale 10000',
    'volume_unit lots',
    field('order_id', 'OrderNo'),
    field('price', 'Px'),
    field('volume', 'Lots'),
    field('amount', 'Turnover'),
    'code side Side 1=B 2=S',
    'code order_type Kind',
    field('order_no', 'Seq'),
  ].join('\n'),
};

/** Writes the vendor-like CSV files of a lake (one per dataset-day; level2 gzipped, trade zstd) and the four mappings. */
async function exportVendorCsv(dataDir: string, out: string): Promise<{ folder: (d: string) => string; mapping: (d: string) => string }> {
  for (const dataset of DATASETS) {
    mkdirSync(join(out, dataset), { recursive: true });
    writeFileSync(join(out, `${dataset}.map`), `# vendor-like ${dataset} (test)\n${VENDOR_MAPPING[dataset]}\n`);
    const days = await duckRows(`SELECT DISTINCT tradedate FROM read_parquet(${lakeGlob(dataDir, dataset)}, hive_partitioning = false) ORDER BY 1`);
    for (const { tradedate } of days) {
      const ext = dataset === 'level2' ? '.csv.gz' : dataset === 'trade' ? '.csv.zst' : '.csv';
      const compression = dataset === 'level2' ? ', COMPRESSION gzip' : dataset === 'trade' ? ', COMPRESSION zstd' : '';
      const file = join(out, dataset, `${dataset}_${String(tradedate)}${ext}`);
      await duckRows(
        `COPY (SELECT ${VENDOR_SELECT[dataset]} FROM read_parquet(${lakeGlob(dataDir, dataset)}, hive_partitioning = false) WHERE tradedate = ${sqlString(String(tradedate))} ORDER BY symbol, time) ` +
          `TO ${sqlString(file)} (HEADER${compression})`,
      );
    }
  }
  return { folder: (d) => join(out, d), mapping: (d) => join(out, `${d}.map`) };
}

const roundTrip = suite('tickvault import: round trips through DuckDB give byte-identical files');

roundTrip(
  "Parquet in our columns: the lake's own folders (hive date=), and DuckDB COPY files: doctor --digests equal, DuckDB reads the same rows",
  async () => {
    const { dataDir } = await preparedData(DATA);
    const want = await digests(dataDir);

    const fromFolders = fresh();
    const r = await importCli(
      DATASETS.map((d) => join(dataDir, d)),
      fromFolders,
    );
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /^read \d+ files: ([\d,]+) rows, \1 staged, 0 already there, 0 quarantined; sealed 8 dataset-days/m);
    assert.is(await digests(fromFolders), want);

    // Other writers' codecs: the general reader's SNAPPY, and GZIP, BROTLI and ZSTD through ours.
    const exported = tempDir('tickvault-import-parquet-');
    const codecs = { level2: 'snappy', index: 'gzip', trade: 'brotli', order: 'zstd' } as const;
    for (const d of DATASETS) await exportParquet(dataDir, d, join(exported, `${d}.parquet`), codecs[d]);
    const fromCopies = fresh();
    const c = await importCli([exported], fromCopies);
    assert.is(c.code, 0, c.stderr);
    assert.is(await digests(fromCopies), want);
    for (const d of DATASETS) {
      const [a] = await duckRows(`SELECT count(*) AS n, sum(hash(COLUMNS(*))) AS h FROM read_parquet(${lakeGlob(dataDir, d)}, hive_partitioning = false)`);
      const [b] = await duckRows(`SELECT count(*) AS n, sum(hash(COLUMNS(*))) AS h FROM read_parquet(${lakeGlob(fromCopies, d)}, hive_partitioning = false)`);
      assert.equal(b, a, d);
    }
  },
);

roundTrip(
  'CSV in a vendor layout (×10000 prices, lots, sh600000, HH:MM:SS.fff, date in the file name; .csv, .csv.gz, .csv.zst) through mappings: byte-identical',
  async () => {
    const { dataDir } = await preparedData(DATA);
    const vendor = await exportVendorCsv(dataDir, tempDir('tickvault-import-csv-'));
    const target = fresh();
    for (const d of DATASETS) {
      const r = await importCli([vendor.folder(d), '--mapping', vendor.mapping(d)], target);
      assert.is(r.code, 0, `${d}: ${r.stderr}`);
      assert.match(r.stdout, /, 0 quarantined;/, d);
    }
    assert.is(await digests(target), await digests(dataDir));
  },
);

roundTrip('Parquet of another layout through a mapping (TIMESTAMP times, INT32 prices ×10000, sh600000, lots): byte-identical', async () => {
  const { dataDir } = await preparedData(DATA);
  const dir = tempDir('tickvault-import-foreign-');
  const out = join(dir, 'trades.parquet');
  // The time as a TIMESTAMP of Beijing wall time, the date only inside it.
  await duckRows(
    `COPY (SELECT ${prefixed} AS code, strptime(tradedate || ' ' || time, '%Y%m%d %H%M%S%g') AS ts, trade_id AS no, CAST(round(price * 10000) AS INTEGER) AS px, ` +
      `volume / 100 AS lots, amount, CASE bs_flag WHEN 'B' THEN 1 WHEN 'S' THEN 2 WHEN 'N' THEN 0 END AS side, trade_code AS kind, buy_order_id AS b, sell_order_id AS s ` +
      `FROM read_parquet(${lakeGlob(dataDir, 'trade')}, hive_partitioning = false)) TO ${sqlString(out)} (FORMAT parquet)`,
  );
  const map = writeMap(
    dir,
    'trades.map',
    [
      'dataset trade',
      'symbol code form=prefixed',
      'tradedate time',
      'time ts form=datetime',
      'price_scale 10000',
      'volume_unit lots',
      'field trade_id no',
      'field price px',
      'field volume lots',
      'field amount amount',
      'code bs_flag side 1=B 2=S 0=N',
      'code trade_code kind',
      'field buy_order_id b',
      'field sell_order_id s',
    ].join('\n'),
  );
  const target = fresh();
  const r = await importCli([out, '--mapping', map], target);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /, 0 quarantined;/);
  const want = (await digests(dataDir)).split('\n').filter((l) => l.includes(' trade/'));
  const got = (await digests(target)).split('\n').filter((l) => l.includes(' trade/'));
  assert.ok(want.length > 0);
  assert.equal(got, want);
});

roundTrip('days are sealed as the import goes: each once no later file can hold it (by its date= folder), not all at the end', async () => {
  const { dataDir } = await preparedData(DATA);
  const target = fresh();
  const r = await runCli(['import', join(dataDir, 'level2'), '--data-dir', target], { env: { ...env, TICKVAULT_LOG_LEVEL: 'debug' } });
  assert.is(r.code, 0, r.stderr);
  const events = r.stderr
    .split('\n')
    .filter((l) => l.includes('"file imported"') || l.includes('"day sealed"'))
    .map((l) => JSON.parse(l) as { msg: string; file?: string; tradedate?: string })
    .map((e) => (e.msg === 'day sealed' ? `sealed ${e.tradedate}` : /date=(\d{8})/.exec(e.file!)![1]));
  assert.equal(events, ['20250102', '20250102', '20250102', 'sealed 20250102', '20250103', '20250103', '20250103', 'sealed 20250103']);
  // The bar (forced on: stderr is not a terminal here) shows rows and rows/s.
  const bar = await runCli(['import', join(dataDir, 'index'), '--data-dir', fresh(), '--progress', 'on'], { env });
  assert.is(bar.code, 0, bar.stderr);
  assert.match(bar.stderr, /import\s+\[.*\] 100% \| [\d,]+\/[\d,]+ bytes \| [\d,]+ rows, [\d,]+ rows\/s \|/);
});

const again = suite('tickvault import: the same files again change nothing');

again('a second import of the same files exits 0, says nothing new, quarantines nothing twice, files unchanged', async () => {
  const { dataDir } = await preparedData(DATA);
  const input = tempDir('tickvault-import-again-');
  await exportParquet(dataDir, 'level2', join(input, 'level2.parquet'));
  // One bad row (a negative time cannot be written as HHMMSSmmm) to see the quarantine stay single.
  await duckRows(
    `COPY (SELECT * REPLACE ('99x' AS time) FROM read_parquet(${lakeGlob(dataDir, 'trade')}, hive_partitioning = false) ORDER BY symbol, time LIMIT 1) TO ${sqlString(join(input, 'bad-trade.parquet'))}`,
  );
  const target = fresh();
  const first = await importCli([input], target);
  assert.is(first.code, 1, first.stderr);
  assert.match(
    first.stderr,
    /^tickvault import: 1 row quarantined, not imported; list them with: tickvault quarantine --source \S*bad-trade\.parquet --data-dir \S+ \(counts by reason: --count\)$/m,
  );
  const files = await digests(target);
  const q1 = quarantine(target);
  assert.equal(
    q1.map((q) => q.source),
    [`${join(input, 'bad-trade.parquet')}#0`],
  );
  assert.is(q1[0].reason, 'time is not HHMMSSmmm');

  // Exit 1 again: a row of these files is still not in the lake.
  const second = await importCli([input], target);
  assert.is(second.code, 1, second.stderr);
  assert.match(second.stdout, /: ([\d,]+) rows, 0 staged, ([\d,]+) already there, 1 quarantined .*sealed 0 dataset-days.* — nothing new$/m);
  assert.is(await digests(target), files);
  assert.equal(quarantine(target), q1);
});

const refuse = suite('tickvault import: refusals');

refuse('a file with a different row for a sealed day is refused whole: exit 2 naming the day and restate; its other days are not staged', async () => {
  const { dataDir } = await preparedData(DATA);
  const target = fresh();
  const first = await importCli([join(dataDir, 'level2', 'date=20250102')], target);
  assert.is(first.code, 0, first.stderr);
  const before = await digests(target);
  // Day 2 (not sealed in the target) in full, then day 1 with one bid changed.
  const changed = join(tempDir('tickvault-import-changed-'), 'both-days.parquet');
  await duckRows(
    `COPY (SELECT * REPLACE (CASE WHEN tradedate = '20250102' AND symbol = '600000.SH' AND time = (SELECT max(time) FROM read_parquet(${lakeGlob(dataDir, 'level2')}, hive_partitioning = false) WHERE tradedate = '20250102' AND symbol = '600000.SH') THEN bid1 + 0.01 ELSE bid1 END AS bid1) ` +
      `FROM read_parquet(${lakeGlob(dataDir, 'level2')}, hive_partitioning = false) ORDER BY tradedate DESC, symbol, time) TO ${sqlString(changed)}`,
  );
  const r = await importCli([changed], target);
  assert.is(r.code, 2, r.stderr);
  assert.match(
    r.stderr,
    /both-days\.parquet refused, nothing of it staged: level2 20250102 600000\.SH \d{9}: bid1 is [\d.]+, sealed [\d.]+; a sealed day changes only through `tickvault restate`/,
  );
  assert.is(r.stderr.trimEnd().split('\n').length, 1, 'one line');
  assert.is(await digests(target), before, 'nothing sealed');
  assert.is(stagedSymbols(target), 0, 'nothing staged');
  assert.not.ok(existsSync(join(target, 'level2', 'date=20250103')));
});

refuse("bad arguments exit 2 before anything is staged: a CSV without a mapping, an unknown field, a missing column, a file in nobody's columns", async () => {
  const dir = tempDir('tickvault-import-bad-');
  const csv = join(dir, 'snap_20250102.csv');
  writeFileSync(csv, 'Code,Clock,Px\nsh600000,09:30:00.000,102300\n');
  const cases: [string[], RegExp][] = [
    [[csv], /^tickvault import: .*snap_20250102\.csv: a CSV file needs --mapping MAP/],
    [
      [csv, '--mapping', writeMap(dir, 'a.map', 'dataset level2\nsymbol Code form=prefixed\ntradedate file\ntime Clock form=hh:mm:ss.fff\nfield bidd1 Px\n')],
      /^tickvault import: mapping .*a\.map:5: .*bidd1/,
    ],
    [
      [
        csv,
        '--mapping',
        writeMap(dir, 'b.map', 'dataset level2\nsymbol Code form=prefixed\ntradedate file\ntime Clock form=hh:mm:ss.fff\nfield close Px\nfield open OpenPx\n'),
      ],
      /^tickvault import: mapping .*b\.map:6: column OpenPx \(field open\) is not in .*snap_20250102\.csv/,
    ],
    [[join(dir, 'missing.parquet')], /^tickvault import: .*missing\.parquet: no such file or folder/],
    [[join(dir, 'notes.txt')], /^tickvault import: .*notes\.txt: no such file or folder|not a CSV/],
  ];
  writeFileSync(join(dir, 'notes.txt'), 'hello');
  const other = join(dir, 'other.parquet');
  await duckRows(`COPY (SELECT 1 AS a, 'x' AS b) TO ${sqlString(other)}`);
  cases.push([[other], /^tickvault import: .*other\.parquet: not in the lake's columns of any dataset .*--mapping MAP/]);
  for (const [args, re] of cases) {
    const target = fresh();
    const r = await importCli(args, target);
    assert.is(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, re);
    assert.is(r.stderr.trimEnd().split('\n').length, 1, `one line: ${r.stderr}`);
    assert.not.ok(existsSync(target), 'nothing created');
  }
});

refuse('a file that cannot be read (a damaged page, a truncated gzip) is refused with one line naming it; the other files go in', async () => {
  const { dataDir } = await preparedData(DATA);
  const dir = tempDir('tickvault-import-damaged-');
  const good = join(dir, 'good.parquet');
  const damaged = join(dir, 'damaged.parquet');
  await exportParquet(dataDir, 'index', good, 'zstd');
  await exportParquet(dataDir, 'level2', damaged, 'zstd');
  // Zero the first half of the data pages (a bad run of sectors); the footer stays readable.
  const bytes = readFileSync(damaged);
  bytes.fill(0, 4, bytes.length >> 1);
  writeFileSync(damaged, bytes);
  const csvDir = join(dir, 'csv');
  mkdirSync(csvDir);
  const whole = gzipSync(Buffer.from('Code,Clock,No,Px,Lots,Side\n' + 'sh600000,09:30:00.000,1,102300,3,1\n'.repeat(50_000)));
  writeFileSync(join(csvDir, 'trades_20250102.csv.gz'), whole.subarray(0, whole.length >> 1));
  const map = writeMap(
    dir,
    't.map',
    [
      'dataset trade',
      'symbol Code form=prefixed',
      'tradedate file pattern=_(\\d{8})\\.csv',
      'time Clock form=hh:mm:ss.fff',
      'price_scale 10000',
      'volume_unit lots',
      'field trade_id No',
      'field price Px',
      'field volume Lots',
      'code bs_flag Side 1=B 2=S 0=N',
    ].join('\n'),
  );
  const target = fresh();
  const r = await importCli([damaged, good], target);
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /^tickvault import: .*damaged\.parquet refused, nothing of it staged: cannot be read: .+$/m, r.stderr);
  assert.is(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
  const indexLines = (await digests(dataDir)).split('\n').filter((l) => l.includes(' index/'));
  assert.equal(
    (await digests(target)).split('\n').filter((l) => l.includes(' index/')),
    indexLines,
  );
  assert.not.ok(existsSync(join(target, 'level2')), 'nothing of the damaged file');
  const c = await importCli([csvDir, '--mapping', map], fresh());
  assert.is(c.code, 2, c.stderr);
  assert.match(c.stderr, /^tickvault import: .*trades_20250102\.csv\.gz refused, nothing of it staged: cannot be read: unexpected end of file$/m);
});

function writeMap(dir: string, name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

refuse('bad rows are quarantined with file:line and the reason, the rest imported; rows of a non-trading day are not importable', async () => {
  const dir = tempDir('tickvault-import-rows-');
  const map = writeMap(
    dir,
    't.map',
    [
      'dataset trade',
      'symbol Code form=prefixed',
      'tradedate file pattern=_(\\d{8})\\.csv',
      'time Clock form=hh:mm:ss.fff',
      'price_scale 10000',
      'volume_unit lots',
      'field trade_id No',
      'field price Px',
      'field volume Lots',
      'code bs_flag Side 1=B 2=S 0=N',
    ].join('\n'),
  );
  writeFileSync(
    join(dir, 'trades_20250102.csv'),
    [
      'Code,Clock,No,Px,Lots,Side',
      'sh600000,09:30:00.000,1,102300,3,1', // 10.23 × 300 shares, B
      'sh600000,09:30:00.500,2,102300.5,1,2', // off the ×10000 grid
      'sh600000,09:30:01.000,3,102400,1.005,2', // 100.5 shares
      'sh600000,09:30:02.000,4,abc,1,2',
      '"sh600000","09:30:03.000",5,"102500",2,0', // quoted cells are fine
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'trades_20250104.csv'), 'Code,Clock,No,Px,Lots,Side\nsh600000,09:30:00.000,1,102300,3,1\n'); // a Saturday
  const target = fresh();
  const r = await importCli([dir, '--mapping', map], target);
  assert.is(r.code, 1, r.stderr);
  assert.match(r.stdout, /read 2 files: 6 rows, 2 staged, 0 already there, 4 quarantined/);
  assert.ok(
    r.stderr.includes(`tickvault import: 4 rows quarantined in 2 files, not imported; list them with: tickvault quarantine --source '${dir}/*' --data-dir `),
    r.stderr,
  );
  const q = quarantine(target);
  const f = join(dir, 'trades_20250102.csv');
  assert.equal(
    q.map((x) => x.source),
    [`${f}:3`, `${f}:4`, `${f}:5`, `${join(dir, 'trades_20250104.csv')}:2`],
  );
  assert.match(q[0].reason, /off the ×10000 grid/);
  assert.match(q[1].reason, /not a whole number of shares/);
  assert.match(q[2].reason, /price/);
  assert.match(q[3].reason, /20250104 is not a trading day/);
  const rows = await duckRows(
    `SELECT trade_id, price, volume, bs_flag FROM ${sqlString(join(target, 'trade', 'date=20250102', '600000.SH.parquet'))} ORDER BY trade_id`,
  );
  assert.equal(rows, [
    { trade_id: 1n, price: 10.23, volume: 300, bs_flag: 'B' },
    { trade_id: 5n, price: 10.25, volume: 200, bs_flag: 'N' },
  ]);
});

const kill = suite('tickvault import: SIGKILL at any point, then the same command, gives the uninterrupted files');

/** Starts the import and SIGKILLs it once `ready()` holds (polled: a condition, not a fixed sleep). */
async function killWhen(args: string[], dataDir: string, ready: () => boolean): Promise<void> {
  const child = startCli(['import', ...args, '--data-dir', dataDir], { env });
  const poll = setInterval(() => {
    try {
      if (ready()) child.kill('SIGKILL');
    } catch {
      // the directory is still being made
    }
  }, 2);
  const end = await exited(child);
  clearInterval(poll);
  assert.is(end.signal, 'SIGKILL', `the import finished (exit ${end.code}) before the kill point`);
}

const parquetCount = (dir: string) => (existsSync(dir) ? readdirSync(dir, { recursive: true }).filter((f) => String(f).endsWith('.parquet')).length : 0);

kill('killed while staging, after the first sealed file, and halfway through the seal', async () => {
  const { dataDir } = await preparedData({ days: 3, stocks: 8, indexes: 2, ticks: 0.3 });
  const want = await digests(dataDir);
  const total = parquetCount(dataDir);
  const inputs = DATASETS.map((d) => join(dataDir, d));
  const points: [string, (target: string) => boolean][] = [
    ['while staging', (t) => existsSync(join(t, 'staging'))],
    ['after the first sealed file', (t) => parquetCount(t) >= 1],
    ['halfway through the seal', (t) => parquetCount(t) >= total / 2],
  ];
  for (const [name, ready] of points) {
    const target = fresh();
    await killWhen(inputs, target, () => ready(target));
    const r = await importCli(inputs, target);
    assert.is(r.code, 0, `${name}: ${r.stderr}`);
    assert.is(await digests(target), want, name);
  }
});

roundTrip.run();
again.run();
refuse.run();
kill.run();
