/**
 * `tickvault prune-versions`: removes the versions a restatement replaced (and the boundary
 * parts it replaced), which stay on disk until an operator asks, so that cursors issued on
 * them page to the end (api-contract: Corrections). A current version is never removed. The
 * catalog forgets them first, in one transaction, then the files go: a crash in between leaves
 * files no catalog row names, which `doctor` reports as extra and nothing ever reads.
 */
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isValidDate } from '../calendar/tradingCalendar.js';
import { oneOf } from '../shared/config.js';
import { DATASETS, type Dataset } from '../shared/schema.js';
import { CatalogWriter, openCatalog } from '../storage/catalog.js';
import { layoutFor, rowTextRelPath } from '../storage/layout.js';
import { UsageError, type Command } from './command.js';
import { requireDataDir } from './dataDirCheck.js';

const datasetFlag = oneOf(DATASETS);

export const pruneVersionsCommand: Command = {
  name: 'prune-versions',
  summary: 'remove the versions of restated symbol-days that are no longer current (never a current one); cursors issued on them stop paging',
  usage: 'tickvault prune-versions [--dataset D] [--from YYYYMMDD] [--to YYYYMMDD] [--data-dir DIR]',
  options: { dataset: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' } },
  help: [
    { flag: 'dataset', value: 'D', help: 'only this dataset: level2, index, trade or order (default all)' },
    { flag: 'from', value: 'YYYYMMDD', help: 'first day whose old versions go (default the first)' },
    { flag: 'to', value: 'YYYYMMDD', help: 'last day whose old versions go (default the last)' },
  ],
  positionals: 'none',
  async run(ctx) {
    const dataset = typeof ctx.flags.dataset === 'string' ? (datasetFlag(ctx.flags.dataset, '--dataset') as Dataset) : null;
    const day = (flag: 'from' | 'to', fallback: string): string => {
      const v = ctx.flags[flag];
      if (v === undefined) return fallback;
      if (typeof v !== 'string' || !isValidDate(v)) throw new UsageError(`--${flag} must be a real date YYYYMMDD`);
      return v;
    };
    const from = day('from', '00000000');
    const to = day('to', '99999999');
    if (from > to) throw new UsageError(`--from ${from} is after --to ${to}`);
    requireDataDir(ctx.config.dataDir);
    const layout = layoutFor(ctx.config.dataDir);
    const db = openCatalog(layout.catalogDb);
    let removed;
    try {
      removed = new CatalogWriter(db).forgetOldVersions(dataset, from, to);
    } finally {
      db.close();
    }
    let bytes = 0;
    for (const r of removed) {
      const path = join(layout.dataDir, r.path);
      bytes += (await stat(path).catch(() => null))?.size ?? 0;
      await rm(path, { force: true });
      // A version's row text (derived, storage/rowText/) goes with it.
      if (r.path.endsWith('.parquet')) await rm(join(layout.dataDir, rowTextRelPath(r.path)), { force: true });
      ctx.log.debug({ path: r.path }, 'removed');
    }
    const files = removed.filter((r) => r.path.endsWith('.parquet')).length;
    const days = new Set(removed.map((r) => `${r.dataset}|${r.tradedate}`)).size;
    ctx.out(
      `removed ${files} old version${files === 1 ? '' : 's'} and ${removed.length - files} replaced boundary part${removed.length - files === 1 ? '' : 's'} ` +
        `of ${days} dataset-day${days === 1 ? '' : 's'} (${(bytes / 1024 / 1024).toFixed(1)} MiB); current versions untouched`,
    );
    return 0;
  },
};
