import { availableParallelism } from 'node:os';
import {
  loadStoreConfig,
  parseNonNegativeInt,
  parsePort,
  parsePositiveInt,
  resolveOption,
  type Env,
  type Flags,
  type OptionSpec,
  type StoreConfig,
} from '../../shared/config.js';

/** Options of `tickvault serve`: flags over TICKVAULT_* environment over these defaults. */
export const SERVE_OPTIONS = {
  port: {
    flag: 'port',
    env: 'TICKVAULT_PORT',
    defaultValue: 8080,
    parse: parsePort,
    help: 'TCP port to listen on (0 picks a free one; the bound address is logged)',
  } satisfies OptionSpec<number>,
  host: {
    flag: 'host',
    env: 'TICKVAULT_HOST',
    defaultValue: '127.0.0.1',
    parse: (t: string) => t,
    help: 'address to listen on',
  } satisfies OptionSpec<string>,
  rateLimit: {
    flag: 'rate-limit',
    env: 'TICKVAULT_RATE_LIMIT',
    defaultValue: 20,
    parse: parsePositiveInt,
    help: 'requests per second per account, all operations together',
  } satisfies OptionSpec<number>,
  leaseSeconds: {
    flag: 'lease-seconds',
    env: 'TICKVAULT_LEASE_SECONDS',
    defaultValue: 30,
    parse: parsePositiveInt,
    help: 'lease of a request slot: how long a crashed holder blocks its account',
  } satisfies OptionSpec<number>,
  cacheMb: {
    flag: 'cache-mb',
    env: 'TICKVAULT_CACHE_MB',
    defaultValue: 768,
    parse: parsePositiveInt,
    help: 'memory for every cache of sealed data together (MiB): a third for decoded columns and serialised rows, two thirds for tick_history boundary rows',
  } satisfies OptionSpec<number>,
  jsonThreads: {
    flag: 'json-threads',
    env: 'TICKVAULT_JSON_THREADS',
    defaultValue: Math.min(4, availableParallelism()),
    parse: parseNonNegativeInt,
    help: 'worker threads making the JSON of row groups not yet cached (0: on the main thread)',
  } satisfies OptionSpec<number>,
  storeCacheMb: {
    flag: 'store-cache-mb',
    env: 'TICKVAULT_STORE_CACHE_MB',
    defaultValue: 1024,
    parse: parsePositiveInt,
    help: 'local disk for the blocks of offloaded days read from the store (MiB), under store-cache/ in the data directory; with --store',
  } satisfies OptionSpec<number>,
};

export interface ServeConfig {
  readonly port: number;
  readonly host: string;
  readonly rateLimitPerSec: number;
  readonly leaseMs: number;
  /** The memory budget of every cache together (serve/operations.ts splits it). */
  readonly cacheBytes: number;
  /** Row-JSON worker threads (serve/detailedHistory/rowJsonPool.ts); 0 = none. */
  readonly jsonThreads: number;
  /** The store offloaded days are read from (--store); null: every file is local. */
  readonly store: StoreConfig | null;
  /** The disk bound of the store's block cache, bytes. */
  readonly storeCacheBytes: number;
}

export function loadServeConfig(flags: Flags, env: Env): ServeConfig {
  return {
    port: resolveOption(SERVE_OPTIONS.port, flags, env),
    host: resolveOption(SERVE_OPTIONS.host, flags, env),
    rateLimitPerSec: resolveOption(SERVE_OPTIONS.rateLimit, flags, env),
    leaseMs: resolveOption(SERVE_OPTIONS.leaseSeconds, flags, env) * 1000,
    cacheBytes: resolveOption(SERVE_OPTIONS.cacheMb, flags, env) * 1024 * 1024,
    jsonThreads: resolveOption(SERVE_OPTIONS.jsonThreads, flags, env),
    store: loadStoreConfig(flags, env),
    storeCacheBytes: resolveOption(SERVE_OPTIONS.storeCacheMb, flags, env) * 1024 * 1024,
  };
}
