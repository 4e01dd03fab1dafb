/**
 * Options of `tickvault repair`: flags over TICKVAULT_* environment over defaults. `--from` is
 * a peer server's base address (http:// or https://), a directory holding a catalog (a peer's
 * data directory, or a backup), or the store (s3://BUCKET/PREFIX); the key and the rate are the mirror's own options, so one
 * TICKVAULT_UPSTREAM_KEY serves both commands.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError, loadStoreConfig, resolveOption, STORE_OPTION, type Env, type Flags, type OptionSpec, type StoreConfig } from '../../shared/config.js';
import { MIRROR_OPTIONS } from '../mirror/mirrorConfig.js';
import { layoutFor } from '../../storage/layout.js';

export const REPAIR_OPTIONS = {
  from: {
    flag: 'from',
    env: 'TICKVAULT_REPAIR_FROM',
    defaultValue: '',
    parse: (t: string) => t.trim(),
    help: "where sound copies are: a peer tickvault server's base address (http://host:8080; /api is added), a directory (a peer's data directory, or a backup by tickvault backup), or the store the lake is uploaded to (s3://BUCKET/PREFIX)",
  } satisfies OptionSpec<string>,
  key: MIRROR_OPTIONS.key,
  rate: MIRROR_OPTIONS.rate,
};

export type RepairFrom =
  | { readonly kind: 'dir'; readonly dir: string }
  | { readonly kind: 'url'; readonly url: string; readonly apikey: string; readonly rate: number }
  /** The bucket the lake is uploaded to (issue 50): `s3://BUCKET/PREFIX`, reached with the AWS_* variables. */
  | { readonly kind: 'store'; readonly store: StoreConfig };

export function loadRepairFrom(flags: Flags, env: Env, dataDir: string): RepairFrom {
  const from = resolveOption(REPAIR_OPTIONS.from, flags, env);
  if (from === '') throw new ConfigError('--from URL|DIR is required (or TICKVAULT_REPAIR_FROM)');
  if (from.startsWith('s3://')) {
    if (typeof flags.key === 'string')
      throw new ConfigError('--key goes with --from URL; a store takes its keys from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY');
    return { kind: 'store', store: loadStoreConfig({ [STORE_OPTION.flag]: from }, env)! };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(from)) {
    let url: URL;
    try {
      url = new URL(from);
    } catch {
      throw new ConfigError(`--from must be a peer's base address, e.g. http://host:8080, or a directory; got "${from.slice(0, 80)}"`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new ConfigError(`--from must be an http:// or https:// address or a directory, got "${url.protocol}"`);
    const apikey = resolveOption(REPAIR_OPTIONS.key, flags, env);
    if (apikey === '') throw new ConfigError('--key KEY is required with --from URL (or TICKVAULT_UPSTREAM_KEY)');
    return { kind: 'url', url: from, apikey, rate: resolveOption(REPAIR_OPTIONS.rate, flags, env) };
  }
  if (typeof flags.key === 'string') throw new ConfigError('--key goes with --from URL; a directory needs none');
  let isDir = false;
  try {
    isDir = statSync(from).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) throw new ConfigError(`--from ${from} is neither an http(s):// address nor a directory`);
  if (resolve(from) === resolve(dataDir)) throw new ConfigError('--from names the data directory itself');
  let hasCatalog = false;
  try {
    hasCatalog = statSync(layoutFor(from).catalogDb).isFile();
  } catch {
    hasCatalog = false;
  }
  if (!hasCatalog) throw new ConfigError(`--from ${from} holds no catalog.db: not a data directory or a backup`);
  return { kind: 'dir', dir: from };
}
