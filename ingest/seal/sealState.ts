/**
 * Which partition carried each staged symbol-day, and which partitions of a day have been
 * sealed, kept in ingest.db (shared by every ingest process of the group on this data
 * directory).
 *
 * Several processes share a topic's partitions; each seals the symbols of the partitions it
 * owns. A symbol-day belongs to the partition it arrived on (the lowest one, should a
 * producer ever have spread it), recorded when it is first staged, so ownership does not
 * depend on which partitioner the producer used; murmur2 of the symbol is the fallback for
 * rows staged without a record. Once a partition's symbols of a day are sealed, the partition
 * is recorded as sealed for that day: its later messages for the day are late. When every
 * partition of the topic is recorded, the day itself is marked sealed in the catalog.
 */
import type { Dataset } from '../../shared/schema.js';
import type { Db } from '../../shared/sqlite.js';
import type { LateGuard } from './lateGuard.js';
import type { OpenDay } from '../../storage/staging/stagingReader.js';

export const KAFKA_SEAL_STATE_SCHEMA = `
CREATE TABLE IF NOT EXISTS kafka_symbol_partitions (
  dataset TEXT NOT NULL, tradedate TEXT NOT NULL, symbol TEXT NOT NULL, partition INTEGER NOT NULL,
  PRIMARY KEY (dataset, tradedate, symbol, partition)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS kafka_sealed_partitions (
  dataset TEXT NOT NULL, tradedate TEXT NOT NULL, partition INTEGER NOT NULL, sealed_at_ms INTEGER NOT NULL,
  cut_offset INTEGER,                 -- the agreed seal cut (--state-url); null: every later message is late
  PRIMARY KEY (dataset, tradedate, partition)
) WITHOUT ROWID;
`;

/** Adds columns that later versions introduced to a table an earlier version created. */
function migrate(db: Db): void {
  const cols = db.prepare("SELECT name FROM pragma_table_info('kafka_sealed_partitions')").pluck().all() as string[];
  if (!cols.includes('cut_offset')) db.exec('ALTER TABLE kafka_sealed_partitions ADD COLUMN cut_offset INTEGER');
}

const key = (dataset: Dataset, tradedate: string, partition: number) => `${dataset}|${tradedate}|${partition}`;

export class KafkaSealState {
  /** (dataset|day|symbol|partition) already recorded by this process: skips redundant inserts. */
  private readonly noted = new Set<string>();
  private readonly insertSymbol;
  private readonly insertSealed;

  constructor(readonly db: Db) {
    db.exec(KAFKA_SEAL_STATE_SCHEMA);
    migrate(db);
    this.insertSymbol = db.prepare('INSERT OR IGNORE INTO kafka_symbol_partitions (dataset, tradedate, symbol, partition) VALUES (?, ?, ?, ?)');
    this.insertSealed = db.prepare(
      'INSERT OR IGNORE INTO kafka_sealed_partitions (dataset, tradedate, partition, sealed_at_ms, cut_offset) VALUES (?, ?, ?, ?, ?)',
    );
  }

  /** Records the partition a staged symbol-day came from; call inside the staging transaction. */
  noteSymbol(dataset: Dataset, tradedate: string, symbol: string, partition: number): void {
    const k = `${dataset}|${tradedate}|${symbol}|${partition}`;
    if (this.noted.has(k)) return;
    this.insertSymbol.run(dataset, tradedate, symbol, partition);
    this.noted.add(k);
  }

  /** After a rolled-back transaction the cache may name rows that are not there. */
  resetCache(): void {
    this.noted.clear();
  }

  /** Symbol → the (lowest) partition it was staged from, for one day. */
  symbolPartitions(dataset: Dataset, tradedate: string): Map<string, number> {
    const rows = this.db
      .prepare('SELECT symbol, min(partition) AS partition FROM kafka_symbol_partitions WHERE dataset = ? AND tradedate = ? GROUP BY symbol')
      .all(dataset, tradedate) as { symbol: string; partition: number }[];
    return new Map(rows.map((r) => [r.symbol, r.partition]));
  }

  sealedPartitions(dataset: Dataset, tradedate: string): Set<number> {
    return new Set(
      this.db.prepare('SELECT partition FROM kafka_sealed_partitions WHERE dataset = ? AND tradedate = ?').pluck().all(dataset, tradedate) as number[],
    );
  }

  /** `dataset|tradedate|partition` of every partition-day recorded sealed, with its cut (null: none). */
  sealedKeys(): Map<string, number | null> {
    const rows = this.db.prepare('SELECT dataset, tradedate, partition, cut_offset FROM kafka_sealed_partitions').all() as {
      dataset: Dataset;
      tradedate: string;
      partition: number;
      cut_offset: number | null;
    }[];
    return new Map(rows.map((r) => [key(r.dataset, r.tradedate, r.partition), r.cut_offset]));
  }

