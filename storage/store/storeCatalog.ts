/**
 * The store's tables in catalog.db (created with the rest, catalog.ts): which days wait for an
 * upload, which files the bucket holds verified, which days are wholly there. The only SQL of
 * the store. A day is due from its first listing (triggers on files, boundary parts, bar days
 * and sealed days count each change in store_due, in the listing's own transaction), and also
 * when it was sealed before the lake had a store (sealed, never stored).
 */
import type { Statement } from 'better-sqlite3';
import type { Db } from '../../shared/sqlite.js';

/** A day due for the store and the change count seen when it was picked. */
export interface DueDay {
  readonly tradedate: string;
  /** store_due.changes when picked (0: sealed before the store, never counted). */
  readonly changes: number;
}

/** A file of a day that belongs in the store. */
export interface DayObject {
  /** Catalog path: the object's key under the store's prefix. */
  readonly key: string;
  /** The catalog's SHA-256; null for a file the catalog does not vouch for (row text: its header names its source). */
  readonly sha256: string | null;
}

/** A file the store holds, verified. */
export interface StoredObject {
  readonly key: string;
  readonly bytes: number;
  readonly sha256: string;
  readonly blocks: Buffer;
}

export interface StoredDay {
  readonly tradedate: string;
  readonly objects: number;
  readonly bytes: number;
  readonly manifestSha256: string;
  readonly storedAtMs: number;
}

/**
 * Catalog tables that hold a day's facts by a `tradedate` column, but for the store's own and
 * bars' marks: offloaded_days is where this host keeps its files, not a fact of the day.
 */
const NOT_MANIFEST = new Set(['store_due', 'stored_days', 'offloaded_days', 'bar_stale']);

export class StoreCatalog {
  private readonly storedStmt: Statement;
  private readonly recordStmt: Statement;

  constructor(readonly db: Db) {
    this.storedStmt = db.prepare('SELECT key, bytes, sha256, blocks FROM stored_objects WHERE key = ?');
    this.recordStmt = db.prepare('INSERT OR REPLACE INTO stored_objects (key, bytes, sha256, blocks, stored_at_ms) VALUES (?, ?, ?, ?, ?)');
  }

  /** Days with something not yet in the store, oldest first. */
  dueDays(): DueDay[] {
    return this.db
      .prepare(
        `SELECT tradedate, max(changes) AS changes FROM (
           SELECT tradedate, changes FROM store_due
           UNION ALL SELECT DISTINCT tradedate, 0 FROM sealed_days WHERE tradedate NOT IN (SELECT tradedate FROM stored_days)
         ) GROUP BY tradedate ORDER BY tradedate`,
      )
      .all() as DueDay[];
  }

  /**
   * Every file of the day the store should hold: the current and earlier versions of its
   * symbol-days, its boundary parts and its bar files, with the catalog's SHA-256 of each.
   */
  dayObjects(tradedate: string): DayObject[] {
    const rows = this.db
      .prepare(
        `SELECT path AS key, sha256 FROM files WHERE tradedate = @d
         UNION SELECT path, sha256 FROM file_versions WHERE tradedate = @d
         UNION SELECT path, sha256 FROM boundary_parts WHERE tradedate = @d
         UNION SELECT minute_path, minute_sha256 FROM bar_days WHERE tradedate = @d AND minute_path IS NOT NULL
         UNION SELECT daily_path, daily_sha256 FROM bar_days WHERE tradedate = @d AND daily_path IS NOT NULL
         ORDER BY 1`,
      )
      .all({ d: tradedate }) as DayObject[];
    return rows;
  }

  /** The current files' paths of a day (their row text may be in the store too). */
  dayFilePaths(tradedate: string): string[] {
    return this.db.prepare('SELECT path FROM files WHERE tradedate = ? ORDER BY path').pluck().all(tradedate) as string[];
  }

  stored(key: string): StoredObject | null {
    return (this.storedStmt.get(key) as StoredObject | undefined) ?? null;
  }

  recordStored(o: StoredObject, atMs: number): void {
    this.recordStmt.run(o.key, o.bytes, o.sha256, o.blocks, atMs);
  }

  /**
   * Marks the day wholly stored, unless a listing changed it since it was picked (its changes
   * moved): then it stays due for the next pass. Returns whether it was marked.
   */
  finishDay(due: DueDay, facts: Omit<StoredDay, 'tradedate'>): boolean {
    return this.db.transaction(() => {
      const now = (this.db.prepare('SELECT changes FROM store_due WHERE tradedate = ?').pluck().get(due.tradedate) as number | undefined) ?? 0;
      if (now !== due.changes) return false;
      this.db.prepare('DELETE FROM store_due WHERE tradedate = ?').run(due.tradedate);
      this.db
        .prepare('INSERT OR REPLACE INTO stored_days (tradedate, objects, bytes, manifest_sha256, stored_at_ms) VALUES (?, ?, ?, ?, ?)')
        .run(due.tradedate, facts.objects, facts.bytes, facts.manifestSha256, facts.storedAtMs);
      return true;
    })();
  }

