import { isValidDate, recentTradingDays, tradingDaysFrom } from '../calendar/tradingCalendar.js';
import { parsePositiveInt, resolveOption, ConfigError, type OptionSpec } from '../shared/config.js';
import { DEFAULT_SEED, expectedRows, generateFeedChunks } from '../ingest/feed/generate.js';
import { LINE_KINDS } from '../ingest/feed/jsonLineBuffer.js';
import { FeedWriter } from '../ingest/feed/writer.js';
import { warnPastKnownRange } from './calendarWarning.js';
import { createProgress } from './progress.js';
import { UsageError, type Command } from './command.js';
import { docOf } from './helpText.js';

/** Largest --ticks: a snapshot trades at most 59 lots (one trade each at most), so counts level off near here (~110,000 trades a stock-day at 60). */
const MAX_TICKS = 60;

function parseRate(text: string, source: string): number {
  const n = Number(text);
  if (!/^\d*\.?\d+$/.test(text) || n < 0 || n > 1) throw new ConfigError(`${source} must be a number from 0 to 1`);
  return n;
}

function parseTicks(text: string, source: string): number {
  const n = Number(text);
  if (!/^\d*\.?\d+$/.test(text) || n > MAX_TICKS) throw new ConfigError(`${source} must be a number from 0 to ${MAX_TICKS}, got "${text}"`);
  return n;
}

const parseCount = (t: string, s: string) => (t === '0' ? 0 : parsePositiveInt(t, s));

/** The numbered options: their defaults, parsers and help in one place (help and run both read them). */
const GENERATE_OPTIONS = {
  days: { flag: 'days', value: 'N', defaultValue: 5, parse: parsePositiveInt, help: 'trading days' } satisfies OptionSpec<number>,
  stocks: { flag: 'stocks', value: 'N', defaultValue: 50, parse: parseCount, help: 'stocks (0 allowed)' } satisfies OptionSpec<number>,
  indexes: { flag: 'indexes', value: 'N', defaultValue: 20, parse: parseCount, help: 'indexes (0 allowed)' } satisfies OptionSpec<number>,
  seed: {
    flag: 'seed',
    value: 'S',
    defaultValue: DEFAULT_SEED,
    parse: (t: string) => t,
    help: 'seed: the same seed writes the same feed',
  } satisfies OptionSpec<string>,
  faults: {
    flag: 'faults',
    value: 'RATE',
    defaultValue: 0,
    parse: parseRate,
    help: 'share of lines (0-1) followed by a bad line or a corrected duplicate',
  } satisfies OptionSpec<number>,
  ticks: {
    flag: 'ticks',
    value: 'SCALE',
    defaultValue: 1,
    parse: parseTicks,
    help: `tick-by-tick orders and trades of the stocks, coherent with the snapshots: 1 ≈ 5,000 trades and ~9,000 orders per stock-day, 2 about twice the trades (0-${MAX_TICKS}; 0 writes none)`,
  } satisfies OptionSpec<number>,
  /** Default (0): every generated day; the real default depends on --days. */
  tickDays: {
    flag: 'tick-days',
    value: 'N',
    defaultValue: 0,
    defaultText: 'every day',
    parse: parsePositiveInt,
    help: 'only the latest N of the generated days get orders and trades',
  } satisfies OptionSpec<number>,
};

/** The trading days to generate: N from --from on, else the N latest up to the clock's today. */
export function generationDays(from: string | undefined, days: number, nowMs: number): string[] {
  if (from === undefined) return recentTradingDays(nowMs, days);
  if (!isValidDate(from)) throw new UsageError(`--from must be a date YYYYMMDD, got "${from}"`);
  return tradingDaysFrom(from, days);
}

export const generateCommand: Command = {
  name: 'generate',
  summary: 'write a deterministic synthetic feed (JSON Lines; .zst or .gz by extension)',
  usage: 'tickvault generate --out FILE [--from YYYYMMDD] [--days N] [--stocks N] [--indexes N] [--seed S] [--faults RATE] [--ticks SCALE] [--tick-days N]',
  options: {
    out: { type: 'string' },
    from: { type: 'string' },
    days: { type: 'string' },
    stocks: { type: 'string' },
    indexes: { type: 'string' },
    seed: { type: 'string' },
    faults: { type: 'string' },
    ticks: { type: 'string' },
    'tick-days': { type: 'string' },
  },
  help: [
    { flag: 'out', value: 'FILE', help: 'feed file to write (required); .zst or .gz compresses' },
    { flag: 'from', value: 'YYYYMMDD', help: 'first trading day on or after this date', default: 'the latest --days trading days up to the clock' },
    ...Object.values(GENERATE_OPTIONS).map((o) => docOf<number | string>(o)),
  ],
  positionals: 'none',
  async run(ctx) {
    const out = ctx.flags.out;
    if (typeof out !== 'string') throw new UsageError('--out FILE is required');
    const opt = <T>(spec: OptionSpec<T>): T => resolveOption(spec, ctx.flags, {});
    const days = generationDays(typeof ctx.flags.from === 'string' ? ctx.flags.from : undefined, opt(GENERATE_OPTIONS.days), ctx.config.clock.nowMs());
    warnPastKnownRange(ctx, days);
    const stocks = opt(GENERATE_OPTIONS.stocks);
    const indexes = opt(GENERATE_OPTIONS.indexes);
    const seed = opt(GENERATE_OPTIONS.seed);
    const faults = opt(GENERATE_OPTIONS.faults);
    const ticks = opt(GENERATE_OPTIONS.ticks);
    const tickDays = days.slice(-(opt(GENERATE_OPTIONS.tickDays) || days.length));
    const total = expectedRows({ days, stocks, indexes, ticks, tickDays });
    const writer = new FeedWriter(out); // throws at once on an unusable path, before any progress bar
    const bar = createProgress(ctx.config.progress, 'generate', total, 'lines');
    let lines = 0;
    // Per kind, by the line's start: every line (an injected bad one too) begins with its kind.
    const perKind = [0, 0, 0, 0];
    for (const chunk of generateFeedChunks({ days, stocks, indexes, seed, faults, ticks, tickDays })) {
      // Compressed and written while the next chunk is generated (one in flight).
      await writer.writeBytes(chunk.bytes);
      for (let k = 0; k < perKind.length; k++) perKind[k] += chunk.perKind[k];
      lines += chunk.lines;
      bar.update(Math.min(lines, total));
    }
    await writer.close();
    bar.stop();
    const kinds = LINE_KINDS.map((k, i) => `${k} ${perKind[i]}`).join(', ');
    ctx.log.debug({ out, lines, days, stocks, indexes, seed, faults, ticks, tickDays }, 'feed generated');
    ctx.out(
      `generated ${lines} lines (${kinds}), ${days.length} trading days ${days[0]}..${days[days.length - 1]}, ${stocks} stocks, ${indexes} indexes -> ${out}`,
    );
    return 0;
  },
};
