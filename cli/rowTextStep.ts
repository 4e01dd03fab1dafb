/**
 * The last step of a command that seals (replay, seal, import, mirror, restate): once its days
 * are listed, and so served from their files, the row text of the window is made and the row
 * text of days that left it removed (storage/rowText/rowTextKeeper.ts). Row text is derived:
 * a disk that fills on the way costs first touches speed, never data, so it is a warning line
 * and the command's exit code stays the seal's.
 */
import { availableParallelism } from 'node:os';
import type { Db } from '../shared/sqlite.js';
import { resolveOption, ROW_TEXT_DAYS_OPTION } from '../shared/config.js';
import { CatalogReader } from '../storage/catalog.js';
import { keepRowText, type RowTextKept } from '../storage/rowText/rowTextKeeper.js';
import { RowTextPool } from '../storage/rowText/rowTextPool.js';
import type { CommandContext } from './command.js';
import { docOf } from './helpText.js';
import { createProgress } from './progress.js';

/** The option, for the commands' own `options` and `help`. */
export const ROW_TEXT_OPTIONS = { [ROW_TEXT_DAYS_OPTION.flag]: { type: 'string' } } as const;
export const ROW_TEXT_HELP = docOf(ROW_TEXT_DAYS_OPTION, 'N');

/** Validated before the command's work: a bad --row-text-days fails before minutes of sealing. */
export function rowTextDaysOf(ctx: CommandContext): number {
  return resolveOption(ROW_TEXT_DAYS_OPTION, ctx.flags, ctx.env);
}

export async function rowTextStep(ctx: CommandContext, catalog: Db, days: number): Promise<RowTextKept> {
  const started = Date.now();
  const cpuAtStart = process.cpuUsage();
  const bar = createProgress(ctx.config.progress, 'row text', 1, 'files');
  let done = 0;
  let total = 1;
  // Every core: the command has sealed, and waits for nothing else.
  const pool = new RowTextPool(availableParallelism());
  const kept = await keepRowText({
    dataDir: ctx.config.dataDir,
    catalog: new CatalogReader(catalog),
    days,
    maker: pool.make,
    concurrency: pool.size,
    onFiles: (n) => (total = Math.max(1, n)),
    onFile: () => bar.update(++done, total),
  }).finally(() => pool.close());
  bar.stop();
  for (const s of kept.skipped) ctx.log.warn({ path: s.path, reason: s.reason }, 'row text not made for this file');
  if (kept.made > 0 || kept.removedDays > 0) {
    // A log line, not stdout: a command's stdout is its summary, which scripts read.
    const { window, skipped, ...counts } = kept;
    ctx.log.info(
      {
        ...counts,
        skipped: skipped.length,
        window: window.length > 0 ? `${window[0]}..${window[window.length - 1]}` : 'none',
        days,
        ms: Date.now() - started,
        cpuMs: cpuMsSince(cpuAtStart),
      },
      'row text kept',
    );
  }
  if (kept.stoppedBy !== null) {
    process.stderr.write(
      `tickvault: row text not made for ${kept.missing - kept.made} files: ${kept.stoppedBy}; their days are served from their files (slower first touches); ` +
        `run \`tickvault doctor --rebuild\` once there is room\n`,
    );
  }
  return kept;
}

/** CPU of the whole process (every thread: libuv's DEFLATE too) since `from`, in ms. */
function cpuMsSince(from: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(from);
  return Math.round((d.user + d.system) / 1000);
}
