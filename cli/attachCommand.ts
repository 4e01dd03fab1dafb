/**
 * `tickvault attach --store s3://BUCKET/PREFIX --data-dir DIR`: a new data directory that
 * serves every day stored in the bucket, without copying a file (storage/store/attach.ts): its
 * catalog comes from the days' manifests, checked against their recorded SHA-256. Then
 * `tickvault serve --store … --data-dir DIR` answers those days from the store.
 */
import { resolve } from 'node:path';
import { optionGiven, OPTIONS } from '../shared/config.js';
import { ObjectStore } from '../storage/store/objectStore.js';
import { attach } from '../storage/store/attach.js';
import { UsageError, type Command } from './command.js';
import { requiredStore, STORE_FLAG, STORE_HELP } from './storeFlag.js';

export const attachCommand: Command = {
  name: 'attach',
  summary: "make a new data directory that serves every day stored in a bucket (--store s3://…), its catalog from the days' manifests; nothing copied",
  usage: 'tickvault attach --store s3://BUCKET/PREFIX --data-dir DIR',
  options: STORE_FLAG,
  help: [STORE_HELP],
  positionals: 'none',
  async run(ctx) {
    const config = requiredStore(ctx);
    if (!optionGiven(OPTIONS.dataDir, ctx.flags, ctx.env)) {
      throw new UsageError('--data-dir DIR is required: the new data directory');
    }
    const dataDir = resolve(ctx.config.dataDir);
    const store = new ObjectStore(config);
    const started = Date.now();
    try {
      const a = await attach({ dataDir, store, nowMs: () => ctx.config.clock.nowMs() });
      ctx.out(
        `attached ${dataDir} to ${config.url}: ${a.days} day${a.days === 1 ? '' : 's'}, ${a.objects} files (${(a.bytes / 1024 / 1024).toFixed(1)} MiB in the store, none copied) ` +
          (a.state === null ? '' : `with the state of backup ${a.state.stamp} (${a.state.files} files: accounts, keys, staging) `) +
          `in ${((Date.now() - started) / 1000).toFixed(1)} s; serve it with tickvault serve --store ${config.url} --data-dir ${dataDir}`,
      );
      return 0;
    } finally {
      store.close();
    }
  },
};