  /** Days some partition has been sealed for (the day itself may still be open). */
  daysInProgress(): OpenDay[] {
    return this.db.prepare('SELECT DISTINCT dataset, tradedate FROM kafka_sealed_partitions ORDER BY tradedate, dataset').all() as OpenDay[];
  }

  recordSealed(dataset: Dataset, tradedate: string, partition: number, atMs: number, cut: number | null = null): void {
    this.insertSealed.run(dataset, tradedate, partition, atMs, cut);
  }

  /** Forgets a day once the catalog marks it sealed: from then on the catalog answers. */
  forgetDay(dataset: Dataset, tradedate: string): void {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM kafka_symbol_partitions WHERE dataset = ? AND tradedate = ?').run(dataset, tradedate);
      this.db.prepare('DELETE FROM kafka_sealed_partitions WHERE dataset = ? AND tradedate = ?').run(dataset, tradedate);
    })();
    const prefix = `${dataset}|${tradedate}|`;
    for (const k of this.noted) if (k.startsWith(prefix)) this.noted.delete(k);
  }
}

/**
 * The ingest side's "is this message late?": its partition-day has a seal cut at or below the
 * message's offset, or the catalog says the day is sealed or the symbol-day already has a file.
 *
 * A cut is where a partition-day's seal begins. Alone, a site cuts at 0 — from its seal on,
 * every message of the partition-day is late. With --state-url the sites agree on one offset
 * (sealCuts.ts): a cut known from any site, whether or not this one has sealed yet, makes
 * exactly the messages at or above it late; below it they are staged, also after another
 * site sealed. Late rows are then quarantined as canonical feed lines (canonicalLine.ts), so
 * every site's quarantine holds the same entries.
 */
export class PartitionLateGuard {
  /** Cuts of partition-days this process (or another of its group) sealed or is sealing. */
  private localCuts = new Map<string, number>();
  /** Cuts agreed through the shared store, refreshed by the sealer. */
  private sharedCuts = new Map<string, number>();

  constructor(
    private readonly catalogLate: LateGuard,
    private readonly state: KafkaSealState,
    /** Sites agree on cuts: late entries are written as canonical feed lines. */
    readonly canonicalLate = false,
  ) {
    this.reload();
  }

  /** Re-reads what other processes sealed (after a rebalance) and drops cached answers. */
  reload(): void {
    // A partition-day sealed without an agreed cut was cut at 0: everything after is late.
    this.localCuts = new Map([...this.state.sealedKeys()].map(([k, cut]) => [k, cut ?? 0]));
    this.catalogLate.forget();
  }

  /** From now on messages of this partition-day at or above `cut` (default: all) are late. */
  closeAt(dataset: Dataset, tradedate: string, partition: number, cut = 0): void {
    this.localCuts.set(key(dataset, tradedate, partition), cut);
  }

  /** Replaces what is known of the cuts agreed through the shared store. */
  setSharedCuts(cuts: Iterable<{ dataset: Dataset; tradedate: string; partition: number; offset: number }>): void {
    const next = new Map<string, number>();
    for (const c of cuts) next.set(key(c.dataset, c.tradedate, c.partition), c.offset);
    this.sharedCuts = next;
  }

  /** The cut known for a partition-day (sealed here, or agreed by another site), if any. */
  cutOf(dataset: Dataset, tradedate: string, partition: number): number | undefined {
    const k = key(dataset, tradedate, partition);
    return this.localCuts.get(k) ?? this.sharedCuts.get(k);
  }

  /** Cached catalog answers may be stale after a seal; the cuts cover the gap. */
  afterSeal(dataset: Dataset, tradedate: string, dayComplete: boolean): void {
    this.catalogLate.forget();
    if (!dayComplete) return;
    // The catalog's day flag answers from now on; keep the map small over months of running.
    const prefix = `${dataset}|${tradedate}|`;
    for (const k of this.localCuts.keys()) if (k.startsWith(prefix)) this.localCuts.delete(k);
  }

  isLate(dataset: Dataset, tradedate: string, symbol: string, partition: number, offset: number): boolean {
    return offset >= this.lateFrom(dataset, tradedate, symbol, partition);
  }

  /**
   * The offset from which this partition's messages of the symbol-day are late: -Infinity
   * (all) when the catalog has it sealed, the cut if one is known, else Infinity (none). A
   * chunk asks once per symbol-day instead of once per message.
   */
  lateFrom(dataset: Dataset, tradedate: string, symbol: string, partition: number): number {
    if (this.catalogLate.isLate(dataset, tradedate, symbol)) return -Infinity;
    return this.cutOf(dataset, tradedate, partition) ?? Infinity;
  }
}
