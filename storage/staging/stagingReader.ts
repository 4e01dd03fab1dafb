/**
 * Staging as the lake's readers see it: the tables of ingest.db and the segment files they
 * list (ingest/staging/segments.ts, the one writer, explains the format). Part of the lake's
 * contract below ingest/ and serve/: the seal reads staged days through it, `tickvault days`
 * and the server's /metrics read it read only, and the live day will.
 *
 * Only what a committed length covers is read: bytes past it are an append in progress (or
 * one a crash cut short) and are not there yet.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from '../../shared/sqlite.js';
import type { Dataset } from '../../shared/schema.js';
import { recordBytes, TIME_OFFSET } from './recordCodec.js';
import { readStagedBucket, segmentsOf, type StagedSymbolDay } from './bucketRead.js';
import { lateDayOf, lateReasonLike } from './lateReason.js';

export const BUCKETS = 256;

export const STAGING_SCHEMA = `
CREATE TABLE IF NOT EXISTS quarantine (
  id INTEGER PRIMARY KEY,
  at_ms INTEGER NOT NULL,
  source TEXT NOT NULL,           -- file:line or topic/partition@offset
  reason TEXT NOT NULL,
  raw TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS quarantine_source ON quarantine(source);
CREATE TABLE IF NOT EXISTS writers (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  pid INTEGER NOT NULL,
  started_at_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS segments (
  dataset TEXT NOT NULL, tradedate TEXT NOT NULL, bucket INTEGER NOT NULL, writer INTEGER NOT NULL,
  path TEXT NOT NULL,              -- relative to the data directory
  committed_bytes INTEGER NOT NULL,
  PRIMARY KEY (dataset, tradedate, bucket, writer)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS open_symbols (
  dataset TEXT NOT NULL, tradedate TEXT NOT NULL, symbol TEXT NOT NULL,
  PRIMARY KEY (dataset, tradedate, symbol)
) WITHOUT ROWID;
`;

/** FNV-1a of the symbol: stable across processes and restarts. */
export function bucketOf(symbol: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < symbol.length; i++) h = Math.imul(h ^ symbol.charCodeAt(i), 0x01000193);
  return (h >>> 0) % BUCKETS;
}

export interface OpenDay {
  readonly dataset: Dataset;
  readonly tradedate: string;
}

/** A staged (not sealed) dataset-day: its open symbols and committed records (duplicates not resolved yet). */
export interface StagedDay {
  readonly dataset: Dataset;
  readonly tradedate: string;
  readonly symbols: number;
  readonly records: number;
}

/** A segment file and how much of it is staged. */
export interface StagedSegment {
  /** Relative to the data directory. */
  readonly path: string;
  readonly dataset: string;
  readonly tradedate: string;
  /** Bytes past this are not staged yet: only these are read (or copied). */
  readonly committedBytes: number;
}

export class StagingReader {
  constructor(
    readonly db: Db,
    protected readonly dataDir: string,
  ) {}

  /**
   * Late messages waiting in quarantine (reason `late: DATASET DAY SYMBOL is already sealed`),
   * by `dataset|tradedate`. Static, over any handle on ingest.db: `tickvault days` reads it
   * read only, without registering a writer.
   */
  static lateCounts(db: Db): Map<string, number> {
    const rows = db.prepare('SELECT reason, count(*) AS n FROM quarantine WHERE reason LIKE ? GROUP BY reason').all(lateReasonLike()) as {
      reason: string;
      n: number;
    }[];
    const out = new Map<string, number>();
    for (const { reason, n } of rows) {
      const key = lateDayOf(reason);
      out.set(key, (out.get(key) ?? 0) + n);
    }
    return out;
  }

  /**
   * Staged (not sealed) dataset-days with their open symbols and committed records (duplicates
   * not resolved yet), by date. Static for the same reason as lateCounts().
   */
  static stagedDays(db: Db): StagedDay[] {
    const rows = db
      .prepare(
        `SELECT o.dataset, o.tradedate, o.symbols, coalesce(s.bytes, 0) AS bytes
      FROM (SELECT dataset, tradedate, count(*) AS symbols FROM open_symbols GROUP BY dataset, tradedate) o
      LEFT JOIN (SELECT dataset, tradedate, sum(committed_bytes) AS bytes FROM segments GROUP BY dataset, tradedate) s
        USING (dataset, tradedate)
      ORDER BY o.tradedate, o.dataset`,
      )
      .all() as { dataset: Dataset; tradedate: string; symbols: number; bytes: number }[];
    return rows.map((r) => ({ dataset: r.dataset, tradedate: r.tradedate, symbols: r.symbols, records: Math.floor(r.bytes / recordBytes(r.dataset)) }));
  }

