/**
 * Import figures (issue: tickvault import): `tickvault import` end to end against `tickvault
 * replay` of the feed that produced the same rows. One generated day is replayed into A (the
 * reference); A's sealed level2 files are then imported into fresh directories: as they are
 * (Parquet in our columns), as one DuckDB `COPY … TO` Parquet file of the whole day, and as a
 * vendor's CSV written by DuckDB from them through the vendor mapping of
 * docs/import-mappings.md (read from the docs, so it is exactly their example). Each import is
 * its own `tickvault import` process on the replay's clock; its figures come from its
 * `"import finished"` log line, and `tickvault doctor --digests` of each result is compared
 * with A's.
 */
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { duckRows, sqlString } from '../test/support/duckdb.js';
import { generateAndReplay, replayDataDir, runCli } from './storage.bench.js';

const DOCS = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..', 'docs', 'import-mappings.md');
const GiB = 2 ** 30;

export interface ImportBenchOptions {
  /** Stocks of the generated day (a whole market is about 5,000). */
  stocks?: number;
  log?: (line: string) => void;
}

export interface ImportFigures {
  readonly files: number;
  readonly rows: number;
  readonly staged: number;
  readonly alreadyThere: number;
  readonly quarantined: number;
  readonly refused: number;
  readonly daysSealed: number;
  readonly filesWritten: number;
  readonly rowsSealed: number;
  readonly stagingMs: number;
  readonly sealingMs: number;
  readonly peakRssBytes: number;
  /** Wall time of the `tickvault import` process, seal included. */
  readonly wallMs: number;
  /** The command's stdout summary line. */
  readonly summary: string;
}

export interface ImportCase {
  readonly name: string;
  readonly figures: ImportFigures;
  readonly rowsPerSec: number;
  /** rowsPerSec ÷ replay's rows/s on the same rows. */
  readonly ratio: number;
  readonly identical: boolean;
  /** When not identical: the files that differ from A's, the first named, and the rows that differ. */
  readonly difference: string | null;
}

export interface ImportBenchResult {
  readonly stocks: number;
  readonly replayRows: number;
  readonly replayRowsPerSec: number;
  readonly cases: readonly ImportCase[];
}

/** `tickvault import ARGS --data-dir DIR` in its own process, with its `"import finished"` figures. */
export async function importInto(args: readonly string[], dataDir: string): Promise<ImportFigures> {
  const r = await runCli(['import', ...args, '--data-dir', dataDir, '--log-level', 'debug']);
  if (r.code !== 0) throw new Error(`tickvault import exited ${r.code}: ${r.stdout.trim()} ${r.stderr.slice(-800)}`);
  const line = r.stderr.split('\n').find((l) => l.includes('"import finished"'));
  if (!line) throw new Error(`import printed no "import finished" line: ${r.stderr.slice(-500)}`);
  const s = JSON.parse(line) as Omit<ImportFigures, 'wallMs' | 'summary'>;
  return {
    files: s.files,
    rows: s.rows,
    staged: s.staged,
    alreadyThere: s.alreadyThere,
    quarantined: s.quarantined,
    refused: s.refused,
    daysSealed: s.daysSealed,
    filesWritten: s.filesWritten,
    rowsSealed: s.rowsSealed,
    stagingMs: s.stagingMs,
    sealingMs: s.sealingMs,
    peakRssBytes: s.peakRssBytes,
    wallMs: r.wallMs,
    summary: r.stdout.trim(),
  };
}

interface DigestList {
  readonly files: readonly { path: string; sha256: string }[];
  readonly listDigest: string;
}

async function digests(dataDir: string): Promise<DigestList> {
  const r = await runCli(['doctor', '--data-dir', dataDir, '--digests', '--json']);
  if (r.code !== 0) throw new Error(`tickvault doctor --digests ${dataDir} exited ${r.code}: ${r.stderr.slice(-800)}`);
  return JSON.parse(r.stdout) as DigestList;
}

interface Comparison {
  readonly identical: boolean;
  /** The sealed files (paths in the data directory) whose digests differ or that only one side has. */
  readonly differing: readonly string[];
  readonly onlyOneSide: number;
}

/** Whether B's sealed files are A's byte for byte; if not, which files differ. */
async function compareDigests(a: string, b: string): Promise<Comparison> {
  const [da, db] = await Promise.all([digests(a), digests(b)]);
  if (da.listDigest === db.listDigest) return { identical: true, differing: [], onlyOneSide: 0 };
  const ma = new Map(da.files.map((f) => [f.path, f.sha256]));
  const mb = new Map(db.files.map((f) => [f.path, f.sha256]));
  const paths = [...new Set([...ma.keys(), ...mb.keys()])].sort();
  const differing = paths.filter((p) => ma.get(p) !== mb.get(p));
  return { identical: false, differing, onlyOneSide: differing.filter((p) => !ma.has(p) || !mb.has(p)).length };
}

