/**
 * The seal cut of a topic-partition and day: the offset below which the day's messages are in
 * the sealed files, and at or above which they are late. With `--state-url`, every site's
 * ingestor agrees on one cut per partition-day through the shared database: the first site to
 * seal records its position there, and every other site seals at that cut (catching up to it
 * first if it is behind, quarantining what it staged past it if it is ahead). Sites fed by the
 * same topics then write byte-identical files and quarantine the same messages.
 */
import type { Dataset } from '../../shared/schema.js';

export interface SealCut {
  readonly topic: string;
  readonly partition: number;
  readonly dataset: Dataset;
  readonly tradedate: string;
  readonly offset: number;
}

export interface SealCutStore {
  /** Where the cuts live, for logs (a URL without its password). */
  readonly where: string;
  /**
   * The partition-day's cut: the one already recorded, or `proposed` when this call records
   * it first (an insert only the first wins). `site` names who proposed it, for operators.
   */
  agree(cut: SealCut, site: string): Promise<number>;
  /** Every cut of days from `fromDate` (YYYYMMDD) on: what the late guard must know. */
  cutsFrom(fromDate: string): Promise<SealCut[]>;
  close(): Promise<void>;
}