  /** Every segment file listed, by path (none when ingest.db has no staging tables yet). Static for the same reason as lateCounts(). */
  static segments(db: Db): StagedSegment[] {
    const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'segments'").get();
    if (!has) return [];
    return db.prepare('SELECT path, dataset, tradedate, committed_bytes AS committedBytes FROM segments ORDER BY path').all() as StagedSegment[];
  }

  /**
   * The time (ms since 00:00 Beijing) of the newest committed row of a staged dataset-day, or
   * null when none is committed: the last whole record each segment's committed length covers,
   * one pread each, the latest of them. A segment is appended in arrival order, so its last
   * record is taken as its newest (a late row that arrived last, with an earlier time, makes
   * the day look older than it is). Static for the same reason as lateCounts(); a segment
   * gone since the query (its day sealed meanwhile) counts as none.
   */
  static newestStagedTimeMs(db: Db, dataDir: string, dataset: Dataset, tradedate: string): number | null {
    const size = recordBytes(dataset);
    const segments = segmentsOf(db, dataset, tradedate);
    const time = Buffer.alloc(4);
    let newest: number | null = null;
    for (const { path, bytes } of segments) {
      const records = Math.floor(bytes / size);
      if (records === 0) continue;
      let fd: number;
      try {
        fd = openSync(join(dataDir, path), 'r');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw e;
      }
      try {
        if (readSync(fd, time, 0, 4, (records - 1) * size + TIME_OFFSET) < 4) continue;
      } finally {
        closeSync(fd);
      }
      const ms = time.readInt32LE(0);
      if (newest === null || ms > newest) newest = ms;
    }
    return newest;
  }

  openDays(): OpenDay[] {
    return this.db.prepare('SELECT DISTINCT dataset, tradedate FROM open_symbols ORDER BY tradedate, dataset').all() as OpenDay[];
  }

  symbolsOf(dataset: Dataset, tradedate: string): string[] {
    return this.db.prepare('SELECT symbol FROM open_symbols WHERE dataset = ? AND tradedate = ? ORDER BY symbol').pluck().all(dataset, tradedate) as string[];
  }

  /** Buckets holding at least one of `symbols`, each with its symbols, in bucket order. */
  bucketsOf(symbols: readonly string[]): Map<number, Set<string>> {
    const byBucket = new Map<number, Set<string>>();
    for (const s of symbols) {
      const b = bucketOf(s);
      let set = byBucket.get(b);
      if (!set) byBucket.set(b, (set = new Set()));
      set.add(s);
    }
    return new Map([...byBucket.entries()].sort((a, b) => a[0] - b[0]));
  }

  /**
   * Yields the staged symbol-days of one bucket, restricted to `symbols`, each sorted by time
   * with duplicates resolved to the highest order (the later arrival).
   */
  readBucket(dataset: Dataset, tradedate: string, bucket: number, symbols: ReadonlySet<string>): Generator<StagedSymbolDay> {
    return readStagedBucket(this.db, this.dataDir, dataset, tradedate, bucket, symbols);
  }

  /** Whether the dataset-day has staged rows not sealed yet: a live day (api-contract: The live day). */
  hasStaged(dataset: Dataset, tradedate: string): boolean {
    return this.db.prepare('SELECT 1 FROM open_symbols WHERE dataset = ? AND tradedate = ? LIMIT 1').get(dataset, tradedate) !== undefined;
  }

  /**
   * Late messages of a sealed dataset-day waiting in quarantine, in arrival order: what
   * `restate --from-quarantine` takes in (their reason is the one every ingest path writes).
   */
  lateEntries(dataset: Dataset, tradedate: string): { readonly id: number; readonly source: string; readonly raw: string }[] {
    return this.db.prepare('SELECT id, source, raw FROM quarantine WHERE reason LIKE ? ORDER BY id').all(lateReasonLike(dataset, tradedate)) as {
      id: number;
      source: string;
      raw: string;
    }[];
  }
}
