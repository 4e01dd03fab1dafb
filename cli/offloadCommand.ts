/**
 * `tickvault offload --before YYYYMMDD --store s3://BUCKET/PREFIX`: removes the local copies of
 * the days before the date that are wholly in the store, once a HEAD of each of their objects
 * has answered what the catalog recorded at upload (storage/store/offload.ts); the server then
 * serves them from the store. Exit 0 when every day before the date with files here went;
 * 1 when any did not (each named in one line) or the store cannot be reached (nothing removed).
 */
import { openCatalog } from '../storage/catalog.js';
import { layoutFor } from '../storage/layout.js';
import { ObjectStore } from '../storage/store/objectStore.js';
import { offload } from '../storage/store/offload.js';
import { requireDataDir } from './dataDirCheck.js';
import { dateFlag } from './dateFlags.js';
import { UsageError, type Command } from './command.js';
import { requiredStore, STORE_FLAG, STORE_HELP } from './storeFlag.js';

export const offloadCommand: Command = {
  name: 'offload',
  summary: 'remove the local copies of days before a date that are wholly in the store (--store s3://…), each object HEAD-checked first',
  usage: 'tickvault offload --before YYYYMMDD --store s3://BUCKET/PREFIX [--data-dir DIR]',
  options: { before: { type: 'string' }, ...STORE_FLAG },
  help: [{ flag: 'before', value: 'YYYYMMDD', help: 'days before this one are offloaded (the day itself stays)' }, STORE_HELP],
  positionals: 'none',
  async run(ctx) {
    const before = dateFlag(ctx.flags.before, 'before');
    if (before === undefined) throw new UsageError('--before YYYYMMDD is required');
    const config = requiredStore(ctx);
    requireDataDir(ctx.config.dataDir);
    const catalog = openCatalog(layoutFor(ctx.config.dataDir).catalogDb);
    const store = new ObjectStore(config);
    try {
      const done = await offload({ dataDir: ctx.config.dataDir, catalog, store, before, nowMs: () => ctx.config.clock.nowMs() });
      for (const n of done.notOffloaded) process.stderr.write(`not offloaded ${n.day}: ${n.reason}\n`);
      const k = done.notOffloaded.length;
      ctx.out(
        `offloaded ${done.days.length} day${done.days.length === 1 ? '' : 's'} before ${before}: ${done.files} files, ` +
          `${(done.bytes / 1024 / 1024).toFixed(1)} MiB freed; ${k} day${k === 1 ? '' : 's'} not offloaded`,
      );
      return k > 0 ? 1 : 0;
    } finally {
      store.close();
      catalog.close();
    }
  },
};