const BOOK = (side: string) => Array.from({ length: 10 }, (_, i) => `${side}${i + 1}`);
const LEVEL2_BOOK = ['bid', 'ask', 'bid_vol', 'ask_vol'].flatMap(BOOK);

/**
 * What differs in the level2 files that both A and B have, told by DuckDB: how many rows of
 * A's are not in B's (and the reverse), and whether every difference is a book level stored
 * as 0 in A that came back null — what a layout with 0 for an empty level (`zero_null`) cannot
 * carry.
 */
async function explainDifference(a: string, b: string, cmp: Comparison): Promise<string> {
  const head =
    `${cmp.differing.length} file${cmp.differing.length === 1 ? '' : 's'} differ, first ${cmp.differing[0]}` +
    (cmp.onlyOneSide > 0 ? `, ${cmp.onlyOneSide} on one side only` : '');
  const files = cmp.differing.filter((p) => p.startsWith('level2/'));
  if (files.length === 0 || cmp.onlyOneSide > 0) return head;
  const list = (dir: string) => `read_parquet([${files.map((p) => sqlString(join(dir, p))).join(', ')}], hive_partitioning = false)`;
  const nulledZeros = `SELECT * REPLACE (${LEVEL2_BOOK.map((c) => `nullif(${c}, 0) AS ${c}`).join(', ')}) FROM ${list(a)}`;
  const count = async (sql: string) => Number(((await duckRows(`SELECT count(*) AS n FROM (${sql})`)) as [{ n: bigint }])[0].n);
  const aOnly = await count(`SELECT * FROM ${list(a)} EXCEPT ALL SELECT * FROM ${list(b)}`);
  const bOnly = await count(`SELECT * FROM ${list(b)} EXCEPT ALL SELECT * FROM ${list(a)}`);
  const unexplained = (await count(`${nulledZeros} EXCEPT ALL SELECT * FROM ${list(b)}`)) + (await count(`SELECT * FROM ${list(b)} EXCEPT ALL ${nulledZeros}`));
  const why =
    unexplained === 0
      ? "every one a book level stored as 0 that the layout's 0-for-empty (zero_null) reads as null"
      : `${fmt(unexplained)} rows differ beyond 0-as-empty book levels`;
  return `${head}; ${fmt(aOnly)} rows of the replay's not in the import, ${fmt(bOnly)} the reverse: ${why}`;
}

/** The "vendor's Level-2 snapshots" mapping, exactly as docs/import-mappings.md gives it. */
export async function vendorMapping(): Promise<string> {
  const docs = await readFile(DOCS, 'utf8');
  const section = docs.indexOf("## Example: a vendor's Level-2 snapshots");
  if (section < 0) throw new Error(`${DOCS} has no vendor example`);
  const m = /```map\n([\s\S]*?)```/.exec(docs.slice(section));
  if (!m) throw new Error(`${DOCS}: the vendor example has no map block`);
  return m[1]!;
}

const scaled = (col: string) => `CAST(round(${col} * 10000) AS BIGINT)`;

/**
 * The vendor's layout from our level2 columns: `sh600000`, `09:30:03.120` (built from the
 * stored `HHMMSSmmm` text), prices ×10000 as integers, volumes in lots, turnover in yuan, 0 for
 * an empty book level; ordered by time then symbol, as a day's snapshot file is written.
 */
