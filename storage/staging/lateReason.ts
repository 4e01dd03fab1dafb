/**
 * The quarantine reason of a message for an already sealed symbol-day, written by every
 * ingest path (replay, Kafka) and read back by `restate --from-quarantine`, `tickvault days`
 * and /metrics: its one format, kept here.
 */
import type { Dataset } from '../../shared/schema.js';

const PREFIX = 'late: ';

export function lateReason(dataset: Dataset, tradedate: string, symbol: string): string {
  return `${PREFIX}${dataset} ${tradedate} ${symbol} is already sealed`;
}

export function isLateReason(reason: string): boolean {
  return reason.startsWith(PREFIX);
}

/** A SQL LIKE pattern of the late reasons of one dataset-day, or of every one (no arguments). */
export function lateReasonLike(dataset?: Dataset, tradedate?: string): string {
  return dataset === undefined ? `${PREFIX}%` : `${PREFIX}${dataset} ${tradedate} %`;
}

/** `dataset|tradedate` of a late reason. */
export function lateDayOf(reason: string): string {
  const [dataset, tradedate] = reason.slice(PREFIX.length).split(' ');
  return `${dataset}|${tradedate}`;
}