  /**
   * The day's rows of every catalog table with a `tradedate` column (but the store's and bars'
   * own marks), by table: what a manifest carries so that another host can list the day.
   * Found by column, as listedFiles finds files, so a new table of day facts travels too.
   */
  dayRows(tradedate: string): Record<string, Record<string, unknown>[]> {
    const out: Record<string, Record<string, unknown>[]> = {};
    for (const table of catalogDayTables(this.db)) {
      out[table] = this.db.prepare(`SELECT * FROM "${table}" WHERE tradedate = ?`).all(tradedate) as Record<string, unknown>[];
    }
    return out;
  }
}

/** Tables of catalog.db with a `tradedate` column, by name, but the marks no other host needs. */
export function catalogDayTables(db: Db): string[] {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[];
  return tables.filter((t) => !NOT_MANIFEST.has(t) && (db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(t) as string[]).includes('tradedate'));
}

/** Stored days, for `tickvault days`; empty for a catalog made before the store (read only). */
export function daysInStore(db: Db): Map<string, StoredDay> {
  if (!hasTable(db, 'stored_days')) return new Map();
  const rows = db
    .prepare(
      `SELECT tradedate, objects, bytes, manifest_sha256 AS manifestSha256, stored_at_ms AS storedAtMs FROM stored_days
       WHERE tradedate NOT IN (SELECT tradedate FROM store_due)`,
    )
    .all() as StoredDay[];
  return new Map(rows.map((r) => [r.tradedate, r]));
}

/** Whether the catalog has `table` (a read-only catalog made before it has not). */
function hasTable(db: Db, table: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined;
}

/**
 * Days whose local copies `tickvault offload` removed (served from the store): the local checks
 * (doctor, backup, row text, bars) leave their files alone. Empty for a catalog without the
 * table (read only, made before offload).
 */
export function offloadedDays(db: Db): Set<string> {
  if (!hasTable(db, 'offloaded_days')) return new Set();
  return new Set(db.prepare('SELECT tradedate FROM offloaded_days').pluck().all() as string[]);
}

/**
 * Marks a day offloaded, in one transaction with the check that it is still wholly stored (a
 * listing since its objects were verified makes it due again: then it is not marked). Returns
 * whether it was marked. The caller removes the local files only after this commits.
 */
export function markOffloaded(db: Db, tradedate: string, atMs: number): boolean {
  return db.transaction(() => {
    const stored = db.prepare('SELECT 1 FROM stored_days WHERE tradedate = ?').get(tradedate) !== undefined;
    const due = db.prepare('SELECT 1 FROM store_due WHERE tradedate = ?').get(tradedate) !== undefined;
    if (!stored || due) return false;
    db.prepare('INSERT OR IGNORE INTO offloaded_days (tradedate, offloaded_at_ms) VALUES (?, ?)').run(tradedate, atMs);
    return true;
  })();
}

/** Days before `before` with any file listed (their Parquet, versions, boundary parts or bars), ascending. */
export function daysWithFilesBefore(db: Db, before: string): string[] {
  return db
    .prepare(
      `SELECT tradedate FROM files WHERE tradedate < @b
       UNION SELECT tradedate FROM file_versions WHERE tradedate < @b
       UNION SELECT tradedate FROM boundary_parts WHERE tradedate < @b
       UNION SELECT tradedate FROM bar_days WHERE tradedate < @b
       ORDER BY 1`,
    )
    .pluck()
    .all({ b: before }) as string[];
}

/** The row text the store holds for a day's files (recorded at upload: stored_objects under `_rowtext/`). */
export function storedRowText(db: Db, tradedate: string): StoredObject[] {
  return db
    .prepare("SELECT key, bytes, sha256, blocks FROM stored_objects WHERE key LIKE '\\_rowtext/%' ESCAPE '\\' AND key LIKE ? ORDER BY key")
    .all(`%/date=${tradedate}/%`) as StoredObject[];
}

/**
 * The store's record of a file by its catalog path, for a server reading offloaded files (on a
 * read-only catalog: a catalog made before the store has no table until its next seal).
 */
export function storedObjectLookup(db: Db): (key: string) => StoredObject | null {
  let stmt: Statement | null = null;
  return (key) => {
    if (stmt === null) {
      if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'stored_objects'").get() === undefined) return null;
      stmt = db.prepare('SELECT key, bytes, sha256, blocks FROM stored_objects WHERE key = ?');
    }
    return (stmt.get(key) as StoredObject | undefined) ?? null;
  };
}
