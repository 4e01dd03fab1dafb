/**
 * Test-only reference model of what a replay must produce, written from api-spec.md and
 * api-contract: Symbols/§6 without using any project module: its own symbol rules, its own validity
 * checks, its own duplicate rule (the later line wins), its own sort. The replay tests compare
 * the files DuckDB reads, the catalog and the quarantine table against it.
 */
import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import * as assert from 'uvu/assert';
import { duckRows, sqlString } from '../../support/duckdb.js';

export type Dataset = 'level2' | 'index' | 'trade' | 'order';
export const DATASET_NAMES: readonly Dataset[] = ['level2', 'index', 'trade', 'order'];
export type Value = string | number | bigint | null;
export type Row = Record<string, Value>;

const lv = (p: string, n: number) => Array.from({ length: n }, (_, i) => `${p}${i + 1}`);

/** Columns in the order of the spec's field tables. */
export const COLUMNS: Readonly<Record<Dataset, readonly string[]>> = {
  level2: [
    'symbol',
    'tradedate',
    'time',
    'open',
    'high',
    'low',
    'close',
    'pre_close',
    'volume',
    'amount',
    ...lv('bid', 10),
    ...lv('ask', 10),
    ...lv('bid_vol', 10),
    ...lv('ask_vol', 10),
  ],
  index: [
    'tradedate',
    'symbol',
    'time',
    'open',
    'high',
    'low',
    'close',
    'pre_close',
    'pct_chg',
    'vol',
    'amount',
    'transaction_num',
    ...lv('bid', 5),
    ...lv('ask', 5),
    ...lv('bid_vol', 5),
    ...lv('ask_vol', 5),
  ],
  // api-contract: Trades and orders
  trade: ['symbol', 'tradedate', 'time', 'trade_id', 'price', 'volume', 'amount', 'bs_flag', 'trade_code', 'buy_order_id', 'sell_order_id'],
  order: ['symbol', 'tradedate', 'time', 'order_id', 'price', 'volume', 'amount', 'side', 'order_type', 'order_no'],
};
const KEY_COLUMNS = new Set(['symbol', 'tradedate', 'time']);
const INTEGER_COLUMNS = new Set(['transaction_num', 'trade_id', 'buy_order_id', 'sell_order_id', 'order_id', 'order_no']);
/** Letter columns and the letters each allows (api-contract: Trades and orders). */
const LETTERS: Readonly<Record<string, string>> = { bs_flag: 'BSN', trade_code: 'FC', side: 'BS', order_type: 'LMUD' };
/** Values a tick-by-tick row cannot be without. */
const REQUIRED = new Set(['trade_id', 'order_id', 'side', 'order_type']);
/** The id column of a tick-by-tick dataset: duplicates are decided by it, not by time. */
export const ID_COLUMN: Readonly<Partial<Record<Dataset, string>>> = { trade: 'trade_id', order: 'order_id' };

/** DuckDB type of each column: text keys and letters, integer ids and transaction_num, doubles otherwise. */
export function duckType(column: string): string {
  if (KEY_COLUMNS.has(column) || column in LETTERS) return 'VARCHAR';
  if (INTEGER_COLUMNS.has(column)) return 'BIGINT';
  return 'DOUBLE';
}

/** api-contract: Symbols, implemented here from scratch. */
export function canonicalStock(s: unknown): string | null {
  if (typeof s !== 'string') return null;
  let m = /^([0-9]{6})$/.exec(s);
  if (m) {
    const c = m[1];
    const ex = c.startsWith('92') || c[0] === '4' || c[0] === '8' ? 'BJ' : c[0] === '6' || c[0] === '9' ? 'SH' : '023'.includes(c[0]) ? 'SZ' : null;
    return ex ? `${c}.${ex}` : null;
  }
  const names: Record<string, string> = { SH: 'SH', XSHG: 'SH', SZ: 'SZ', XSHE: 'SZ', BJ: 'BJ' };
  m = /^([0-9]{6})\.([A-Za-z]+)$/.exec(s);
  if (m) return names[m[2].toUpperCase()] ? `${m[1]}.${names[m[2].toUpperCase()]}` : null;
  m = /^(SH|SZ|BJ)([0-9]{6})$/i.exec(s);
  if (m) return `${m[2]}.${m[1].toUpperCase()}`;
  return null;
}

const realDates = new Map<string, boolean>();
function realDate(d: unknown): d is string {
  if (typeof d !== 'string' || !/^[0-9]{8}$/.test(d)) return false;
  let ok = realDates.get(d);
  if (ok === undefined) {
    const dt = new Date(Date.UTC(+d.slice(0, 4), +d.slice(4, 6) - 1, +d.slice(6, 8)));
    ok = dt.toISOString().slice(0, 10).replaceAll('-', '') === d;
    realDates.set(d, ok);
  }
  return ok;
}

