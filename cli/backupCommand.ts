/**
 * `tickvault backup --to DIR`: a copy of the live data directory that is a data directory
 * itself — restoring is pointing `--data-dir` at it (or moving it into place) — made while
 * ingest and serve run: SQLite files by SQLite's backup API, staging before the catalog, then
 * the files the catalog lists, each checked against its SHA-256 (storage/backup/backupDataDir.ts
 * says why in that order). Exit 1 when a listed file was damaged at the source: the copy
 * leaves it out, and `doctor` on the copy names it as missing.
 */
import { resolve } from 'node:path';
import { backupDataDir } from '../storage/backup/backupDataDir.js';
import { UsageError, type Command, type CommandContext } from './command.js';
import { loadStoreConfig, STORE_OPTION } from '../shared/config.js';
import { openCatalog } from '../storage/catalog.js';
import { layoutFor } from '../storage/layout.js';
import { requireDataDir } from './dataDirCheck.js';
import { createProgress } from './progress.js';

export const backupCommand: Command = {
  name: 'backup',
  summary: 'copy the live data directory into a new one (SQLite by its backup API, every listed file SHA-256 checked); restore by pointing --data-dir at it',
  usage: 'tickvault backup --to DIR|s3://BUCKET/PREFIX [--data-dir DIR]',
  options: { to: { type: 'string' } },
  help: [
    {
      flag: 'to',
      value: 'DIR|s3://…',
      help: 'the new data directory (must not exist, or be empty; on another disk for a real backup), or a bucket: every sealed day uploaded and the state (accounts, keys, staging) under _backup/; tickvault attach restores it',
    },
  ],
  positionals: 'none',
  async run(ctx) {
    const to = ctx.flags.to;
    if (typeof to !== 'string' || to === '') throw new UsageError('--to DIR is required');
    requireDataDir(ctx.config.dataDir);
    if (to.startsWith('s3://')) return backupToBucket(ctx, to);
    if (resolve(to) === resolve(ctx.config.dataDir)) throw new UsageError('--to names the data directory itself');
    const bar = createProgress(ctx.config.progress, 'backup', 0, 'files');
    const s = await backupDataDir(ctx.config.dataDir, to, (done, total) => bar.update(done, total));
    bar.stop();
    const mib = (b: number) => (b / 1024 / 1024).toFixed(1);
    ctx.out(
      `backed up ${ctx.config.dataDir} to ${to}: ${s.databases.length} SQLite file${s.databases.length === 1 ? '' : 's'} by the backup API, ` +
        `${s.listedFiles} listed files (${mib(s.listedBytes)} MiB, SHA-256 checked), ${s.derivedFiles} derived files, ${s.segments} staging segments (${mib(s.segmentBytes)} MiB) ` +
        `in ${(s.ms / 1000).toFixed(1)} s`,
    );
    if (s.offloadedFiles > 0)
      ctx.out(
        `${s.offloadedFiles} listed files of ${s.offloadedDays} day${s.offloadedDays === 1 ? '' : 's'} offloaded to the store not copied: they live in the bucket`,
      );
    if (s.segmentsSealedMeanwhile > 0)
      ctx.log.info({ segments: s.segmentsSealedMeanwhile }, 'staging segments of days sealed during the backup: in the copy as sealed files');
    for (const d of s.damaged) process.stderr.write(`DAMAGED ${d.path}: ${d.message}\n`);
    if (s.damaged.length > 0) {
      process.stderr.write(
        `tickvault backup: ${s.damaged.length} listed file(s) damaged at the source were left out of the copy; restore them from another site or an older backup\n`,
      );
      return 1;
    }
    return 0;
  },
};

/** `backup --to s3://BUCKET/PREFIX` (storage/store/storeBackup.ts); restored by `tickvault attach`. */
async function backupToBucket(ctx: CommandContext, to: string): Promise<number> {
  const config = loadStoreConfig({ [STORE_OPTION.flag]: to }, ctx.env)!;
  // The AWS SDK is loaded only for a store.
  const [{ ObjectStore }, { backupToStore }] = await Promise.all([import('../storage/store/objectStore.js'), import('../storage/store/storeBackup.js')]);
  const store = new ObjectStore(config);
  const catalog = openCatalog(layoutFor(ctx.config.dataDir).catalogDb);
  const started = Date.now();
  try {
    const b = await backupToStore({ dataDir: ctx.config.dataDir, catalog, store, nowMs: () => ctx.config.clock.nowMs() });
    const u = b.uploads;
    ctx.out(
      `backed up ${ctx.config.dataDir} to ${config.url}: ${u.days} days newly stored (${u.files} files sent, ${(u.bytes / 1024 / 1024).toFixed(1)} MiB), ` +
        `the state (${b.stateFiles} files, ${(b.stateBytes / 1024 / 1024).toFixed(1)} MiB: accounts, keys, staging) as _backup/${b.stamp}/ in ${((Date.now() - started) / 1000).toFixed(1)} s; ` +
        `${u.due} day${u.due === 1 ? '' : 's'} not stored; restore with tickvault attach --store ${config.url} --data-dir NEW`,
    );
    for (const f of u.failed) process.stderr.write(`NOT STORED ${f.key}: ${f.reason}\n`);
    return u.failed.length > 0 || u.due > 0 ? 1 : 0;
  } finally {
    store.close();
    catalog.close();
  }
}
