import { openDb, type Db } from '../shared/sqlite.js';
import { SCHEMAS, type Dataset, type SnapshotRow } from '../shared/schema.js';

/**
 * Durable staging of snapshots for days not sealed yet (ingest.db).
 *
 * Rows are appended, unindexed, to one of BUCKETS tables chosen by a hash of the symbol:
 * appends run several times faster than inserts into a keyed B-tree (measured 373k vs 54k
 * rows/s), and a bucket holds a small slice of a day, so sealing reads one bucket at a time,
 * sorted by (symbol, time, arrival), and keeps the last arrival of each key (later wins).
 * Memory at seal is bounded by one symbol-day, whatever the size of the day.
 */
export const BUCKETS = 256;

function bucketTable(b: number): string {
  return `staged_${String(b).padStart(3, '0')}`;
}

export const STAGING_SCHEMA = [
  `CREATE TABLE IF NOT EXISTS quarantine (
    id INTEGER PRIMARY KEY,
    at_ms INTEGER NOT NULL,
    source TEXT NOT NULL,           -- file:line or topic/partition@offset
    reason TEXT NOT NULL,
    raw TEXT NOT NULL
  );`,
  // Which symbols of which days have staged rows: keeps "what is open" cheap to answer.
  `CREATE TABLE IF NOT EXISTS open_symbols (
    dataset TEXT NOT NULL, tradedate TEXT NOT NULL, symbol TEXT NOT NULL,
    PRIMARY KEY (dataset, tradedate, symbol)
  ) WITHOUT ROWID;`,
  ...Array.from(
    { length: BUCKETS },
    (_, b) => `CREATE TABLE IF NOT EXISTS ${bucketTable(b)} (
      dataset TEXT NOT NULL, tradedate TEXT NOT NULL, symbol TEXT NOT NULL,
      time_ms INTEGER NOT NULL, vals BLOB NOT NULL);`,
  ),
].join('\n');

/** FNV-1a of the symbol: stable across processes and restarts. */
export function bucketOf(symbol: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < symbol.length; i++) h = Math.imul(h ^ symbol.charCodeAt(i), 0x01000193);
  return (h >>> 0) % BUCKETS;
}

export interface QuarantineEntry {
  readonly source: string;
  readonly reason: string;
  readonly raw: string;
}

/** One symbol-day's staged rows in columnar form, sorted by time, one row per time. */
export interface StagedSymbolDay {
  readonly symbol: string;
  readonly rows: number;
  readonly timesMs: Int32Array;
  /** One array per numeric field of the dataset's schema; NaN = null. */
  readonly values: Float64Array[];
}

export interface OpenDay {
  readonly dataset: Dataset;
  readonly tradedate: string;
}

/** Quarantined raw text is capped: a runaway message must not bloat the database. */
const MAX_RAW = 64 * 1024;

export class Staging {
  private readonly inserts;
  private readonly insertOpen;
  private readonly insertQuarantine;
  private readonly writeBatch;
  /** Open (dataset|day|symbol) keys already recorded, to skip redundant statements. */
  private readonly knownOpen = new Set<string>();

  constructor(readonly db: Db, private readonly nowMs: () => number) {
    db.pragma('cache_size = -65536');
    this.inserts = Array.from({ length: BUCKETS }, (_, b) =>
      db.prepare(`INSERT INTO ${bucketTable(b)} (dataset, tradedate, symbol, time_ms, vals) VALUES (?, ?, ?, ?, ?)`),
    );
    this.insertOpen = db.prepare('INSERT OR IGNORE INTO open_symbols (dataset, tradedate, symbol) VALUES (?, ?, ?)');
    this.insertQuarantine = db.prepare('INSERT INTO quarantine (at_ms, source, reason, raw) VALUES (?, ?, ?, ?)');
    this.writeBatch = db.transaction(
      (rows: readonly SnapshotRow[], rejects: readonly QuarantineEntry[], after?: () => void) => {
        for (const r of rows) {
          const key = `${r.dataset}|${r.tradedate}|${r.symbol}`;
          if (!this.knownOpen.has(key)) {
            this.insertOpen.run(r.dataset, r.tradedate, r.symbol);
            this.knownOpen.add(key);
          }
          this.inserts[bucketOf(r.symbol)].run(r.dataset, r.tradedate, r.symbol, r.timeMs, encodeValues(r.values));
        }
        const at = this.nowMs();
        for (const q of rejects) this.insertQuarantine.run(at, q.source, q.reason, q.raw.slice(0, MAX_RAW));
        after?.();
      },
    );
  }

