/**
 * Reading the quarantine back (`tickvault quarantine`): the rows import, replay, Kafka ingest
 * and seal put in ingest.db's `quarantine` table (ingest/staging/segments.ts writes it),
 * filtered by where they came from, why, and the days they were quarantined; or their counts
 * by reason. Read only, over any handle on ingest.db, so that a running ingestor is never
 * disturbed.
 */
import type { Db } from '../../shared/sqlite.js';
import { beijingDayStartMs } from '../../shared/clock.js';

export interface QuarantineFilter {
  /** A glob (`*` any run of characters, `?` one) matched against the source's file. */
  readonly source?: string;
  /** Text the reason contains, in any case. */
  readonly reason?: string;
  /** First and last day (YYYYMMDD, Beijing) on which rows were quarantined. */
  readonly from?: string;
  readonly to?: string;
}

export interface QuarantinedRow {
  readonly id: number;
  readonly atMs: number;
  readonly source: string;
  readonly reason: string;
  readonly raw: string;
}

const DAY_MS = 86_400_000;

/**
 * A source's file: the source without its `:LINE` (CSV, feed files) or `#ROW` (Parquet); a
 * Kafka source (`topic/partition@offset`) is its own.
 */
export function sourceFile(source: string): string {
  const m = /[:#]\d+$/.exec(source);
  return m === null ? source : source.slice(0, m.index);
}

/**
 * Whether a source's file matches a glob: the whole path, or its end from a `/` on, so that
 * `trades_20250102.csv` or `2025/*.csv` find a file however its path was given to import.
 */
export function sourceMatcher(glob: string): (source: string) => boolean {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  const re = new RegExp(`^(?:.*/)?${body}$`, 's');
  return (source) => re.test(sourceFile(source));
}

/** The WHERE clause and its parameters for a filter; the source glob as a function of `db`. */
function where(db: Db, f: QuarantineFilter): { readonly sql: string; readonly params: unknown[] } {
  const terms: string[] = [];
  const params: unknown[] = [];
  if (f.source !== undefined) {
    const matches = sourceMatcher(f.source);
    db.function('tv_source_matches', { deterministic: true }, (s: unknown) => (matches(String(s)) ? 1 : 0));
    terms.push('tv_source_matches(source)');
  }
  if (f.reason !== undefined) {
    terms.push('instr(lower(reason), ?) > 0');
    params.push(f.reason.toLowerCase());
  }
  if (f.from !== undefined) {
    terms.push('at_ms >= ?');
    params.push(beijingDayStartMs(f.from));
  }
  if (f.to !== undefined) {
    terms.push('at_ms < ?');
    params.push(beijingDayStartMs(f.to) + DAY_MS);
  }
  return { sql: terms.length === 0 ? '' : `WHERE ${terms.join(' AND ')}`, params };
}

/** The rows a filter selects, in the order they were quarantined (a file's in line order). */
export function* quarantinedRows(db: Db, f: QuarantineFilter): Generator<QuarantinedRow> {
  const w = where(db, f);
  const stmt = db.prepare(`SELECT id, at_ms AS atMs, source, reason, raw FROM quarantine ${w.sql} ORDER BY id`);
  yield* stmt.iterate(...w.params) as IterableIterator<QuarantinedRow>;
}

/** How many rows a filter selects, by reason: the most frequent first. */
export function quarantineCounts(db: Db, f: QuarantineFilter): { readonly reason: string; readonly rows: number }[] {
  const w = where(db, f);
  return db.prepare(`SELECT reason, count(*) AS rows FROM quarantine ${w.sql} GROUP BY reason ORDER BY rows DESC, reason`).all(...w.params) as {
    reason: string;
    rows: number;
  }[];
}
