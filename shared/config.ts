/**
 * The one place configuration is read: CLI flags over TICKVAULT_* environment over defaults.
 * Everything below receives typed values; nothing else reads process.env.
 */
import { resolve } from 'node:path';
import { offsetClock, parseInstant, systemClock, type Clock } from './clock.js';
import { parseIndexSymbol, parseStockSymbol } from './symbols.js';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export interface OptionSpec<T> {
  /** CLI flag without dashes, e.g. `data-dir`. */
  readonly flag: string;
  /** Environment variable, e.g. `TICKVAULT_DATA_DIR`; omitted when the option is flag-only. */
  readonly env?: string;
  readonly defaultValue: T;
  readonly parse: (text: string, source: string) => T;
  readonly help: string;
  /** The value's placeholder in `--help` (`N`, `FILE`), where the option says it itself. */
  readonly value?: string;
  /** The default as `--help` shows it, where it is not the value itself (`every day`). */
  readonly defaultText?: string;
}

export type Flags = Readonly<Record<string, string | boolean | undefined>>;
export type Env = Readonly<Record<string, string | undefined>>;

/** Whether the user set the option (by flag or environment) rather than leaving its default. */
export function optionGiven(spec: OptionSpec<unknown>, flags: Flags, env: Env): boolean {
  return flags[spec.flag] !== undefined || (spec.env !== undefined && (env[spec.env] ?? '') !== '');
}

export function resolveOption<T>(spec: OptionSpec<T>, flags: Flags, env: Env): T {
  const flag = flags[spec.flag];
  if (typeof flag === 'string') return spec.parse(flag, `--${spec.flag}`);
  if (flag === true) throw new ConfigError(`--${spec.flag} needs a value`);
  const fromEnv = spec.env ? env[spec.env] : undefined;
  if (fromEnv !== undefined && fromEnv !== '') return spec.parse(fromEnv, spec.env!);
  return spec.defaultValue;
}

// ---- parsers -------------------------------------------------------------------------

export function parsePositiveInt(text: string, source: string): number {
  if (!/^\d+$/.test(text) || Number(text) <= 0 || !Number.isSafeInteger(Number(text))) {
    throw new ConfigError(`${source} must be a positive integer, got "${text}"`);
  }
  return Number(text);
}

export function parseNonNegativeInt(text: string, source: string): number {
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new ConfigError(`${source} must be a whole number (0 or more), got "${text}"`);
  }
  return Number(text);
}

export function parsePort(text: string, source: string): number {
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(n >= 0 && n <= 65535)) throw new ConfigError(`${source} must be a port number 0-65535, got "${text}"`);
  return n;
}

/** `HH:MM` local (Beijing) time of day, returned as ms since midnight. */
export function parseClockTime(text: string, source: string): number {
  const m = /^(\d{2}):(\d{2})$/.exec(text);
  if (!m || +m[1] > 23 || +m[2] > 59) throw new ConfigError(`${source} must be a time HH:MM, got "${text}"`);
  return (+m[1] * 60 + +m[2]) * 60_000;
}

const asString = (text: string) => text;

/** A parser accepting exactly these words: `must be auto, on or off`. */
export function oneOf(words: readonly string[]): (text: string, source: string) => string {
  const listed = `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
  return (text, source) => {
    if (!words.includes(text)) throw new ConfigError(`${source} must be ${listed}`);
    return text;
  };
}

/**
 * A list of stock or index codes (separated by commas, spaces or lines) in any accepted form,
 * made canonical, duplicates removed, in the order given; a bad code is named.
 */
export function parseSymbolList(text: string, source: string, kind: 'stock' | 'index'): string[] {
  const parse = kind === 'stock' ? parseStockSymbol : parseIndexSymbol;
  const out = new Set<string>();
  for (const word of text.split(/[\s,]+/).filter((w) => w !== '')) {
    const r = parse(word);
    if (!r.ok) throw new ConfigError(`${source}: "${word.slice(0, 40)}" ${r.reason}`);
    out.add(r.symbol);
  }
  if (out.size === 0) throw new ConfigError(`${source} names no ${kind}`);
  return [...out];
}

// ---- shared options ------------------------------------------------------------------

export const OPTIONS = {
  dataDir: {
    flag: 'data-dir',
    env: 'TICKVAULT_DATA_DIR',
    defaultValue: './data',
    parse: asString,
    help: 'data directory (files, catalog, accounts)',
  } satisfies OptionSpec<string>,
  logLevel: {
    flag: 'log-level',
    env: 'TICKVAULT_LOG_LEVEL',
    defaultValue: 'info',
    parse: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    help: 'log level: fatal, error, warn, info, debug, trace or silent (JSON lines on stderr)',
  } satisfies OptionSpec<string>,
  now: {
    flag: 'now',
    env: 'TICKVAULT_NOW',
    defaultValue: '',
    parse: (t, s) => {
      if (parseInstant(t) === null) throw new ConfigError(`${s} must be an ISO-8601 instant with offset, got "${t}"`);
      return t;
    },
    help: 'pin the clock to this ISO-8601 instant at start (it then advances in real time)',
  } satisfies OptionSpec<string>,
  progress: {
    flag: 'progress',
    env: 'TICKVAULT_PROGRESS',
    defaultValue: 'auto',
    parse: oneOf(['auto', 'on', 'off']),
    help: 'progress bars: auto (only on a TTY), on, off',
  } satisfies OptionSpec<string>,
};

/**
 * Where the shared state (accounts, limits, slots, cursor key) lives: empty for service.db in
 * the data directory (one host), or a PostgreSQL URL shared by every site of one service.
 */
export const STATE_URL_OPTION = {
  flag: 'state-url',
  env: 'TICKVAULT_STATE_URL',
  defaultValue: '',
  parse: (t: string, s: string) => {
    let scheme = '';
    try {
      scheme = new URL(t).protocol;
    } catch {
      throw new ConfigError(`${s} must be a postgres://user@host:port/database URL, got "${t.slice(0, 80)}"`);
    }
    if (scheme !== 'postgres:' && scheme !== 'postgresql:') {
      throw new ConfigError(`${s} must be a postgres:// or postgresql:// URL (leave it unset for service.db in the data directory), got "${scheme}"`);
    }
    return t;
  },
  help: 'shared state (accounts, limits, slots) in PostgreSQL for several hosts or sites, e.g. postgres://tickvault@db:5432/tickvault; unset: service.db in the data directory',
} satisfies OptionSpec<string>;

