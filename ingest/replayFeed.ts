import type { SnapshotRow } from '../shared/schema.js';
import { readFeedLines } from './feedLines.js';
import type { LateGuard } from './lateGuard.js';
import { validateFeedLine } from './snapshotValidate.js';
import type { QuarantineEntry, Staging } from './staging.js';

/**
 * Replays one fixture feed file into staging: each line validated, bad ones and late ones
 * quarantined with `file:line` and the reason, good ones staged in durable batches. Sealing
 * is the caller's next step.
 */
export interface ReplayStats {
  lines: number;
  staged: number;
  quarantined: number;
  late: number;
  /** `dataset|tradedate` of every day with staged rows. */
  readonly days: Set<string>;
}

export interface ReplayDeps {
  readonly staging: Staging;
  readonly late: LateGuard;
  readonly onProgress?: (linesDone: number, bytesRead: number) => void;
}

export function emptyReplayStats(): ReplayStats {
  return { lines: 0, staged: 0, quarantined: 0, late: 0, days: new Set() };
}

export async function replayFile(deps: ReplayDeps, path: string, stats: ReplayStats = emptyReplayStats()): Promise<ReplayStats> {
  const name = path;
  for await (const batch of readFeedLines(path)) {
    const rows: SnapshotRow[] = [];
    const rejects: QuarantineEntry[] = [];
    for (let i = 0; i < batch.lines.length; i++) {
      const line = batch.lines[i];
      if (line.trim() === '') continue; // blank lines carry nothing; not worth a quarantine row
      stats.lines++;
      const source = `${name}:${batch.firstLineNo + i}`;
      const v = validateFeedLine(line);
      if (!v.ok) {
        rejects.push({ source, reason: v.reason, raw: line });
        continue;
      }
      const r = v.row;
      if (deps.late.isLate(r.dataset, r.tradedate, r.symbol)) {
        rejects.push({ source, reason: `late: ${r.dataset} ${r.tradedate} ${r.symbol} is already sealed`, raw: line });
        stats.late++;
        continue;
      }
      rows.push(r);
      stats.days.add(`${r.dataset}|${r.tradedate}`);
    }
    deps.staging.stage(rows, rejects);
    stats.staged += rows.length;
    stats.quarantined += rejects.length;
    deps.onProgress?.(stats.lines, batch.bytesRead);
  }
  return stats;
}
