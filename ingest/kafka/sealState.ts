import type { Dataset } from '../../shared/schema.js';
import type { Db } from '../../shared/sqlite.js';
import type { LateGuard } from '../seal/lateGuard.js';
import type { OpenDay } from '../staging/segments.js';

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
export const KAFKA_SEAL_STATE_SCHEMA = `
CREATE TABLE IF NOT EXISTS kafka_symbol_partitions (
  dataset TEXT NOT NULL, tradedate TEXT NOT NULL, symbol TEXT NOT NULL, partition INTEGER NOT NULL,
  PRIMARY KEY (dataset, tradedate, symbol, partition)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS kafka_sealed_partitions (
  dataset TEXT NOT NULL, tradedate TEXT NOT NULL, partition INTEGER NOT NULL, sealed_at_ms INTEGER NOT NULL,
  PRIMARY KEY (dataset, tradedate, partition)
) WITHOUT ROWID;
`;

const key = (dataset: Dataset, tradedate: string, partition: number) => `${dataset}|${tradedate}|${partition}`;

export class KafkaSealState {
  /** (dataset|day|symbol|partition) already recorded by this process: skips redundant inserts. */
  private readonly noted = new Set<string>();
  private readonly insertSymbol;
  private readonly insertSealed;

  constructor(readonly db: Db) {
    db.exec(KAFKA_SEAL_STATE_SCHEMA);
    this.insertSymbol = db.prepare('INSERT OR IGNORE INTO kafka_symbol_partitions (dataset, tradedate, symbol, partition) VALUES (?, ?, ?, ?)');
    this.insertSealed = db.prepare('INSERT OR IGNORE INTO kafka_sealed_partitions (dataset, tradedate, partition, sealed_at_ms) VALUES (?, ?, ?, ?)');
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
      this.db
        .prepare('SELECT partition FROM kafka_sealed_partitions WHERE dataset = ? AND tradedate = ?')
        .pluck()
        .all(dataset, tradedate) as number[],
    );
  }

  /** `dataset|tradedate|partition` of every partition-day recorded sealed. */
  sealedKeys(): Set<string> {
    const rows = this.db.prepare('SELECT dataset, tradedate, partition FROM kafka_sealed_partitions').all() as {
      dataset: Dataset; tradedate: string; partition: number;
    }[];
    return new Set(rows.map((r) => key(r.dataset, r.tradedate, r.partition)));
  }

  /** Days some partition has been sealed for (the day itself may still be open). */
  daysInProgress(): OpenDay[] {
    return this.db.prepare('SELECT DISTINCT dataset, tradedate FROM kafka_sealed_partitions ORDER BY tradedate, dataset').all() as OpenDay[];
  }

  recordSealed(dataset: Dataset, tradedate: string, partition: number, atMs: number): void {
    this.insertSealed.run(dataset, tradedate, partition, atMs);
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
 * The ingest side's "is this message late?": its partition-day is sealed or being sealed
 * (closed), or the catalog says the day is sealed or the symbol-day already has a file.
 */
export class PartitionLateGuard {
  private closed = new Set<string>();

  constructor(private readonly catalogLate: LateGuard, private readonly state: KafkaSealState) {
    this.reload();
  }

  /** Re-reads what other processes sealed (after a rebalance) and drops cached answers. */
  reload(): void {
    this.closed = this.state.sealedKeys();
    this.catalogLate.forget();
  }

  /** From now on messages of this partition-day are late: called as its seal begins. */
  close(dataset: Dataset, tradedate: string, partition: number): void {
    this.closed.add(key(dataset, tradedate, partition));
  }

  /** Cached catalog answers may be stale after a seal; the closed set covers the gap. */
  afterSeal(dataset: Dataset, tradedate: string, dayComplete: boolean): void {
    this.catalogLate.forget();
    if (!dayComplete) return;
    // The catalog's day flag answers from now on; keep the set small over months of running.
    const prefix = `${dataset}|${tradedate}|`;
    for (const k of this.closed) if (k.startsWith(prefix)) this.closed.delete(k);
  }

  isLate(dataset: Dataset, tradedate: string, symbol: string, partition: number): boolean {
    return this.closed.has(key(dataset, tradedate, partition)) || this.catalogLate.isLate(dataset, tradedate, symbol);
  }
}