export function vendorSelect(source: string): string {
  const cols = [
    `lower(split_part(symbol, '.', 2)) || split_part(symbol, '.', 1) AS Symbol`,
    `substr(time, 1, 2) || ':' || substr(time, 3, 2) || ':' || substr(time, 5, 2) || '.' || substr(time, 7, 3) AS UpdateTime`,
    `${scaled('open')} AS OpenPrice`,
    `${scaled('high')} AS HighPrice`,
    `${scaled('low')} AS LowPrice`,
    `${scaled('close')} AS LastPrice`,
    `${scaled('pre_close')} AS PreClosePrice`,
    `volume / 100 AS Volume`,
    `amount AS Turnover`,
    ...BOOK('bid').map((c, i) => `coalesce(${scaled(c)}, 0) AS BidPrice${i + 1}`),
    ...BOOK('ask').map((c, i) => `coalesce(${scaled(c)}, 0) AS AskPrice${i + 1}`),
    ...BOOK('bid_vol').map((c, i) => `coalesce(${c} / 100, 0) AS BidVolume${i + 1}`),
    ...BOOK('ask_vol').map((c, i) => `coalesce(${c} / 100, 0) AS AskVolume${i + 1}`),
  ];
  return `SELECT ${cols.join(', ')} FROM ${source} ORDER BY time, symbol`;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const mib = (b: number) => (b / 1048576).toFixed(0);
const secs = (ms: number) => (ms / 1000).toFixed(1);

export async function runImportBench(opts: ImportBenchOptions = {}): Promise<ImportBenchResult> {
  const stocks = opts.stocks ?? 500;
  const log = opts.log ?? ((l: string) => console.log(l));
  const dir = await mkdtemp(join(tmpdir(), 'tickvault-import-bench-'));
  try {
    const replay = await generateAndReplay(dir, stocks);
    const a = replayDataDir(dir, stocks);
    const replayRowsPerSec = (replay.rows * 1000) / replay.wallMs;
    log(
      `replay (reference): ${fmt(replay.rows)} rows, ${stocks} stocks x 1 day, wall ${secs(replay.wallMs)} s = ${fmt(replayRowsPerSec)} rows/s ` +
        `(staging ${secs(replay.stagingMs)} s, sealing ${secs(replay.sealingMs)} s; peak RSS ${mib(replay.peakRssBytes)} MiB)`,
    );
    const source = `read_parquet(${sqlString(join(a, 'level2', '**', '*.parquet'))}, hive_partitioning = false)`;
    const [{ tradedate }] = (await duckRows(`SELECT min(tradedate) AS tradedate FROM ${source}`)) as [{ tradedate: string }];

    const cases: ImportCase[] = [];
    const measure = async (name: string, target: number, args: readonly string[], into: string): Promise<void> => {
      const f = await importInto(args, into);
      const rowsPerSec = (f.rowsSealed * 1000) / f.wallMs;
      const ratio = rowsPerSec / replayRowsPerSec;
      const cmp = await compareDigests(a, into);
      const difference = cmp.identical ? null : await explainDifference(a, into, cmp);
      cases.push({ name, figures: f, rowsPerSec, ratio, identical: cmp.identical, difference });
      const same = f.rowsSealed === replay.rows ? '' : ` [rows differ from replay's ${fmt(replay.rows)}]`;
      const dropped = f.quarantined + f.refused === 0 ? '' : `; ${fmt(f.quarantined)} quarantined, ${f.refused} files refused (${f.summary})`;
      log(
        `import ${name}: ${fmt(f.rowsSealed)} rows in ${secs(f.wallMs)} s = ${fmt(rowsPerSec)} rows/s ` +
          `(${ratio.toFixed(2)}x replay ${fmt(replayRowsPerSec)} rows/s, target ≥ ${target}x)${same}; ` +
          `staging ${secs(f.stagingMs)} s (${(replay.stagingMs / f.stagingMs).toFixed(2)}x replay's staging rate), sealing ${secs(f.sealingMs)} s ` +
          // The seal is the same work in both: even a free staging could not beat this ratio.
          `(with staging free at most ${(replay.wallMs / f.sealingMs).toFixed(2)}x replay); ` +
          `peak RSS ${mib(f.peakRssBytes)} MiB (${(f.peakRssBytes / GiB).toFixed(2)}x limit 1 GiB, ${stocks} stocks)${dropped}; ` +
          `byte-identical: ${cmp.identical ? 'yes' : `no (${difference})`}`,
      );
    };

    // 1. Our sealed files as they are: A's level2/ folder.
    await measure('parquet (our columns)', 2, [join(a, 'level2')], join(dir, 'import-parquet'));

    // 1b. One DuckDB COPY file of the whole day in our columns.
    const copyDir = join(dir, 'duckdb-copy');
    await mkdir(copyDir, { recursive: true });
    const copyFile = join(copyDir, `level2_${tradedate}.parquet`);
    await duckRows(`COPY (SELECT * FROM ${source} ORDER BY symbol, time) TO ${sqlString(copyFile)} (FORMAT parquet, COMPRESSION zstd)`);
    log(`   (duckdb COPY: one file of the day in our columns, ${mib((await stat(copyFile)).size)} MiB, zstd, DuckDB's row groups)`);
    await measure('parquet (one duckdb COPY file of the day)', 2, [copyFile], join(dir, 'import-copy'));

    // 2. A vendor's CSV, one file a day (date only in its name), through the docs' vendor mapping.
    const csvDir = join(dir, 'vendor');
    await mkdir(csvDir, { recursive: true });
    const csvFile = join(csvDir, `snap_${tradedate}.csv`);
    await duckRows(`COPY (${vendorSelect(source)}) TO ${sqlString(csvFile)} (FORMAT csv, HEADER, DELIMITER ',')`);
    const mapFile = join(dir, 'vendor-level2.map');
    await writeFile(mapFile, await vendorMapping());
    log(
      `   (vendor CSV by duckdb: one file a day, snap_${tradedate}.csv, ${mib((await stat(csvFile)).size)} MiB, all symbols ordered by time; ` +
        `sh600000, HH:MM:SS.fff, prices x10000 integers, volumes in lots, 0 for empty levels; mapping: docs/import-mappings.md vendor example)`,
    );
    await measure('csv (vendor mapping)', 1, [csvFile, '--mapping', mapFile], join(dir, 'import-csv'));

    return { stocks, replayRows: replay.rows, replayRowsPerSec, cases };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const i = args.indexOf('--stocks');
  await runImportBench({ stocks: i < 0 ? undefined : Number(args[i + 1]) });
}
