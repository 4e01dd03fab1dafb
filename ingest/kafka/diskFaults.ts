/**
 * The running ingestor's full or read-only disk (issue 39): unlike a batch command it neither
 * exits nor crash-loops — a supervisor restarting it would only meet the same disk — but
 * holds what it has not made durable, stops consuming, and tries the write again until it
 * succeeds. This is where such a fault is seen by people and probes: one log line naming the
 * stage, the path and the cause when it begins (again once a minute while it lasts, one when
 * it ends with how long it lasted), the `tickvault_ingest_disk_fault` gauge, and /healthz.
 * The cadence is diskRetry.ts; the words are diskFault.ts's, the batch commands' own.
 */
import type { Logger } from '../../shared/logger.js';
import { diskFaultText } from '../diskFault.js';
import { DiskRetry, type DiskRetryPolicy } from './diskRetry.js';
import type { IngestMetrics } from './metrics.js';

/** The writing stages of the running ingestor that retry on a full disk ('open': at start). */
export type RetriedStage = 'open' | 'staging' | 'seal';

/** A stage's ongoing disk fault. */
export interface DiskFault {
  readonly stage: RetriedStage;
  readonly cause: string;
  readonly path: string;
  /** "CAUSE while DOING PATH". */
  readonly text: string;
  readonly sinceMs: number;
}

export interface DiskFaultsDeps {
  readonly log: Logger;
  readonly metrics: IngestMetrics;
  /** A stage's fault began (true) or ended (false). */
  readonly onChange?: (stage: RetriedStage, faulted: boolean) => void;
  /** Wall time for durations (not the ingest clock, which tests may freeze). */
  readonly nowMs?: () => number;
  readonly policy?: DiskRetryPolicy;
  /** The stages whose gauge starts at 0 (default staging and seal, the running ingestor's). */
  readonly stages?: readonly RetriedStage[];
}

const WHAT_NOW: Readonly<Record<RetriedStage, string>> = {
  open: 'not consuming yet; retrying until the data directory takes writes',
  staging: 'consumption paused, nothing committed to Kafka past what is durable; retrying until the write succeeds',
  seal: 'the day stays staged; retrying the seal until the write succeeds',
};

export class DiskFaults {
  private readonly retries = new Map<RetriedStage, DiskRetry>();
  private readonly current = new Map<RetriedStage, DiskFault>();
  private readonly now: () => number;

  constructor(private readonly d: DiskFaultsDeps) {
    this.now = d.nowMs ?? Date.now;
    for (const stage of d.stages ?? (['staging', 'seal'] as const)) d.metrics.setDiskFault(stage, null);
  }

  private retry(stage: RetriedStage): DiskRetry {
    let r = this.retries.get(stage);
    if (!r) this.retries.set(stage, (r = new DiskRetry(this.d.policy)));
    return r;
  }

  /** The stage's ongoing fault, or null. */
  faultOf(stage: RetriedStage): DiskFault | null {
    return this.current.get(stage) ?? null;
  }

  /** Whether the stage may try its write now (no fault, or its retry delay has passed). */
  due(stage: RetriedStage): boolean {
    return this.retry(stage).due(this.now());
  }

  /**
   * A write of `stage` failed with `e` (`where`: the path to name when the error has none).
   * A full or read-only disk: recorded, logged on the cadence, and the delay before the next
   * try returned. Anything else: null, for the caller to handle as before.
   */
  failed(stage: RetriedStage, where: string, e: unknown): number | null {
    const disk = diskFaultText(stage, where, e);
    if (disk === null) return null;
    const now = this.now();
    const step = this.retry(stage).failed(now);
    const fault: DiskFault = { stage, cause: disk.cause, path: disk.path, text: disk.text, sinceMs: this.retry(stage).since ?? now };
    const began = !this.current.has(stage);
    this.current.set(stage, fault);
    this.d.metrics.setDiskFault(stage, fault);
    if (began) this.d.metrics.diskFaults.inc({ stage });
    this.d.metrics.diskWriteFailures.inc({ stage });
    if (step.log !== null) {
      const fields = { stage, cause: disk.cause, path: disk.path, attempts: step.attempts, faultedForS: Math.round(step.faultedForMs / 1000) };
      const lead = step.log === 'first' ? 'disk fault' : `disk fault for ${fields.faultedForS} s`;
      this.d.log.error(fields, `${lead}: ${disk.text}; ${WHAT_NOW[stage]}`);
    }
    if (began) this.d.onChange?.(stage, true);
    return step.retryInMs;
  }

  /** A write of `stage` succeeded: a fault it had is over (logged with its duration). */
  succeeded(stage: RetriedStage): void {
    const fault = this.current.get(stage);
    const recovery = this.retry(stage).succeeded(this.now());
    if (!fault || recovery === null) return;
    this.current.delete(stage);
    this.d.metrics.setDiskFault(stage, null);
    this.d.log.info(
      { stage, path: fault.path, faultedForMs: recovery.faultedForMs, failedAttempts: recovery.attempts },
      `disk writable again: ${stage} resumed after ${(recovery.faultedForMs / 1000).toFixed(1)} s (${fault.cause} while writing ${fault.path})`,
    );
    this.d.onChange?.(stage, false);
  }
}
