import { isValidDate, recentTradingDays, tradingDaysFrom } from '../calendar/tradingCalendar.js';
import { parsePositiveInt, resolveOption, ConfigError } from '../shared/config.js';
import { DEFAULT_SEED, expectedRows, generateFeedChunks } from '../ingest/feed/generate.js';
import { LINE_KINDS } from '../ingest/feed/jsonLineBuffer.js';
import { FeedWriter } from '../ingest/feed/writer.js';
import { warnPastKnownRange } from './calendarWarning.js';
import { createProgress } from './progress.js';
import { UsageError, type Command } from './command.js';

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
    out: { type: 'string' }, from: { type: 'string' }, days: { type: 'string' }, stocks: { type: 'string' },
    indexes: { type: 'string' }, seed: { type: 'string' }, faults: { type: 'string' }, ticks: { type: 'string' }, 'tick-days': { type: 'string' },
  },
  help: [
    { flag: 'out', value: 'FILE', help: 'feed file to write (required); .zst or .gz compresses' },
    { flag: 'from', value: 'YYYYMMDD', help: 'first trading day on or after this date', default: 'the latest --days trading days up to the clock' },
    { flag: 'days', value: 'N', help: 'trading days', default: '5' },
    { flag: 'stocks', value: 'N', help: 'stocks (0 allowed)', default: '50' },
    { flag: 'indexes', value: 'N', help: 'indexes (0 allowed)', default: '20' },
    { flag: 'seed', value: 'S', help: 'seed: the same seed writes the same feed', default: DEFAULT_SEED },
    { flag: 'faults', value: 'RATE', help: 'share of lines (0-1) followed by a bad line or a corrected duplicate', default: '0' },
    {
      flag: 'ticks', value: 'SCALE',
      help: `tick-by-tick orders and trades of the stocks, coherent with the snapshots: 1 ≈ 5,000 trades and ~9,000 orders per stock-day, 2 about twice the trades (0-${MAX_TICKS}; 0 writes none)`,
      default: '1',
    },
    { flag: 'tick-days', value: 'N', help: 'only the latest N of the generated days get orders and trades', default: 'every day' },
  ],
  positionals: 'none',
  async run(ctx) {
    const out = ctx.flags.out;
    if (typeof out !== 'string') throw new UsageError('--out FILE is required');
    const opt = <T>(flag: string, defaultValue: T, parse: (t: string, s: string) => T) =>
      resolveOption({ flag, defaultValue, parse, help: '' }, ctx.flags, {});
    const count = (t: string, s: string) => (t === '0' ? 0 : parsePositiveInt(t, s));
    const days = generationDays(
      typeof ctx.flags.from === 'string' ? ctx.flags.from : undefined,
      opt('days', 5, parsePositiveInt),
      ctx.config.clock.nowMs(),
    );
    warnPastKnownRange(ctx, days);
    const stocks = opt('stocks', 50, count);
    const indexes = opt('indexes', 20, count);
    const seed = opt('seed', DEFAULT_SEED, (t) => t);
    const faults = opt('faults', 0, parseRate);
    const ticks = opt('ticks', 1, parseTicks);
    const tickDays = days.slice(-opt('tick-days', days.length, parsePositiveInt));
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
    ctx.out(`generated ${lines} lines (${kinds}), ${days.length} trading days ${days[0]}..${days[days.length - 1]}, ${stocks} stocks, ${indexes} indexes -> ${out}`);
    return 0;
  },
};
