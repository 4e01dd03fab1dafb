/**
 * Options of `tickvault mirror`: flags over TICKVAULT_* environment over defaults. The key may
 * come from the environment so that it stays out of `ps` and shell history.
 */
import { readFileSync } from 'node:fs';
import { isInKnownRange, isValidDate, knownRange, latestTradingDay, tradingDaysInRange } from '../../calendar/tradingCalendar.js';
import { ConfigError, oneOf, parsePositiveInt, parseSymbolList, resolveOption, type Env, type Flags, type OptionSpec } from '../../shared/config.js';
import { DATASETS, type Dataset } from '../../shared/schema.js';
import type { MirrorPlan } from './mirrorRun.js';

const required = (what: string) => (t: string, s: string) => {
  if (t.trim() === '') throw new ConfigError(`${s} is required: ${what}`);
  return t.trim();
};

function upstreamUrl(t: string, s: string): string {
  let url: URL;
  try {
    url = new URL(t);
  } catch {
    throw new ConfigError(`${s} must be the upstream's base address, e.g. http://host:8080, got "${t.slice(0, 80)}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`${s} must be an http:// or https:// address, got "${url.protocol}"`);
  return t;
}

const datasetWord = oneOf(DATASETS);

export const MIRROR_OPTIONS = {
  upstream: {
    flag: 'upstream',
    env: 'TICKVAULT_UPSTREAM',
    defaultValue: '',
    parse: upstreamUrl,
    help: "the upstream service's base address ({base_url}: /api is added; an address ending in /api is taken as is)",
  } satisfies OptionSpec<string>,
  key: {
    flag: 'key',
    env: 'TICKVAULT_UPSTREAM_KEY',
    defaultValue: '',
    parse: required('the API key of an account at the upstream'),
    help: 'API key of an account at the upstream (or TICKVAULT_UPSTREAM_KEY, which keeps it out of ps)',
  } satisfies OptionSpec<string>,
  rate: {
    flag: 'rate',
    env: 'TICKVAULT_MIRROR_RATE',
    defaultValue: 10,
    parse: parsePositiveInt,
    help: "requests per second to the upstream, all interfaces together (default 10, half the vendor's 20)",
  } satisfies OptionSpec<number>,
  datasets: {
    flag: 'datasets',
    env: 'TICKVAULT_MIRROR_DATASETS',
    defaultValue: DATASETS as readonly Dataset[],
    parse: (t: string, s: string): readonly Dataset[] => {
      const words = [
        ...new Set(
          t
            .split(',')
            .map((w) => w.trim())
            .filter((w) => w !== ''),
        ),
      ];
      if (words.length === 0) throw new ConfigError(`${s} must name at least one of ${DATASETS.join(', ')}`);
      return words.map((w) => datasetWord(w, s) as Dataset);
    },
    help: 'which datasets: level2, trade, order, index (comma-separated; default all four)',
  } satisfies OptionSpec<readonly Dataset[]>,
};

/** A symbols file: codes separated by commas, spaces or lines; `#` starts a comment. */
function readSymbolsFile(path: string): string {
  try {
    return readFileSync(path, 'utf8').replace(/#.*$/gm, '');
  } catch (e) {
    throw new ConfigError(`--symbols-file ${path} cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/**
 * The trading days of [from, to] by our calendar: the range must lie in the calendar's known
 * range (holidays outside it are unknown) and end by the latest trading day (a mirror seals
 * past days only).
 */
export function mirrorDays(from: string, to: string, nowMs: number): string[] {
  if (!isValidDate(from)) throw new ConfigError(`--from must be a real date YYYYMMDD, got "${from.slice(0, 20)}"`);
  if (!isValidDate(to)) throw new ConfigError(`--to must be a real date YYYYMMDD, got "${to.slice(0, 20)}"`);
  if (from > to) throw new ConfigError(`--from ${from} is after --to ${to}`);
  const range = knownRange();
  if (!isInKnownRange(from) || !isInKnownRange(to)) {
    throw new ConfigError(
      `${from}-${to} is not inside the calendar's known range ${range.first}..${range.last}; import that year's closures with \`tickvault calendar import FILE\` first`,
    );
  }
  const latest = latestTradingDay(nowMs);
  if (to > latest) throw new ConfigError(`--to ${to} is after the latest trading day ${latest}: a mirror takes past days only`);
  const days = tradingDaysInRange(from, to);
  if (days.length === 0) throw new ConfigError(`${from}-${to} holds no trading day`);
  return days;
}

export function loadMirrorPlan(flags: Flags, env: Env, nowMs: number): MirrorPlan {
  const upstream = resolveOption(MIRROR_OPTIONS.upstream, flags, env);
  if (upstream === '') throw new ConfigError('--upstream URL is required (or TICKVAULT_UPSTREAM)');
  const apikey = resolveOption(MIRROR_OPTIONS.key, flags, env);
  if (apikey === '') throw new ConfigError('--key KEY is required (or TICKVAULT_UPSTREAM_KEY)');
  if (typeof flags.from !== 'string' || typeof flags.to !== 'string') throw new ConfigError('--from YYYYMMDD and --to YYYYMMDD are required');
  if (typeof flags.symbols === 'string' && typeof flags['symbols-file'] === 'string') throw new ConfigError('give --symbols or --symbols-file, not both');
  const stocks =
    typeof flags.symbols === 'string'
      ? parseSymbolList(flags.symbols, '--symbols', 'stock')
      : typeof flags['symbols-file'] === 'string'
        ? parseSymbolList(readSymbolsFile(flags['symbols-file']), `--symbols-file ${flags['symbols-file']}`, 'stock')
        : null;
  const indexes = typeof flags.indexes === 'string' ? parseSymbolList(flags.indexes, '--indexes', 'index') : null;
  return {
    upstreamUrl: upstream,
    apikey,
    days: mirrorDays(flags.from, flags.to, nowMs),
    datasets: resolveOption(MIRROR_OPTIONS.datasets, flags, env),
    stocks,
    indexes,
    rate: resolveOption(MIRROR_OPTIONS.rate, flags, env),
  };
}
