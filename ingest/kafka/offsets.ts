/**
 * Consumer progress kept in ingest.db: per (topic, partition), the next offset whose message
 * has not been staged yet. It is written in the same transaction as the rows and quarantine
 * entries it covers, so it is the exact truth of what this data directory holds; the offset
 * committed to Kafka (always after that transaction) only trails it. On assignment the
 * consumer seeks here, and a chunk's messages below it are skipped inside the staging
 * transaction: re-delivered messages are neither staged nor quarantined twice.
 *
 * Keyed by topic and partition, not by group: it describes the data directory, whichever
 * group fed it.
 */
import type { Db } from '../../shared/sqlite.js';

export const KAFKA_OFFSETS_SCHEMA = `
CREATE TABLE IF NOT EXISTS kafka_offsets (
  topic TEXT NOT NULL,
  partition INTEGER NOT NULL,
  next_offset INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL,
  PRIMARY KEY (topic, partition)
) WITHOUT ROWID;
`;

export class KafkaOffsetStore {
  private readonly getNext;
  private readonly getTopic;
  private readonly upsert;

  constructor(readonly db: Db) {
    db.exec(KAFKA_OFFSETS_SCHEMA);
    this.getNext = db.prepare('SELECT next_offset FROM kafka_offsets WHERE topic = ? AND partition = ?').pluck();
    this.getTopic = db.prepare('SELECT partition, next_offset AS next FROM kafka_offsets WHERE topic = ?');
    // Never backwards: two processes may briefly both hold a partition during a rebalance.
    this.upsert = db.prepare(`INSERT INTO kafka_offsets (topic, partition, next_offset, updated_at_ms) VALUES (?, ?, ?, ?)
      ON CONFLICT (topic, partition) DO UPDATE SET next_offset = max(next_offset, excluded.next_offset),
      updated_at_ms = excluded.updated_at_ms`);
  }

  /** The next offset to stage for a partition, or null when this data directory has none. */
  next(topic: string, partition: number): number | null {
    const v = this.getNext.get(topic, partition) as number | undefined;
    return v ?? null;
  }

  /** Every recorded partition of a topic with its next offset. */
  ofTopic(topic: string): Map<number, number> {
    const rows = this.getTopic.all(topic) as { partition: number; next: number }[];
    return new Map(rows.map((r) => [r.partition, r.next]));
  }

  /** Records progress; call inside the staging transaction that covers the messages. */
  advance(topic: string, partition: number, next: number, atMs: number): void {
    this.upsert.run(topic, partition, next, atMs);
  }
}
