/**
 * What a backup copies besides the SQLite files, read from their snapshots (never from the
 * live files, which may have moved on): the immutable files the catalog lists, and the staging
 * segments ingest.db lists with their committed lengths.
 */
import Database from 'better-sqlite3';

export interface ListedFile {
  /** Relative to the data directory. */
  readonly path: string;
  /** The catalog's SHA-256, or null for a table that lists paths without one (replaced boundary parts). */
  readonly sha256: string | null;
}

/**
 * Every file the catalog snapshot lists: each table with a `path` column names files of the
 * lake (sealed files, their earlier versions, boundary parts, replaced parts), with `sha256`
 * where the catalog vouches for the bytes. Found by those columns rather than by table name,
 * so a new kind of listed file is backed up without this module learning of it.
 */
export function catalogFiles(catalogSnapshot: string): ListedFile[] {
  const db = new Database(catalogSnapshot, { readonly: true, fileMustExist: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[];
    const byPath = new Map<string, string | null>();
    for (const table of tables) {
      const cols = new Set((db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table) as string[]));
      if (!cols.has('path')) continue;
      const rows = db.prepare(`SELECT path, ${cols.has('sha256') ? 'sha256' : 'NULL'} AS sha256 FROM "${table.replace(/"/g, '""')}"`).all() as ListedFile[];
      // A path listed with a digest anywhere is checked against it.
      for (const r of rows) if (!byPath.has(r.path) || r.sha256 !== null) byPath.set(r.path, r.sha256);
    }
    return [...byPath].map(([path, sha256]) => ({ path, sha256 })).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  } finally {
    db.close();
  }
}

/** The days the catalog snapshot holds as sealed, as `dataset|YYYYMMDD`. */
export function sealedDays(catalogSnapshot: string): Set<string> {
  const db = new Database(catalogSnapshot, { readonly: true, fileMustExist: true });
  try {
    return new Set(db.prepare("SELECT dataset || '|' || tradedate FROM sealed_days").pluck().all() as string[]);
  } finally {
    db.close();
  }
}

export interface StagedSegment {
  readonly path: string;
  readonly dataset: string;
  readonly tradedate: string;
  /** Bytes past this are not staged yet (storage/staging/stagingReader.ts): only these are copied. */
  readonly committedBytes: number;
}

/** The staging segments ingest.db's snapshot lists (none when it has no staging table yet). */
export function stagedSegments(ingestSnapshot: string): StagedSegment[] {
  const db = new Database(ingestSnapshot, { readonly: true, fileMustExist: true });
  try {
    const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'segments'").get();
    if (!has) return [];
    return db.prepare('SELECT path, dataset, tradedate, committed_bytes AS committedBytes FROM segments ORDER BY path').all() as StagedSegment[];
  } finally {
    db.close();
  }
}
