/**
 * `tickvault upload --store s3://BUCKET/PREFIX`: every sealed day's files not yet in the store
 * go there, each verified (storage/store/uploadPass.ts), then each day's manifest. What the
 * ingestor does in the background after each seal; run after `replay`, `import` or `restate`,
 * from cron, or to finish what a crash or a store that was down left. Exit 0 when every day is
 * stored; 1 when a local file is damaged (named; `tickvault repair`) or the store cannot be reached.
 */
import { openCatalog } from '../storage/catalog.js';
import { layoutFor } from '../storage/layout.js';
import { ObjectStore } from '../storage/store/objectStore.js';
import { uploadPass } from '../storage/store/uploadPass.js';
import { requireDataDir } from './dataDirCheck.js';
import type { Command } from './command.js';
import { requiredStore, STORE_FLAG, STORE_HELP } from './storeFlag.js';

export const uploadCommand: Command = {
  name: 'upload',
  summary: "copy sealed days' files to the store (--store s3://…), each verified, with each day's manifest; resumes where it stopped",
  usage: 'tickvault upload --store s3://BUCKET/PREFIX [--data-dir DIR]',
  options: STORE_FLAG,
  help: [STORE_HELP],
  positionals: 'none',
  async run(ctx) {
    const config = requiredStore(ctx);
    requireDataDir(ctx.config.dataDir);
    const catalog = openCatalog(layoutFor(ctx.config.dataDir).catalogDb);
    const store = new ObjectStore(config);
    const started = Date.now();
    try {
      const done = await uploadPass({ dataDir: ctx.config.dataDir, catalog, store, nowMs: () => ctx.config.clock.nowMs() });
      const mib = (done.bytes / 1024 / 1024).toFixed(1);
      const secs = (Date.now() - started) / 1000;
      ctx.out(
        `stored ${done.days} day${done.days === 1 ? '' : 's'} in ${config.url}: ${done.files} files sent (${mib} MiB, ` +
          `${(done.bytes / 1024 / 1024 / Math.max(secs, 0.001)).toFixed(1)} MiB/s), ${done.found} found there already, in ${secs.toFixed(1)} s; ` +
          `${done.due} day${done.due === 1 ? '' : 's'} still due`,
      );
      for (const f of done.failed) process.stderr.write(`NOT STORED ${f.key}: ${f.reason}\n`);
      return done.failed.length > 0 || done.due > 0 ? 1 : 0;
    } finally {
      store.close();
      catalog.close();
    }
  },
};
