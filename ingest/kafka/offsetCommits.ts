/**
 * Offset commits to Kafka (kafkajs's offsetManager does this job for its own consumer; ours
 * commits by hand, after the group commit has recorded the offsets in the data directory).
 * Commits go one request at a time. A failed commit (during a rebalance, say) is kept and
 * retried with the next one or at the next progress tick: with no new message on a partition
 * nothing else would commit it, and lag monitors would see lag. Only owned partitions are
 * committed; a new owner commits the others.
 */
import type { Consumer } from 'kafkajs';
import type { Logger } from '../../shared/logger.js';
import type { Assignment } from './positions.js';

export interface KafkaOffset {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
}

export interface OffsetCommitDeps {
  /** The live consumer, if any (a replaced one must not commit). */
  readonly consumer: () => Consumer | null;
  /** The partitions owned now; null while the group rebalances. */
  readonly assignment: () => Assignment | null;
  readonly log: Logger;
}

export class OffsetCommitter {
  /** Recorded offsets not yet committed to Kafka, by `topic/partition`. */
  private readonly pending = new Map<string, KafkaOffset>();
  private last: Promise<void> = Promise.resolve();

  constructor(private readonly d: OffsetCommitDeps) {}

  /** Offsets recorded but not yet committed. */
  get pendingCount(): number {
    return this.pending.size;
  }

  /** Settles once the latest commit request has (settles with no rejection). */
  get settled(): Promise<void> {
    return this.last;
  }

  /** Forgets pending offsets of partitions no longer assigned: their new owner commits them. */
  keepAssigned(a: Assignment): void {
    for (const [k, o] of this.pending) if (!(a.get(o.topic) ?? []).includes(o.partition)) this.pending.delete(k);
  }

  /** Queues `offsets` without committing them now (they go with the next commit). */
  queue(offsets: readonly KafkaOffset[]): void {
    for (const o of offsets) this.pending.set(`${o.topic}/${o.partition}`, o);
  }

  /** Queues `offsets` (none: just retry the pending ones) and commits what is owned. */
  commit(offsets: readonly KafkaOffset[]): void {
    for (const o of offsets) this.pending.set(`${o.topic}/${o.partition}`, o);
    const consumer = this.d.consumer();
    if (!consumer || this.pending.size === 0) return;
    this.last = this.last.then(async () => {
      const owned = this.d.assignment();
      if (owned === null) return;
      const batch = [...this.pending.values()].filter((o) => (owned.get(o.topic) ?? []).includes(o.partition));
      if (batch.length === 0) return;
      try {
        await consumer.commitOffsets(batch);
        for (const o of batch) if (this.pending.get(`${o.topic}/${o.partition}`) === o) this.pending.delete(`${o.topic}/${o.partition}`);
      } catch (e) {
        // Harmless: the data directory's stored offsets are the truth; this is retried.
        this.d.log.debug({ err: e }, 'offset commit to Kafka failed; will retry');
      }
    });
  }
}
