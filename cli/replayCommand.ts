import { barsLogger } from './barsLog.js';
import { ROW_TEXT_HELP, ROW_TEXT_OPTIONS, rowTextDaysOf, rowTextStep } from './rowTextStep.js';
import { peakRssBytes } from '../shared/peakRss.js';
import { statSync } from 'node:fs';
import { encodeParquet } from '../storage/parquet/writer.js';
import { join } from 'node:path';
import { emptyReplayStats, replayFiles } from '../ingest/feed/replay.js';
import { atStage } from '../ingest/diskFault.js';
import { sealDays, unsealedDays } from '../ingest/seal/days.js';
import { openIngestStores } from '../ingest/staging/stores.js';
import { warnPastKnownRange } from './calendarWarning.js';
import { createProgress } from './progress.js';
import { UsageError, type Command } from './command.js';

export const replayCommand: Command = {
  name: 'replay',
  summary: 'ingest feed files without Kafka and seal every day they contain',
  usage: 'tickvault replay FILE… [--row-text-days 10] [--data-dir DIR]',
  options: { ...ROW_TEXT_OPTIONS },
  help: [ROW_TEXT_HELP],
  positionals: 'some',
  async run(ctx) {
    const files = ctx.positionals;
    for (const f of files) {
      let ok = false;
      try {
        ok = statSync(f).isFile();
      } catch {
        ok = false;
      }
      if (!ok) throw new UsageError(`feed file not found: ${f}`);
    }
    const rowTextDays = rowTextDaysOf(ctx);
    const clock = ctx.config.clock;
    const stores = openIngestStores(ctx.config.dataDir, () => clock.nowMs());
    try {
      const stats = emptyReplayStats();
      const started = Date.now();
      const totalBytes = files.reduce((a, f) => a + statSync(f).size, 0);
      const replayBar = createProgress(ctx.config.progress, 'replay', totalBytes, 'bytes');
      let doneBytes = 0;
      for (const f of files) {
        await atStage('staging', join(stores.layout.dataDir, 'staging'), () =>
          replayFiles({ staging: stores.staging, catalogDb: stores.layout.catalogDb, onProgress: (_l, b) => replayBar.update(doneBytes + b) }, [f], stats),
        );
        doneBytes += statSync(f).size;
        ctx.log.debug({ file: f, lines: stats.lines, staged: stats.staged, quarantined: stats.quarantined }, 'feed replayed');
      }
      replayBar.stop();
      warnPastKnownRange(
        ctx,
        [...stats.days].map((d) => d.split('|')[1]!),
      );
      const stagedAt = Date.now();
      // The process's CPU (every thread: the seal workers', libuv's), for the seal's share of it.
      const cpuAtSeal = process.cpuUsage();
      const peakRssStagingBytes = peakRssBytes();
      const bar = createProgress(ctx.config.progress, 'seal', stats.staged, 'rows');
      let sealedRows = 0;
      // Days seen only as late lines are sealed too: a crash after their files were listed but
      // before the day was marked sealed leaves exactly that state, and sealing is idempotent.
      const days = new Set([...stats.days, ...unsealedDays(stores, stats.lateDays)]);
      const results = await sealDays(
        stores,
        encodeParquet,
        days,
        () => clock.nowMs(),
        (rows) => bar.update((sealedRows += rows)),
        barsLogger(ctx),
      );
      bar.stop();
      const sealCpu = process.cpuUsage(cpuAtSeal);
      const sealSecs = (Date.now() - stagedAt) / 1000;
      for (const r of results) ctx.log.info(r, 'day sealed');
      // The days are listed (and served); their row text follows, before the summary, which stays the last line.
      const textStarted = Date.now();
      await rowTextStep(ctx, stores.catalog, rowTextDays);
      const textSecs = (Date.now() - textStarted) / 1000;
      const secs = (Date.now() - started) / 1000;
      const filesOut = results.reduce((a, r) => a + r.files, 0);
      const rowsOut = results.reduce((a, r) => a + r.rows, 0);
      // The summary is printed on stdout; as a JSON line it would only repeat it (debug level).
      ctx.log.debug(
        {
          lines: stats.lines,
          staged: stats.staged,
          quarantined: stats.quarantined,
          late: stats.late,
          files: filesOut,
          rows: rowsOut,
          stagingMs: Math.round((secs - sealSecs - textSecs) * 1000),
          sealingMs: Math.round(sealSecs * 1000),
          sealingCpuMs: Math.round((sealCpu.user + sealCpu.system) / 1000),
          peakRssStagingBytes,
          peakRssBytes: peakRssBytes(),
        },
        'replay finished',
      );
      ctx.out(
        `replayed ${stats.lines} lines: ${stats.staged} staged, ${stats.quarantined} quarantined (${stats.late} late); ` +
          `sealed ${results.length} dataset-days, ${filesOut} files, ${rowsOut} rows in ${secs.toFixed(1)} s (staging ${(secs - sealSecs - textSecs).toFixed(1)} s, sealing ${sealSecs.toFixed(1)} s, row text ${textSecs.toFixed(1)} s)`,
      );
      const failure = replayFailure(stats, results.length, stores.layout.dataDir);
      if (failure !== null) {
        process.stderr.write(`tickvault replay: ${failure}\n`);
        return 1;
      }
      return 0;
    } finally {
      stores.close();
    }
  },
};

/**
 * A replay that changed nothing is a mistake to say loudly (exit 1): every line quarantined,
 * e.g. a feed of days already sealed, or an empty file. Sealing a day left half-sealed by a
 * crash counts as work, so re-running a replay to recover from a crash still succeeds.
 */
export function replayFailure(stats: { lines: number; staged: number; quarantined: number; late: number }, daysSealed: number, dataDir: string): string | null {
  if (stats.staged > 0 || daysSealed > 0) return null;
  if (stats.lines === 0) return 'nothing replayed: the feed files hold no lines';
  const late = stats.late > 0 ? ` (${stats.late} late: their days were already sealed)` : '';
  return `nothing staged: all ${stats.lines} lines were quarantined${late}; reasons in the quarantine table of ${dataDir}/ingest.db`;
}