/** Milliseconds since midnight of a valid time of the dataset's form, else null. */
export function timeMs(dataset: Dataset, t: unknown, tradedate: string): number | null {
  if (typeof t !== 'string') return null;
  let h: number, mi: number, s: number, f: number;
  if (dataset !== 'index') {
    const m = /^([0-9]{2})([0-9]{2})([0-9]{2})([0-9]{3})$/.exec(t);
    if (!m) return null;
    [h, mi, s, f] = [+m[1], +m[2], +m[3], +m[4]];
  } else {
    const m = /^([0-9]{4})-([0-9]{2})-([0-9]{2}) ([0-9]{2}):([0-9]{2}):([0-9]{2})\.([0-9]{3})$/.exec(t);
    if (!m || m[1] + m[2] + m[3] !== tradedate) return null;
    [h, mi, s, f] = [+m[4], +m[5], +m[6], +m[7]];
  }
  if (h > 23 || mi > 59 || s > 59) return null;
  return ((h * 60 + mi) * 60 + s) * 1000 + f;
}

export interface GoodLine {
  readonly ok: true;
  readonly dataset: Dataset;
  readonly symbol: string;
  readonly tradedate: string;
  readonly timeMs: number;
  readonly row: Row;
}
export type Checked = GoodLine | { readonly ok: false };

/** The reference validity check of one feed line (api-contract: The feed). */
export function checkLine(line: string): Checked {
  let o: unknown;
  try {
    o = JSON.parse(line);
  } catch {
    return { ok: false };
  }
  if (typeof o !== 'object' || o === null || Array.isArray(o)) return { ok: false };
  const rec = o as Record<string, unknown>;
  const dataset = rec.kind;
  if (typeof dataset !== 'string' || !(DATASET_NAMES as readonly string[]).includes(dataset)) return { ok: false };
  const symbol = dataset !== 'index' ? canonicalStock(rec.symbol) : typeof rec.symbol === 'string' && /^[0-9]{6}$/.test(rec.symbol) ? rec.symbol : null;
  if (symbol === null) return { ok: false };
  if (!realDate(rec.tradedate)) return { ok: false };
  const tradedate = rec.tradedate;
  const t = timeMs(dataset as Dataset, rec.time, tradedate);
  if (t === null) return { ok: false };
  const row: Row = {};
  for (const c of COLUMNS[dataset as Dataset]) {
    if (c === 'symbol') row[c] = symbol;
    else if (c === 'tradedate') row[c] = tradedate;
    else if (c === 'time') row[c] = rec.time as string;
    else {
      const v = rec[c];
      if (v === undefined || v === null) {
        if (REQUIRED.has(c)) return { ok: false };
        row[c] = null;
      } else if (c in LETTERS) {
        if (typeof v !== 'string' || v.length !== 1 || !LETTERS[c].includes(v)) return { ok: false };
        row[c] = v;
      } else if (typeof v !== 'number' || !Number.isFinite(v)) return { ok: false };
      else if (INTEGER_COLUMNS.has(c)) {
        if (!Number.isSafeInteger(v)) return { ok: false };
        row[c] = BigInt(v);
      } else row[c] = v;
    }
  }
  if (dataset === 'index') {
    row.pre_close = null;
    row.pct_chg = null;
  }
  return { ok: true, dataset: dataset as Dataset, symbol, tradedate, timeMs: t, row };
}

