/**
 * The catalog of sealed files (catalog.db), and the only code that speaks SQL to it besides
 * storage/bars/barCatalog.ts (the bars' tables, created here with the rest):
 * CatalogReader for every question asked of it, CatalogWriter for sealing, its one writer.
 * Servers open it read only. A file is visible to queries exactly when its row is here, so the
 * row is inserted only after the file is durably in place.
 */
import type { Statement } from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { openDb, type Db } from '../shared/sqlite.js';
import type { Dataset } from '../shared/schema.js';
import { decodeMinuteCounts, type MinuteIndex } from './minuteIndex.js';
import { decodeDirectory, type BlockEntry } from './boundary/partCodec.js';
import type { NewBoundaryPart } from './boundary/partFile.js';

export const CATALOG_SCHEMA = `
CREATE TABLE IF NOT EXISTS files (
  dataset TEXT NOT NULL,
  tradedate TEXT NOT NULL,
  symbol TEXT NOT NULL,
  path TEXT NOT NULL,              -- relative to the data directory
  rows INTEGER NOT NULL,
  first_time_ms INTEGER NOT NULL,
  last_time_ms INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  row_group_size INTEGER NOT NULL, -- every row group but the last has exactly this many rows
  minute_base INTEGER NOT NULL,    -- minute of day of the first row
  minute_counts BLOB NOT NULL,     -- uint16 LE rows per minute from minute_base on
  sealed_at_ms INTEGER NOT NULL,
  version INTEGER NOT NULL DEFAULT 1, -- the current version (1: as sealed; restate adds more)
  PRIMARY KEY (dataset, tradedate, symbol)
) WITHOUT ROWID;
-- Versions no longer current (api-contract: Corrections): kept on disk and listed here, so a
-- cursor issued on one pages it to the end, until an operator removes them.
CREATE TABLE IF NOT EXISTS file_versions (
  dataset TEXT NOT NULL,
  tradedate TEXT NOT NULL,
  symbol TEXT NOT NULL,
  path TEXT NOT NULL,
  rows INTEGER NOT NULL,
  first_time_ms INTEGER NOT NULL,
  last_time_ms INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  row_group_size INTEGER NOT NULL,
  minute_base INTEGER NOT NULL,
  minute_counts BLOB NOT NULL,
  sealed_at_ms INTEGER NOT NULL,
  version INTEGER NOT NULL,
  PRIMARY KEY (dataset, tradedate, symbol, version)
) WITHOUT ROWID;
-- One row per restated dataset-day: \`generation\` rises with each restatement, so a server
-- that keeps a sealed day's listing in memory knows when to list it again.
-- Boundary parts a restatement replaced: no longer listed, their files wait for
-- \`tickvault prune-versions\` like the versions they served.
CREATE TABLE IF NOT EXISTS replaced_parts (
  dataset TEXT NOT NULL,
  tradedate TEXT NOT NULL,
  path TEXT NOT NULL,
  PRIMARY KEY (dataset, tradedate, path)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS restated_days (
  dataset TEXT NOT NULL,
  tradedate TEXT NOT NULL,
  generation INTEGER NOT NULL,
  PRIMARY KEY (dataset, tradedate)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sealed_days (
  dataset TEXT NOT NULL,
  tradedate TEXT NOT NULL,
  sealed_at_ms INTEGER NOT NULL,
  PRIMARY KEY (dataset, tradedate)
) WITHOUT ROWID;
-- Boundary parts (storage/boundary/): seal-time candidate rows of the listed files of
-- \`symbols\`, regrouped by minute. Listed after those files; a file no part names is answered
-- from the file itself.
CREATE TABLE IF NOT EXISTS boundary_parts (
  dataset TEXT NOT NULL,
  tradedate TEXT NOT NULL,
  path TEXT NOT NULL,              -- relative to the data directory
  symbols TEXT NOT NULL,           -- JSON array, ascending
  directory BLOB NOT NULL,         -- per block: u16 minute, u32 offset, u32 length (LE)
  bytes INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  sealed_at_ms INTEGER NOT NULL,
  PRIMARY KEY (dataset, tradedate, path)
) WITHOUT ROWID;
-- Bars (storage/bars/): each day's bar files, derived from its trade and level-2 files; the
-- daily bars, which serve daily, weekly, monthly and daily_auc and locate a stock's rows in
-- the day's minute file; and the days whose trade or level-2 files changed since their bars
-- were made (a trigger counts each change, so a rebuild that raced one is redone).
CREATE TABLE IF NOT EXISTS bar_days (
  tradedate TEXT PRIMARY KEY,
  version INTEGER NOT NULL,        -- 1 as first made; each rebuild adds one (new file names)
  minute_path TEXT,                -- relative to the data directory; null: no stock had a fill
  minute_bytes INTEGER,
  minute_sha256 TEXT,
  minute_row_group_size INTEGER,
  daily_path TEXT,
  daily_bytes INTEGER,
  daily_sha256 TEXT,
  stocks INTEGER NOT NULL,         -- stocks with fills: the daily file's rows
  made_at_ms INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS daily_bars (
  symbol TEXT NOT NULL,
  tradedate TEXT NOT NULL,
  open REAL NOT NULL,
  high REAL NOT NULL,
  low REAL NOT NULL,
  close REAL NOT NULL,
  pre_close REAL,
  volume INTEGER NOT NULL,         -- shares
  amount_fen INTEGER NOT NULL,
  auc_price REAL,
  auc_volume INTEGER NOT NULL,
  auc_amount_fen INTEGER NOT NULL,
  um_volume REAL NOT NULL,
  um_side TEXT,
  minute_row INTEGER NOT NULL,     -- the stock's first row in the day's minute file
  PRIMARY KEY (symbol, tradedate)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS daily_bars_of_day ON daily_bars (tradedate, symbol);
CREATE TABLE IF NOT EXISTS bar_stale (
  tradedate TEXT PRIMARY KEY,
  changes INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS bar_stale_on_file AFTER INSERT ON files WHEN NEW.dataset IN ('trade', 'level2') BEGIN
  INSERT INTO bar_stale (tradedate, changes) VALUES (NEW.tradedate, 1) ON CONFLICT (tradedate) DO UPDATE SET changes = changes + 1;
END;
-- The store (storage/store/): each file uploaded to the bucket and verified there (its SHA-256
-- the catalog's, the ETag the store answered the one its bytes give), with the SHA-256 of each
-- 128 KiB block, which a server checks ranged reads against. Named \`key\`, not \`path\`: the
-- bucket's copy of a listed file, not another file of the lake (listedFiles reads path columns).
CREATE TABLE IF NOT EXISTS stored_objects (
  key TEXT PRIMARY KEY,            -- the catalog path; in the bucket under the store's prefix
  bytes INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  blocks BLOB NOT NULL,            -- SHA-256 of each 128 KiB block, concatenated
  stored_at_ms INTEGER NOT NULL
) WITHOUT ROWID;
-- Days whose every listed file and manifest are in the store, as of \`changes\` of store_due.
CREATE TABLE IF NOT EXISTS stored_days (
  tradedate TEXT PRIMARY KEY,
  objects INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  manifest_sha256 TEXT NOT NULL,
  stored_at_ms INTEGER NOT NULL
) WITHOUT ROWID;
-- Days with files listed since they were last stored; counted, so a pass that raced a listing
-- leaves its day due (as bar_stale does for bars).
CREATE TABLE IF NOT EXISTS store_due (
  tradedate TEXT PRIMARY KEY,
  changes INTEGER NOT NULL
) WITHOUT ROWID;
-- Days whose local copies \`tickvault offload\` removed once every file was verified in the store:
-- served from the store (stored_objects), skipped by the local checks (doctor, backup, row text).
CREATE TABLE IF NOT EXISTS offloaded_days (
  tradedate TEXT PRIMARY KEY,
  offloaded_at_ms INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS store_due_on_file AFTER INSERT ON files BEGIN
  INSERT INTO store_due (tradedate, changes) VALUES (NEW.tradedate, 1) ON CONFLICT (tradedate) DO UPDATE SET changes = changes + 1;
END;
CREATE TRIGGER IF NOT EXISTS store_due_on_part AFTER INSERT ON boundary_parts BEGIN
  INSERT INTO store_due (tradedate, changes) VALUES (NEW.tradedate, 1) ON CONFLICT (tradedate) DO UPDATE SET changes = changes + 1;
END;
CREATE TRIGGER IF NOT EXISTS store_due_on_bars AFTER INSERT ON bar_days BEGIN
  INSERT INTO store_due (tradedate, changes) VALUES (NEW.tradedate, 1) ON CONFLICT (tradedate) DO UPDATE SET changes = changes + 1;
END;
CREATE TRIGGER IF NOT EXISTS store_due_on_sealed AFTER INSERT ON sealed_days BEGIN
  INSERT INTO store_due (tradedate, changes) VALUES (NEW.tradedate, 1) ON CONFLICT (tradedate) DO UPDATE SET changes = changes + 1;
END;
CREATE TABLE IF NOT EXISTS calendar_days (
  tradedate TEXT PRIMARY KEY,
  source TEXT NOT NULL            -- 'stored-data': a day with sealed files is a trading day
) WITHOUT ROWID;
`;

