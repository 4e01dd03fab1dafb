/**
 * What the sealer and the progress reporter need to know of Kafka, behind an interface so
 * that the sealing logic is testable without a broker.
 */
import type { KafkaOffsetStore } from './offsets.js';
import type { PartitionPosition } from '../seal/scheduler.js';

export interface Watermarks {
  readonly partition: number;
  readonly low: number;
  readonly high: number;
}

export type Assignment = ReadonlyMap<string, readonly number[]>;

export interface KafkaView {
  /** Partitions this process owns now, by topic; null while rebalancing or not running. */
  assignment(): Assignment | null;
  /** Every partition of a topic with its log start and high watermark. */
  watermarks(topic: string): Promise<Watermarks[]>;
  /** The group's committed next offsets of a topic (partitions without one are absent). */
  committed(topic: string): Promise<Map<number, number>>;
}

/**
 * Positions of the owned partitions: the data directory's stored next offset (where the
 * consumer seeks on assignment), else the group's committed offset, else the log start.
 */
export async function ownedPositions(view: KafkaView, offsets: KafkaOffsetStore, assignment: Assignment): Promise<PartitionPosition[]> {
  const out: PartitionPosition[] = [];
  for (const [topic, partitions] of assignment) {
    if (partitions.length === 0) continue;
    const marks = new Map((await view.watermarks(topic)).map((w) => [w.partition, w]));
    const stored = offsets.ofTopic(topic);
    const committed = partitions.some((p) => !stored.has(p)) ? await view.committed(topic) : new Map<number, number>();
    for (const partition of partitions) {
      const w = marks.get(partition);
      if (!w) continue; // not in the metadata (yet): nothing to read there
      out.push({ topic, partition, position: stored.get(partition) ?? committed.get(partition) ?? null, low: w.low, high: w.high });
    }
  }
  return out;
}