/** Reads a feed file's lines with tools independent of the project (zstd CLI, zlib). */
export function feedFileLines(path: string): string[] {
  let text: string;
  if (path.endsWith('.zst')) text = execFileSync('zstd', ['-dc', path], { maxBuffer: 1 << 30 }).toString('utf8');
  else if (path.endsWith('.gz')) text = gunzipSync(readFileSync(path)).toString('utf8');
  else text = readFileSync(path, 'utf8');
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

export interface ExpectedFile {
  readonly dataset: Dataset;
  readonly tradedate: string;
  readonly symbol: string;
  /** Sorted by time (tick-by-tick: then by id), one row per time (per id), the later line of a duplicate. */
  readonly rows: Row[];
  readonly timesMs: number[];
}

export interface Expected {
  /** `dataset|tradedate|symbol` → file contents. */
  readonly files: Map<string, ExpectedFile>;
  /** 1-based line numbers of bad lines. */
  readonly badLines: number[];
  /** 1-based line numbers of good lines, with the symbol-day key each belongs to. */
  readonly goodLines: Map<number, string>;
  /** Non-blank lines. */
  readonly lineCount: number;
  readonly lines: readonly string[];
}

export const fileKey = (dataset: string, tradedate: string, symbol: string) => `${dataset}|${tradedate}|${symbol}`;

export function expectedFromLines(lines: readonly string[]): Expected {
  // Snapshots are keyed by time, tick-by-tick rows by id (as a bigint's text).
  const byKey = new Map<string, { dataset: Dataset; tradedate: string; symbol: string; byTime: Map<number | string, { t: number; row: Row }> }>();
  const badLines: number[] = [];
  const goodLines = new Map<number, string>();
  let lineCount = 0;
  lines.forEach((line, i) => {
    if (line.trim() === '') return; // blank lines carry nothing
    lineCount++;
    const c = checkLine(line);
    if (!c.ok) {
      badLines.push(i + 1);
      return;
    }
    const key = fileKey(c.dataset, c.tradedate, c.symbol);
    goodLines.set(i + 1, key);
    let f = byKey.get(key);
    if (!f) byKey.set(key, (f = { dataset: c.dataset, tradedate: c.tradedate, symbol: c.symbol, byTime: new Map() }));
    const idColumn = ID_COLUMN[c.dataset];
    const k = idColumn === undefined ? c.timeMs : String(c.row[idColumn]);
    f.byTime.set(k, { t: c.timeMs, row: c.row }); // the later line wins
  });
  const files = new Map<string, ExpectedFile>();
  for (const [key, f] of byKey) {
    const idColumn = ID_COLUMN[f.dataset];
    const entries = [...f.byTime.values()].sort(
      (a, b) => a.t - b.t || (idColumn === undefined ? 0 : Number((a.row[idColumn] as bigint) - (b.row[idColumn] as bigint))),
    );
    files.set(key, { dataset: f.dataset, tradedate: f.tradedate, symbol: f.symbol, rows: entries.map((e) => e.row), timesMs: entries.map((e) => e.t) });
  }
  return { files, badLines, goodLines, lineCount, lines };
}

export const relPath = (f: { dataset: string; tradedate: string; symbol: string }) => `${f.dataset}/date=${f.tradedate}/${f.symbol}.parquet`;

/** Every `.parquet` (and leftover) file under the dataset directories, relative to the data dir. */
export function filesOnDisk(dataDir: string): string[] {
  const out: string[] = [];
  for (const ds of DATASET_NAMES) {
    const dsDir = join(dataDir, ds);
    if (!existsSync(dsDir)) continue;
    for (const day of readdirSync(dsDir)) for (const n of readdirSync(join(dsDir, day))) out.push(`${ds}/${day}/${n}`);
  }
  return out.sort();
}

/** Reads one file with DuckDB in physical row order, only the spec's columns. */
export async function readParquet(path: string, dataset: Dataset): Promise<Row[]> {
  const cols = COLUMNS[dataset].map((c) => `"${c}"`).join(', ');
  return (await duckRows(
    `SELECT ${cols} FROM read_parquet(${sqlString(path)}, hive_partitioning=false, file_row_number=true) ORDER BY file_row_number`,
  )) as Row[];
}

/** Asserts the rows equal value for value, null for null, in order; reports the first difference. */
export function assertRowsEqual(actual: Row[], expected: Row[], what: string): void {
  assert.is(actual.length, expected.length, `${what}: row count`);
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i];
    const e = expected[i];
    for (const c of Object.keys(e)) {
      if (a[c] !== e[c]) {
        assert.equal(a, e, `${what}: row ${i} (time ${String(e.time)}) column ${c}: got ${String(a[c])}, want ${String(e[c])}`);
      }
    }
  }
}

export const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

export interface CatalogFileRow {
  dataset: string;
  tradedate: string;
  symbol: string;
  path: string;
  rows: number;
  first_time_ms: number;
  last_time_ms: number;
  bytes: number;
  sha256: string;
  row_group_size: number;
  minute_base: number;
  minute_counts: Buffer;
  sealed_at_ms: number;
}

/**
 * Raw rows of catalog.db, read with SQL rather than through CatalogReader on purpose: this
 * reference checks what is stored (the minute-count blob byte by byte, the calendar rows)
 * independently of the code that writes and reads it.
 */
export function catalogFiles(dataDir: string): CatalogFileRow[] {
  return catalogQuery<CatalogFileRow>(dataDir, 'SELECT * FROM files ORDER BY dataset, tradedate, symbol');
}

export function catalogQuery<T>(dataDir: string, sql: string): T[] {
  return readOnlyQuery<T>(join(dataDir, 'catalog.db'), sql);
}

/** Every row of `sql` on the SQLite file at `path`, opened read-only and closed again. */
function readOnlyQuery<T>(path: string, sql: string): T[] {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}

export interface QuarantineRow {
  id: number;
  source: string;
  reason: string;
  raw: string;
}