export interface CatalogFile {
  readonly dataset: Dataset;
  readonly tradedate: string;
  readonly symbol: string;
  readonly path: string;
  readonly rows: number;
  readonly firstTimeMs: number;
  readonly lastTimeMs: number;
  readonly bytes: number;
  readonly sha256: string;
  readonly rowGroupSize: number;
  readonly minuteIndex: MinuteIndex;
  readonly sealedAtMs: number;
  /** 1 as sealed; each restatement of the symbol-day adds one. */
  readonly version: number;
}

interface FileRow {
  dataset: Dataset;
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
  /** Absent in a catalog written before versions, opened read only. */
  version?: number;
}

export function fileFromRow(r: FileRow): CatalogFile {
  return {
    dataset: r.dataset,
    tradedate: r.tradedate,
    symbol: r.symbol,
    path: r.path,
    rows: r.rows,
    firstTimeMs: r.first_time_ms,
    lastTimeMs: r.last_time_ms,
    bytes: r.bytes,
    sha256: r.sha256,
    rowGroupSize: r.row_group_size,
    minuteIndex: { base: r.minute_base, counts: decodeMinuteCounts(r.minute_counts) },
    sealedAtMs: r.sealed_at_ms,
    version: r.version ?? 1,
  };
}

/** A listed boundary part. */
export interface CatalogBoundaryPart {
  readonly path: string;
  readonly symbols: readonly string[];
  readonly directory: ReadonlyMap<number, BlockEntry>;
  readonly bytes: number;
  readonly sha256: string;
}

