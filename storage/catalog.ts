import { openDb, type Db } from '../shared/sqlite.js';
import type { Dataset } from '../shared/schema.js';
import { decodeMinuteCounts, type MinuteIndex } from './minuteIndex.js';

/**
 * The catalog of sealed files (catalog.db). Sealing is its only writer; servers open it read
 * only. A file is visible to queries exactly when its row is here, so the row is inserted only
 * after the file is durably in place.
 */
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
  PRIMARY KEY (dataset, tradedate, symbol)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sealed_days (
  dataset TEXT NOT NULL,
  tradedate TEXT NOT NULL,
  sealed_at_ms INTEGER NOT NULL,
  PRIMARY KEY (dataset, tradedate)
) WITHOUT ROWID;
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
}

interface FileRow {
  dataset: Dataset; tradedate: string; symbol: string; path: string; rows: number;
  first_time_ms: number; last_time_ms: number; bytes: number; sha256: string;
  row_group_size: number; minute_base: number; minute_counts: Buffer; sealed_at_ms: number;
}

export function fileFromRow(r: FileRow): CatalogFile {
  return {
    dataset: r.dataset, tradedate: r.tradedate, symbol: r.symbol, path: r.path, rows: r.rows,
    firstTimeMs: r.first_time_ms, lastTimeMs: r.last_time_ms, bytes: r.bytes, sha256: r.sha256,
    rowGroupSize: r.row_group_size,
    minuteIndex: { base: r.minute_base, counts: decodeMinuteCounts(r.minute_counts) },
    sealedAtMs: r.sealed_at_ms,
  };
}

export function openCatalog(path: string, readonly = false): Db {
  return openDb(path, { readonly, schema: CATALOG_SCHEMA });
}

/** Typed read queries over the catalog, prepared once. */
export class CatalogReader {
  private readonly getFile;
  private readonly dayFiles;
  private readonly sealedDay;
  private readonly allFiles;

  constructor(readonly db: Db) {
    this.getFile = db.prepare('SELECT * FROM files WHERE dataset = ? AND tradedate = ? AND symbol = ?');
    this.dayFiles = db.prepare('SELECT * FROM files WHERE dataset = ? AND tradedate = ? ORDER BY symbol');
    this.sealedDay = db.prepare('SELECT 1 FROM sealed_days WHERE dataset = ? AND tradedate = ?');
    this.allFiles = db.prepare('SELECT * FROM files ORDER BY dataset, tradedate, symbol');
  }

  file(dataset: Dataset, tradedate: string, symbol: string): CatalogFile | null {
    const r = this.getFile.get(dataset, tradedate, symbol) as FileRow | undefined;
    return r ? fileFromRow(r) : null;
  }

  filesOfDay(dataset: Dataset, tradedate: string): CatalogFile[] {
    return (this.dayFiles.all(dataset, tradedate) as FileRow[]).map(fileFromRow);
  }

  isDaySealed(dataset: Dataset, tradedate: string): boolean {
    return this.sealedDay.get(dataset, tradedate) !== undefined;
  }

  *everyFile(): Generator<CatalogFile> {
    for (const r of this.allFiles.iterate() as IterableIterator<FileRow>) yield fileFromRow(r);
  }
}