export function quarantine(dataDir: string): QuarantineRow[] {
  return readOnlyQuery<QuarantineRow>(join(dataDir, 'ingest.db'), 'SELECT id, source, reason, raw FROM quarantine ORDER BY id');
}

/**
 * The whole data directory against the expectation: exactly the expected files exist; DuckDB
 * reads each back equal in values, nulls and order, with the spec's columns and types, ZSTD
 * compressed; the catalog lists each with its true rows, times, bytes, sha256 and minute index;
 * every dataset-day is sealed and every day is in the calendar.
 */
export async function assertDataDirMatches(dataDir: string, exp: Expected, what: string): Promise<void> {
  const wantPaths = [...exp.files.values()].map(relPath).sort();
  assert.equal(
    filesOnDisk(dataDir).filter((p) => p.endsWith('.parquet')),
    wantPaths,
    `${what}: the set of .parquet files`,
  );

  for (const f of exp.files.values()) {
    const full = join(dataDir, relPath(f));
    const rows = await readParquet(full, f.dataset);
    assertRowsEqual(rows, f.rows, `${what}: ${relPath(f)}`);
  }

  const cat = catalogFiles(dataDir);
  assert.equal(cat.map((r) => fileKey(r.dataset, r.tradedate, r.symbol)).sort(), [...exp.files.keys()].sort(), `${what}: catalog file list`);
  for (const r of cat) {
    const f = exp.files.get(fileKey(r.dataset, r.tradedate, r.symbol))!;
    const full = join(dataDir, r.path);
    assert.is(r.path, relPath(f), `${what}: catalog path`);
    assert.not.ok(r.path.includes('.tmp-'), `${what}: a temporary file is listed`);
    assert.is(r.rows, f.rows.length, `${what}: catalog rows of ${r.path}`);
    assert.is(r.first_time_ms, f.timesMs[0], `${what}: first time of ${r.path}`);
    assert.is(r.last_time_ms, f.timesMs[f.timesMs.length - 1], `${what}: last time of ${r.path}`);
    assert.is(r.bytes, statSync(full).size, `${what}: bytes of ${r.path}`);
    assert.is(r.sha256, sha256(full), `${what}: sha256 of ${r.path}`);
    // minute index: rows per minute from the first row's minute, uint16 LE
    const base = Math.floor(f.timesMs[0] / 60_000);
    const last = Math.floor(f.timesMs[f.timesMs.length - 1] / 60_000);
    const counts = new Array<number>(last - base + 1).fill(0);
    for (const t of f.timesMs) counts[Math.floor(t / 60_000) - base]++;
    assert.is(r.minute_base, base, `${what}: minute_base of ${r.path}`);
    const got = Array.from({ length: r.minute_counts.length / 2 }, (_, i) => r.minute_counts.readUInt16LE(i * 2));
    assert.equal(got, counts, `${what}: minute counts of ${r.path}`);
  }
  // row groups: all but the last hold exactly row_group_size rows; every column chunk is ZSTD
  for (const r of cat) {
    const full = join(dataDir, r.path);
    const meta = await duckRows(
      `SELECT row_group_id, any_value(row_group_num_rows) AS n, list(DISTINCT compression) AS codecs
       FROM parquet_metadata(${sqlString(full)}) GROUP BY row_group_id ORDER BY row_group_id`,
    );
    meta.forEach((g, i) => {
      if (i < meta.length - 1) assert.is(Number(g.n), r.row_group_size, `${what}: row group ${i} of ${r.path}`);
      assert.equal(g.codecs, ['ZSTD'], `${what}: compression of ${r.path}`);
    });
    assert.is(
      meta.reduce((a, g) => a + Number(g.n), 0),
      r.rows,
      `${what}: row groups of ${r.path} add up`,
    );
  }

  const wantDays = [...new Set([...exp.files.values()].map((f) => `${f.dataset}|${f.tradedate}`))].sort();
  const sealed = catalogQuery<{ dataset: string; tradedate: string }>(dataDir, 'SELECT dataset, tradedate FROM sealed_days');
  assert.equal(sealed.map((s) => `${s.dataset}|${s.tradedate}`).sort(), wantDays, `${what}: sealed_days`);
  const cal = catalogQuery<{ tradedate: string; source: string }>(dataDir, 'SELECT tradedate, source FROM calendar_days ORDER BY tradedate');
  assert.equal(
    cal.map((c) => c.tradedate),
    [...new Set([...exp.files.values()].map((f) => f.tradedate))].sort(),
    `${what}: calendar_days`,
  );
}

/** Column names and DuckDB types of one file, in order. */
export async function describeFile(path: string): Promise<[string, string][]> {
  const d = await duckRows(`DESCRIBE SELECT * FROM read_parquet(${sqlString(path)}, hive_partitioning=false)`);
  return d.map((r) => [r.column_name as string, r.column_type as string]);
}