/** Schema version of catalog.db (PRAGMA user_version): 2 added versions (files.version, file_versions, restated_days). */
export const CATALOG_SCHEMA_VERSION = 2;

export function openCatalog(path: string, readonly = false): Db {
  const db = openDb(path, { readonly, schema: CATALOG_SCHEMA, version: CATALOG_SCHEMA_VERSION });
  if (!readonly) addVersionColumn(db);
  return db;
}

/** The tables CATALOG_SCHEMA creates. */
const CATALOG_TABLES = [...CATALOG_SCHEMA.matchAll(/CREATE TABLE IF NOT EXISTS (\w+)/g)].map((m) => m[1]);

/**
 * Opens the catalog read only for a server. The catalog is the sealer's, but a server can come
 * first: before any seal (no catalog.db), or while the ingestor is creating it (the file there,
 * empty or without its tables yet). Then the server runs the same set-up the ingestor does
 * (openCatalog: CREATE TABLE IF NOT EXISTS, one transaction, so whichever process comes first
 * creates every table and the other finds them) rather than fail on a table not there yet.
 */
export function openCatalogToServe(path: string): Db {
  if (!hasCatalogTables(path)) openCatalog(path, false).close();
  return openCatalog(path, true);
}

/** Whether catalog.db exists with its tables (any of them: the set-up creates them together). */
function hasCatalogTables(path: string): boolean {
  if (!existsSync(path)) return false;
  const db = openDb(path, { readonly: true });
  try {
    const marks = CATALOG_TABLES.map(() => '?').join(', ');
    return db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name IN (${marks}) LIMIT 1`).get(...CATALOG_TABLES) !== undefined;
  } finally {
    db.close();
  }
}

/** A catalog of version 1 gets `files.version` (every file then is version 1). */
function addVersionColumn(db: Db): void {
  const columns = db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('files') as string[];
  if (!columns.includes('version')) db.exec('ALTER TABLE files ADD COLUMN version INTEGER NOT NULL DEFAULT 1');
}

/** A file the catalog lists, as a backup copies it. */
export interface ListedFile {
  /** Relative to the data directory. */
  readonly path: string;
  /** The catalog's SHA-256, or null for a table that lists paths without one (replaced boundary parts). */
  readonly sha256: string | null;
}

/** Typed read queries over the catalog, prepared once. */
export class CatalogReader {
  private readonly getFile;
  private readonly dayFiles;
  private readonly sealedDay;
  private readonly allFiles;

  private readonly daySymbols;
  private readonly fileListed;
  private readonly dayTotalsStmt;
  private readonly countFiles;
  private readonly latestDayStmt;
  private readonly sealedDayList;
  private readonly calendarDayList;
  private pingStmt: Statement | undefined;
  private dayParts: Statement | null = null;
  /** Once the table exists it stays: asked of sqlite_master only until then. */
  private partsTable = false;
  private versionTables = false;
  private oldVersion: Statement | null = null;
  private generationStmt: Statement | null = null;
  private oldVersionsStmt: Statement | null = null;
  private dayVersionsStmt: Statement | null = null;

  constructor(readonly db: Db) {
    this.getFile = db.prepare('SELECT * FROM files WHERE dataset = ? AND tradedate = ? AND symbol = ?');
    this.dayFiles = db.prepare('SELECT * FROM files WHERE dataset = ? AND tradedate = ? ORDER BY symbol');
    this.sealedDay = db.prepare('SELECT 1 FROM sealed_days WHERE dataset = ? AND tradedate = ?');
    this.allFiles = db.prepare('SELECT * FROM files ORDER BY dataset, tradedate, symbol');
    this.daySymbols = db.prepare('SELECT symbol FROM files WHERE dataset = ? AND tradedate = ? ORDER BY symbol').pluck();
    this.fileListed = db.prepare('SELECT 1 FROM files WHERE dataset = ? AND tradedate = ? AND symbol = ?');
    this.dayTotalsStmt = db.prepare('SELECT count(*) AS files, coalesce(sum(rows), 0) AS rows FROM files WHERE dataset = ? AND tradedate = ?');
    this.countFiles = db.prepare('SELECT count(*) FROM files').pluck();
    this.latestDayStmt = db.prepare('SELECT max(tradedate) FROM files WHERE dataset = ?').pluck();
    this.sealedDayList = db.prepare('SELECT dataset, tradedate FROM sealed_days ORDER BY tradedate, dataset');
    this.calendarDayList = db.prepare('SELECT tradedate FROM calendar_days ORDER BY tradedate').pluck();
  }

  file(dataset: Dataset, tradedate: string, symbol: string): CatalogFile | null {
    const r = this.getFile.get(dataset, tradedate, symbol) as FileRow | undefined;
    return r ? fileFromRow(r) : null;
  }

  filesOfDay(dataset: Dataset, tradedate: string): CatalogFile[] {
    return (this.dayFiles.all(dataset, tradedate) as FileRow[]).map(fileFromRow);
  }

  /** Throws when the catalog cannot be read (a health probe: the file gone, the disk failing). */
  ping(): void {
    this.pingStmt ??= this.db.prepare('SELECT 1');
    this.pingStmt.get();
  }

  isDaySealed(dataset: Dataset, tradedate: string): boolean {
    return this.sealedDay.get(dataset, tradedate) !== undefined;
  }

  *everyFile(): Generator<CatalogFile> {
    for (const r of this.allFiles.iterate() as IterableIterator<FileRow>) yield fileFromRow(r);
  }

  /** Symbols of a day that already have a file. */
  symbolsOfDay(dataset: Dataset, tradedate: string): string[] {
    return this.daySymbols.all(dataset, tradedate) as string[];
  }

  /** True when the symbol-day has a file. */
  hasFile(dataset: Dataset, tradedate: string, symbol: string): boolean {
    return this.fileListed.get(dataset, tradedate, symbol) !== undefined;
  }

  /** Files and rows of a day. */
  dayTotals(dataset: Dataset, tradedate: string): { readonly files: number; readonly rows: number } {
    return this.dayTotalsStmt.get(dataset, tradedate) as { files: number; rows: number };
  }

  /** Files in the whole catalog. */
  fileCount(): number {
    return this.countFiles.get() as number;
  }

  /**
   * Every file the catalog lists, by path: each table column `path` or `KIND_path` names files
   * of the lake (sealed files, their earlier versions, boundary parts, replaced parts, bar
   * files), with `sha256` or `KIND_sha256` beside it where the catalog vouches for the bytes.
   * Found by those columns rather than by table name, so that a backup copies a new kind of
   * listed file without learning of it.
   */
  listedFiles(): ListedFile[] {
    const tables = this.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[];
    const byPath = new Map<string, string | null>();
    for (const table of tables) {
      const cols = new Set(this.db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(table) as string[]);
      for (const col of cols) {
        const m = /^(.*_)?path$/.exec(col);
        if (!m) continue;
        const sha = `${m[1] ?? ''}sha256`;
        const rows = this.db
          .prepare(`SELECT "${col}" AS path, ${cols.has(sha) ? `"${sha}"` : 'NULL'} AS sha256 FROM "${table.replace(/"/g, '""')}" WHERE "${col}" IS NOT NULL`)
          .all() as ListedFile[];
        // A path listed with a digest anywhere is checked against it.
        for (const r of rows) if (!byPath.has(r.path) || r.sha256 !== null) byPath.set(r.path, r.sha256);
      }
    }
    return [...byPath].map(([path, sha256]) => ({ path, sha256 })).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** Every sealed dataset-day, by date. */
  sealedDays(): { readonly dataset: Dataset; readonly tradedate: string }[] {
    return this.sealedDayList.all() as { dataset: Dataset; tradedate: string }[];
  }

  /** Days the calendar learnt from stored data (a day with sealed files trades), ascending. */
  storedTradingDays(): string[] {
    return this.calendarDayList.all() as string[];
  }

  /**
   * The boundary parts of a day. A catalog written before parts existed has no table until its
   * next seal, and a server opens it read only: none then.
   */
  boundaryParts(dataset: Dataset, tradedate: string): CatalogBoundaryPart[] {
    if (!this.hasPartsTable()) return [];
    this.dayParts ??= this.db.prepare('SELECT path, symbols, directory, bytes, sha256 FROM boundary_parts WHERE dataset = ? AND tradedate = ? ORDER BY path');
    const rows = this.dayParts.all(dataset, tradedate) as { path: string; symbols: string; directory: Buffer; bytes: number; sha256: string }[];
    return rows.map((r) => ({
      path: r.path,
      symbols: JSON.parse(r.symbols) as string[],
      directory: decodeDirectory(r.directory),
      bytes: r.bytes,
      sha256: r.sha256,
    }));
  }

  /** Every boundary part's file facts, by path (for `doctor`). */
  everyBoundaryPart(): { readonly path: string; readonly bytes: number; readonly sha256: string }[] {
    if (!this.hasPartsTable()) return [];
    return this.db.prepare('SELECT path, bytes, sha256 FROM boundary_parts ORDER BY path').all() as { path: string; bytes: number; sha256: string }[];
  }

  /**
   * The symbol-day's file in `version`: the current one, or a version kept after a
   * restatement; null when this catalog has no such version (not restated here yet, or removed).
   */
  fileVersion(dataset: Dataset, tradedate: string, symbol: string, version: number): CatalogFile | null {
    const current = this.file(dataset, tradedate, symbol);
    if (current === null || current.version === version) return current;
    if (!this.hasVersionTables()) return null;
    this.oldVersion ??= this.db.prepare('SELECT * FROM file_versions WHERE dataset = ? AND tradedate = ? AND symbol = ? AND version = ?');
    const r = this.oldVersion.get(dataset, tradedate, symbol, version) as FileRow | undefined;
    return r ? fileFromRow(r) : null;
  }

  /** How many times the dataset-day was restated (0: never): a cached listing of it is stale when this moved. */
  restatedGeneration(dataset: Dataset, tradedate: string): number {
    if (!this.hasVersionTables()) return 0;
    this.generationStmt ??= this.db.prepare('SELECT generation FROM restated_days WHERE dataset = ? AND tradedate = ?').pluck();
    return (this.generationStmt.get(dataset, tradedate) as number | undefined) ?? 0;
  }

  /** Every version no longer current, by path (for `doctor`). */
  *everyOldVersion(): Generator<CatalogFile> {
    if (!this.hasVersionTables()) return;
    this.oldVersionsStmt ??= this.db.prepare('SELECT * FROM file_versions ORDER BY dataset, tradedate, symbol, version');
    for (const r of this.oldVersionsStmt.iterate() as IterableIterator<FileRow>) yield fileFromRow(r);
  }

  /** Restated symbols of a day (current version above 1) and the highest current version (1 when none). */
  dayVersions(dataset: Dataset, tradedate: string): { readonly restatedSymbols: number; readonly highestVersion: number } {
    if (!this.hasVersionTables()) return { restatedSymbols: 0, highestVersion: 1 };
    this.dayVersionsStmt ??= this.db.prepare(
      'SELECT count(*) FILTER (WHERE version > 1) AS restatedSymbols, coalesce(max(version), 1) AS highestVersion FROM files WHERE dataset = ? AND tradedate = ?',
    );
    return this.dayVersionsStmt.get(dataset, tradedate) as { restatedSymbols: number; highestVersion: number };
  }

  /** A catalog of schema 1 opened read only has no versions. */
  private hasVersionTables(): boolean {
    this.versionTables ||= this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'file_versions'").get() !== undefined;
    return this.versionTables;
  }

  private hasPartsTable(): boolean {
    this.partsTable ||= this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'boundary_parts'").get() !== undefined;
    return this.partsTable;
  }

  /** The latest day with files of a dataset, or null. */
  latestDay(dataset: Dataset): string | null {
    return (this.latestDayStmt.get(dataset) as string | null) ?? null;
  }
}