  static open(path: string, nowMs: () => number): Staging {
    return new Staging(openDb(path, { schema: STAGING_SCHEMA }), nowMs);
  }

  /**
   * Stages rows and quarantines rejects in one transaction; `after` runs inside it (e.g. to
   * record consumer progress atomically with the rows it covers). Durable on return.
   */
  stage(rows: readonly SnapshotRow[], rejects: readonly QuarantineEntry[], after?: () => void): void {
    if (rows.length === 0 && rejects.length === 0 && !after) return;
    this.writeBatch(rows, rejects, after);
  }

  openDays(): OpenDay[] {
    return this.db
      .prepare('SELECT DISTINCT dataset, tradedate FROM open_symbols ORDER BY tradedate, dataset')
      .all() as OpenDay[];
  }

  symbolsOf(dataset: Dataset, tradedate: string): string[] {
    return this.db
      .prepare('SELECT symbol FROM open_symbols WHERE dataset = ? AND tradedate = ? ORDER BY symbol')
      .pluck()
      .all(dataset, tradedate) as string[];
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
   * with duplicates resolved to the last arrival. SQLite's sorter spills to disk if needed.
   */
  *readBucket(dataset: Dataset, tradedate: string, bucket: number, symbols: ReadonlySet<string>): Generator<StagedSymbolDay> {
    const width = SCHEMAS[dataset].numericFields.length;
    const iter = this.db
      .prepare(
        `SELECT symbol, time_ms, vals FROM ${bucketTable(bucket)}
         WHERE dataset = ? AND tradedate = ? ORDER BY symbol, time_ms, rowid`,
      )
      .raw(true)
      .iterate(dataset, tradedate) as IterableIterator<[string, number, Buffer]>;
    let symbol = '';
    let times: number[] = [];
    let blobs: Buffer[] = [];
    const flush = (): StagedSymbolDay => toColumns(symbol, times, blobs, width);
    for (const [sym, t, blob] of iter) {
      if (sym !== symbol) {
        if (times.length > 0 && symbols.has(symbol)) yield flush();
        symbol = sym;
        times = [];
        blobs = [];
      }
      if (!symbols.has(sym)) continue;
      if (times.length > 0 && times[times.length - 1] === t) {
        blobs[blobs.length - 1] = blob; // same key: the later arrival wins
      } else {
        times.push(t);
        blobs.push(blob);
      }
    }
    if (times.length > 0 && symbols.has(symbol)) yield flush();
  }

  /** Forgets the staged rows of sealed symbols of a day. */
  drop(dataset: Dataset, tradedate: string, symbols: readonly string[]): void {
    const tx = this.db.transaction(() => {
      for (const [b, set] of this.bucketsOf(symbols)) {
        const del = this.db.prepare(`DELETE FROM ${bucketTable(b)} WHERE dataset = ? AND tradedate = ? AND symbol = ?`);
        for (const s of set) del.run(dataset, tradedate, s);
      }
      const delOpen = this.db.prepare('DELETE FROM open_symbols WHERE dataset = ? AND tradedate = ? AND symbol = ?');
      for (const s of symbols) {
        delOpen.run(dataset, tradedate, s);
        this.knownOpen.delete(`${dataset}|${tradedate}|${s}`);
      }
    });
    tx();
  }

  quarantineCount(): number {
    return this.db.prepare('SELECT count(*) FROM quarantine').pluck().get() as number;
  }

  close(): void {
    this.db.close();
  }
}

function toColumns(symbol: string, times: number[], blobs: Buffer[], width: number): StagedSymbolDay {
  const n = times.length;
  const timesMs = Int32Array.from(times);
  const values = Array.from({ length: width }, () => new Float64Array(n));
  for (let i = 0; i < n; i++) {
    const blob = blobs[i];
    for (let j = 0; j < width; j++) values[j][i] = blob.readDoubleLE(j * 8);
  }
  return { symbol, rows: n, timesMs, values };
}

export function encodeValues(values: readonly (number | null)[]): Buffer {
  const buf = Buffer.allocUnsafe(values.length * 8);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    buf.writeDoubleLE(v === null ? NaN : v, i * 8);
  }
  return buf;
}