/**
 * The row text window (storage/rowText/rowTextWindow.ts): the latest N trading days held keep
 * row text, the text of their pages that makes a first touch fast. Read by every command that
 * seals, checks or repairs a lake.
 */
export const ROW_TEXT_DAYS_OPTION = {
  flag: 'row-text-days',
  env: 'TICKVAULT_ROW_TEXT_DAYS',
  defaultValue: 10,
  parse: parseNonNegativeInt,
  help: 'keep row text (derived, under _rowtext/: fast first touches) for the latest N trading days the lake holds; 0: none',
} satisfies OptionSpec<number>;

/** Where sealed files go besides the local disk (storage/store/): a bucket and a key prefix. */
export interface StoreLocation {
  readonly bucket: string;
  /** Ends in `/` unless empty: a file's key is this followed by its catalog path. */
  readonly prefix: string;
  /** As given, for lines and `/metrics` (never holds a secret). */
  readonly url: string;
}

/** `s3://BUCKET/PREFIX`: the bucket's name as S3 allows it (3-63 of a-z 0-9 . -), any prefix. */
export function parseStoreUrl(text: string, source: string): StoreLocation {
  const m = /^s3:\/\/([^/]+)(?:\/(.*))?$/.exec(text);
  if (!m) throw new ConfigError(`${source} must be an s3://BUCKET/PREFIX URL, got "${text.slice(0, 80)}"`);
  const bucket = m[1];
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    throw new ConfigError(`${source}: "${bucket.slice(0, 80)}" is not a bucket name (3 to 63 of a-z, 0-9, '.' and '-')`);
  }
  const trimmed = (m[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (trimmed.split('/').some((part) => part === '.' || part === '..')) throw new ConfigError(`${source}: the prefix may not hold "." or ".." parts`);
  return { bucket, prefix: trimmed === '' ? '' : `${trimmed}/`, url: `s3://${bucket}/${trimmed}` };
}

export const STORE_OPTION = {
  flag: 'store',
  env: 'TICKVAULT_STORE',
  defaultValue: null,
  parse: parseStoreUrl,
  value: 's3://BUCKET/PREFIX',
  help: 'an S3 bucket for sealed files (endpoint, region and keys from AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY); unset: local disk only',
} satisfies OptionSpec<StoreLocation | null>;

/** The store and how to reach it: the standard AWS variables, so every S3 tool agrees. */
export interface StoreConfig extends StoreLocation {
  /** AWS_ENDPOINT_URL (an S3-compatible store); undefined: AWS itself. */
  readonly endpoint: string | undefined;
  readonly region: string;
  /** AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY; undefined: the SDK's own chain (a role). */
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string } | undefined;
}

/** The store given by `--store` or TICKVAULT_STORE, or null when neither is. */
export function loadStoreConfig(flags: Flags, env: Env): StoreConfig | null {
  const location = resolveOption(STORE_OPTION, flags, env);
  if (location === null) return null;
  const endpoint = env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL || undefined;
  if (endpoint !== undefined && !/^https?:\/\/[^/]+/.test(endpoint))
    throw new ConfigError(`AWS_ENDPOINT_URL must be an http:// or https:// URL, got "${endpoint.slice(0, 80)}"`);
  const keyId = env.AWS_ACCESS_KEY_ID ?? '';
  const secret = env.AWS_SECRET_ACCESS_KEY ?? '';
  if ((keyId === '') !== (secret === '')) throw new ConfigError('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set together');
  return {
    ...location,
    endpoint,
    region: env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
    credentials: keyId === '' ? undefined : { accessKeyId: keyId, secretAccessKey: secret },
  };
}

export interface CommonConfig {
  readonly dataDir: string;
  readonly logLevel: string;
  /** The log level was asked for, not defaulted (the demo quiets its sub-commands otherwise). */
  readonly logLevelGiven: boolean;
  readonly clock: Clock;
  readonly progress: boolean;
}

export function loadCommonConfig(flags: Flags, env: Env, isTty: boolean): CommonConfig {
  const now = resolveOption(OPTIONS.now, flags, env);
  const progress = resolveOption(OPTIONS.progress, flags, env);
  return {
    dataDir: resolve(resolveOption(OPTIONS.dataDir, flags, env)),
    logLevel: resolveOption(OPTIONS.logLevel, flags, env),
    logLevelGiven: optionGiven(OPTIONS.logLevel, flags, env),
    clock: now ? offsetClock(parseInstant(now)!) : systemClock(),
    progress: progress === 'on' || (progress === 'auto' && isTty),
  };
}