/** A file just written and fsynced, to be listed. */
export interface NewCatalogFile {
  readonly symbol: string;
  readonly relPath: string;
  readonly rows: number;
  readonly firstTimeMs: number;
  readonly lastTimeMs: number;
  readonly bytes: number;
  readonly sha256: string;
  readonly minuteBase: number;
  /** Encoded per-minute row counts (minuteIndex.ts encodeMinuteCounts). */
  readonly minuteCounts: Uint8Array;
}

/**
 * The catalog's one writer (sealing): lists files, marks days sealed. Each method is one
 * transaction, so a reader sees a day's batch of files whole or not at all.
 */
export class CatalogWriter {
  private readonly insertFile;
  private readonly insertSealedDay;
  private readonly anyFile;
  private readonly insertCalendarDay;
  private readonly insertPart;
  private restatementStmts: {
    keep: Statement;
    replace: Statement;
    dropPart: Statement;
    keepPart: Statement;
    bump: Statement;
  } | null = null;

  constructor(readonly db: Db) {
    this.insertFile = db.prepare(`INSERT INTO files (dataset, tradedate, symbol, path, rows, first_time_ms,
      last_time_ms, bytes, sha256, row_group_size, minute_base, minute_counts, sealed_at_ms)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    this.insertSealedDay = db.prepare('INSERT OR IGNORE INTO sealed_days (dataset, tradedate, sealed_at_ms) VALUES (?, ?, ?)');
    this.anyFile = db.prepare('SELECT 1 FROM files WHERE dataset = ? AND tradedate = ? LIMIT 1');
    this.insertCalendarDay = db.prepare("INSERT OR IGNORE INTO calendar_days (tradedate, source) VALUES (?, 'stored-data')");
    // The same content written again (a seal redone after a crash) is the same path: listed once.
    this.insertPart = db.prepare(`INSERT OR IGNORE INTO boundary_parts (dataset, tradedate, path, symbols, directory, bytes, sha256, sealed_at_ms)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
  }

  /** Lists a boundary part (already durable on disk) of files already listed. */
  recordBoundaryPart(dataset: Dataset, tradedate: string, part: NewBoundaryPart, atMs: number): void {
    this.insertPart.run(dataset, tradedate, part.relPath, JSON.stringify(part.symbols), part.directory, part.bytes, part.sha256, atMs);
  }

  /** Lists files of one day (already durable on disk), in one transaction. */
  recordFiles(dataset: Dataset, tradedate: string, rowGroupSize: number, files: readonly NewCatalogFile[], atMs: number): void {
    this.db.transaction(() => {
      for (const w of files) {
        this.insertFile.run(
          dataset,
          tradedate,
          w.symbol,
          w.relPath,
          w.rows,
          w.firstTimeMs,
          w.lastTimeMs,
          w.bytes,
          w.sha256,
          rowGroupSize,
          w.minuteBase,
          Buffer.from(w.minuteCounts),
          atMs,
        );
      }
    })();
  }

  /**
   * Makes new versions current, in one transaction (api-contract: Corrections): each current
   * row is kept in file_versions and replaced by its new version; the day's boundary parts that
   * named a restated symbol give way to `newParts` (covering every symbol they named); the day's
   * restatement generation rises. Files and parts are durable on disk before this is called.
   */
  recordRestatement(
    dataset: Dataset,
    tradedate: string,
    rowGroupSize: number,
    files: readonly (NewCatalogFile & { readonly version: number })[],
    droppedParts: readonly string[],
    newParts: readonly NewBoundaryPart[],
    atMs: number,
  ): void {
    this.restatementStmts ??= {
      keep: this.db.prepare(`INSERT OR IGNORE INTO file_versions (dataset, tradedate, symbol, path, rows, first_time_ms, last_time_ms,
        bytes, sha256, row_group_size, minute_base, minute_counts, sealed_at_ms, version)
        SELECT dataset, tradedate, symbol, path, rows, first_time_ms, last_time_ms, bytes, sha256, row_group_size, minute_base,
          minute_counts, sealed_at_ms, version FROM files WHERE dataset = ? AND tradedate = ? AND symbol = ?`),
      // A symbol the sealed day lacked gets its first row here.
      replace: this.db.prepare(`INSERT OR REPLACE INTO files (path, rows, first_time_ms, last_time_ms, bytes, sha256, row_group_size,
        minute_base, minute_counts, sealed_at_ms, version, dataset, tradedate, symbol) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      dropPart: this.db.prepare('DELETE FROM boundary_parts WHERE dataset = ? AND tradedate = ? AND path = ?'),
      keepPart: this.db.prepare('INSERT OR IGNORE INTO replaced_parts (dataset, tradedate, path) VALUES (?, ?, ?)'),
      bump: this.db.prepare(`INSERT INTO restated_days (dataset, tradedate, generation) VALUES (?, ?, 1)
        ON CONFLICT (dataset, tradedate) DO UPDATE SET generation = generation + 1`),
    };
    const q = this.restatementStmts;
    this.db.transaction(() => {
      for (const f of files) {
        q.keep.run(dataset, tradedate, f.symbol);
        q.replace.run(
          f.relPath,
          f.rows,
          f.firstTimeMs,
          f.lastTimeMs,
          f.bytes,
          f.sha256,
          rowGroupSize,
          f.minuteBase,
          Buffer.from(f.minuteCounts),
          atMs,
          f.version,
          dataset,
          tradedate,
          f.symbol,
        );
      }
      for (const p of droppedParts) {
        q.dropPart.run(dataset, tradedate, p);
        q.keepPart.run(dataset, tradedate, p);
      }
      for (const p of newParts) this.recordBoundaryPart(dataset, tradedate, p, atMs);
      q.bump.run(dataset, tradedate);
    })();
  }

  /**
   * Forgets the versions no longer current of the days in [from, to] (of `dataset`, or every
   * dataset) and the boundary parts restatements replaced, in one transaction, and returns
   * their paths for the caller to delete. A current version is never among them: only
   * file_versions rows are removed, and none whose path a current row names.
   */
  forgetOldVersions(dataset: Dataset | null, from: string, to: string): { readonly dataset: Dataset; readonly tradedate: string; readonly path: string }[] {
    const scope = `FROM file_versions WHERE (@dataset IS NULL OR dataset = @dataset) AND tradedate BETWEEN @from AND @to
      AND path NOT IN (SELECT path FROM files)`;
    // Replaced parts go with them, unless a later restatement listed the same bytes again.
    const parts = `FROM replaced_parts WHERE (@dataset IS NULL OR dataset = @dataset) AND tradedate BETWEEN @from AND @to
      AND path NOT IN (SELECT path FROM boundary_parts)`;
    const args = { dataset, from, to };
    return this.db.transaction(() => {
      const rows = this.db.prepare(`SELECT dataset, tradedate, path ${scope} UNION ALL SELECT dataset, tradedate, path ${parts} ORDER BY path`).all(args) as {
        dataset: Dataset;
        tradedate: string;
        path: string;
      }[];
      this.db.prepare(`DELETE ${scope}`).run(args);
      this.db.prepare(`DELETE FROM replaced_parts WHERE (@dataset IS NULL OR dataset = @dataset) AND tradedate BETWEEN @from AND @to`).run(args);
      return rows;
    })();
  }

  /** Marks a day sealed and, when it has files, records it as a trading day in the calendar. */
  markDaySealed(dataset: Dataset, tradedate: string, atMs: number): void {
    this.db.transaction(() => {
      this.insertSealedDay.run(dataset, tradedate, atMs);
      if (this.anyFile.get(dataset, tradedate)) this.insertCalendarDay.run(tradedate);
    })();
  }
}
