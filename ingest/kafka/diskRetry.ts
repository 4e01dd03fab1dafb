/**
 * When the running ingestor tries a write again after a full or read-only disk, and when it
 * says so: pure arithmetic over the times it is given, no timers or I/O (diskFaults.ts does
 * those), so the cadence is tested without a disk or a clock.
 *
 * - Retries back off from `firstDelayMs`, doubling, up to `maxDelayMs`, by the one retry
 *   policy (shared/retry/backoff.ts), never giving up: space freed by an operator is noticed
 *   within a few seconds, and a disk that stays full costs one failed write every few seconds,
 *   not a busy loop; a restart would only meet the same disk.
 * - The fault is logged once when it starts, then once every `logEveryMs` while it lasts:
 *   an operator sees it at once and is reminded, without a line per retry filling the log
 *   (and, on the same disk, the last free bytes).
 */
import { backoff, nextDelayMs, type Backoff } from '../../shared/retry/backoff.js';

export interface DiskRetryPolicy {
  readonly firstDelayMs: number;
  readonly maxDelayMs: number;
  readonly logEveryMs: number;
}

export const DISK_RETRY: DiskRetryPolicy = { firstDelayMs: 100, maxDelayMs: 5000, logEveryMs: 60_000 };

/** What to do after a failed write. */
export interface FailedStep {
  /** 'first': the fault began, say so; 'still': a reminder is due; null: stay quiet. */
  readonly log: 'first' | 'still' | null;
  /** Wait this long before trying again. */
  readonly retryInMs: number;
  /** Failed writes since the fault began, this one included. */
  readonly attempts: number;
  /** How long the fault has lasted. */
  readonly faultedForMs: number;
}

/** The fault has ended: how long it lasted and how many writes failed. */
export interface Recovery {
  readonly faultedForMs: number;
  readonly attempts: number;
}

export class DiskRetry {
  private sinceMs: number | null = null;
  private attempts = 0;
  private lastLogMs = 0;
  private nextRetryMs = 0;
  private readonly backoff: Backoff;

  constructor(private readonly policy: DiskRetryPolicy = DISK_RETRY) {
    this.backoff = backoff({ firstDelayMs: policy.firstDelayMs, maxDelayMs: policy.maxDelayMs });
  }

  get faulted(): boolean {
    return this.sinceMs !== null;
  }

  /** When the fault began, or null. */
  get since(): number | null {
    return this.sinceMs;
  }

  /** A write failed on a full or read-only disk at `nowMs`. */
  failed(nowMs: number): FailedStep {
    const first = this.sinceMs === null;
    if (first) {
      this.sinceMs = nowMs;
      this.attempts = 0;
      this.lastLogMs = nowMs;
    }
    this.attempts++;
    const { logEveryMs } = this.policy;
    // Never null: this backoff has no bound on tries, time or wait.
    const retryInMs = nextDelayMs(this.backoff, { attempt: this.attempts })!;
    this.nextRetryMs = nowMs + retryInMs;
    let log: FailedStep['log'] = first ? 'first' : null;
    if (!first && nowMs - this.lastLogMs >= logEveryMs) {
      this.lastLogMs = nowMs;
      log = 'still';
    }
    return { log, retryInMs, attempts: this.attempts, faultedForMs: nowMs - this.sinceMs! };
  }

  /** Whether a retry is due at `nowMs` (always, when there is no fault). */
  due(nowMs: number): boolean {
    return this.sinceMs === null || nowMs >= this.nextRetryMs;
  }

  /** A write succeeded at `nowMs`: the fault, if there was one, is over. */
  succeeded(nowMs: number): Recovery | null {
    if (this.sinceMs === null) return null;
    const out = { faultedForMs: nowMs - this.sinceMs, attempts: this.attempts };
    this.sinceMs = null;
    this.attempts = 0;
    this.nextRetryMs = 0;
    return out;
  }
}
