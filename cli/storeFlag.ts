/**
 * `--store s3://BUCKET/PREFIX` as the commands that need a store take it (upload, offload,
 * attach): the flag, its help line, and the store it names, required.
 */
import { loadStoreConfig, STORE_OPTION, type StoreConfig } from '../shared/config.js';
import type { OptionDoc } from './helpText.js';
import { UsageError, type CommandContext } from './command.js';

export const STORE_FLAG = { [STORE_OPTION.flag]: { type: 'string' as const } };

export const STORE_HELP: OptionDoc = { flag: STORE_OPTION.flag, env: STORE_OPTION.env, value: STORE_OPTION.value, help: STORE_OPTION.help };

/** The store given by --store or TICKVAULT_STORE; a usage error without one. */
export function requiredStore(ctx: Pick<CommandContext, 'flags' | 'env'>): StoreConfig {
  const config = loadStoreConfig(ctx.flags, ctx.env);
  if (config === null) throw new UsageError('--store s3://BUCKET/PREFIX is required (or set TICKVAULT_STORE)');
  return config;
}
