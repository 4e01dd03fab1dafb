/**
 * The ingestor's progress and lag: what it has durably processed (counts and Prometheus
 * metrics), and what the sealer and the progress report ask of Kafka — watermarks and the
 * group's committed offsets, through the admin client.
 */
import type { Admin } from 'kafkajs';
import type { Logger } from '../../shared/logger.js';
import { lagOf } from '../seal/scheduler.js';
import type { FlushedPartition } from './stagingCommits.js';
import type { IngestMetrics } from './metrics.js';
import type { KafkaOffsetStore } from './offsets.js';
import { ownedPositions, type Assignment, type KafkaView, type Watermarks } from './positions.js';

/** Durably processed messages and what became of them. */
export interface IngestCounts {
  consumed: number;
  staged: number;
  quarantined: number;
  late: number;
  skipped: number;
}

export interface IngestProgress extends IngestCounts {
  readonly lag: number | null;
}

export interface ProgressDeps {
  readonly admin: Admin;
  readonly group: string;
  readonly offsets: KafkaOffsetStore;
  readonly metrics: IngestMetrics;
  readonly log: Logger;
  /** Called with lag after each progress check (a progress bar, for instance). */
  readonly onProgress?: (p: IngestProgress) => void;
}

export class IngestProgressTracker {
  readonly counts: IngestCounts = { consumed: 0, staged: 0, quarantined: 0, late: 0, skipped: 0 };
  private last = { at: 0, consumed: 0, lag: -1 };

  constructor(private readonly d: ProgressDeps) {}

  /** The Kafka side the sealer sees: the current assignment, watermarks, committed offsets. */
  view(assignment: () => Assignment | null): KafkaView {
    return { assignment, watermarks: (topic) => this.watermarks(topic), committed: (topic) => this.committed(topic) };
  }

  /** Re-delivered messages dropped before decoding: already staged. */
  countSkipped(topic: string, n: number): void {
    this.counts.consumed += n;
    this.counts.skipped += n;
    this.d.metrics.consumed.inc({ topic }, n);
    this.d.metrics.skipped.inc({ topic }, n);
  }

  /** Counts what a group commit made durable. */
  countFlushed(flushed: readonly FlushedPartition[]): void {
    const c = this.counts;
    const m = this.d.metrics;
    for (const f of flushed) {
      c.consumed += f.messages;
      c.staged += f.staged;
      c.quarantined += f.quarantined;
      c.late += f.late;
      c.skipped += f.skipped;
      m.consumed.inc({ topic: f.topic }, f.messages);
      if (f.staged) m.staged.inc({ dataset: f.dataset }, f.staged);
      if (f.quarantined) m.quarantined.inc({ dataset: f.dataset }, f.quarantined);
      if (f.late) m.late.inc({ dataset: f.dataset }, f.late);
      if (f.skipped) m.skipped.inc({ topic: f.topic }, f.skipped);
      if (f.gap) {
        m.gap.inc({ topic: f.topic }, f.gap);
        this.d.log.warn(
          { topic: f.topic, partition: f.partition, gap: f.gap, next: f.next },
          'offsets missing before these messages (lost to retention, or transaction markers)',
        );
      }
    }
  }

  /** Measures the lag of the owned partitions, exports it, and logs progress when it moved. */
  async report(a: Assignment): Promise<void> {
    const positions = await ownedPositions(
      this.view(() => a),
      this.d.offsets,
      a,
    );
    const lags = positions.map((p) => ({ topic: p.topic, partition: p.partition, lag: lagOf(p) }));
    this.d.metrics.setLag(lags);
    for (const p of positions) {
      if (p.position !== null && p.position > p.high) {
        this.d.log.error(
          { topic: p.topic, partition: p.partition, stored: p.position, high: p.high },
          'stored offset is past the end of the partition: was the topic recreated? clear its row in kafka_offsets to read it again',
        );
      }
    }
    const lag = lags.reduce((s, l) => s + l.lag, 0);
    const now = Date.now();
    const rate = this.last.at ? ((this.counts.consumed - this.last.consumed) * 1000) / (now - this.last.at) : 0;
    if (this.counts.consumed !== this.last.consumed || lag !== this.last.lag) {
      this.d.log.info({ ...this.counts, lag, msgPerSec: Math.round(rate) }, lag > 0 ? 'catching up' : 'ingest progress');
    }
    this.last = { at: now, consumed: this.counts.consumed, lag };
    this.d.onProgress?.({ ...this.counts, lag });
  }

  private async watermarks(topic: string): Promise<Watermarks[]> {
    const rows = await this.d.admin.fetchTopicOffsets(topic);
    return rows.map((r) => ({ partition: r.partition, low: Number(r.low), high: Number(r.high) }));
  }

  private async committed(topic: string): Promise<Map<number, number>> {
    const res = await this.d.admin.fetchOffsets({ groupId: this.d.group, topics: [topic] });
    const out = new Map<number, number>();
    for (const t of res) for (const p of t.partitions) if (Number(p.offset) >= 0) out.set(p.partition, Number(p.offset));
    return out;
  }
}
