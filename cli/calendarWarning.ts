/**
 * The calendar's warnings as log lines. Outside the known range a weekday counts as a trading
 * day, so any command that relies on that says so rather than guess silently.
 */
import { knownRange, knownRangeWarning } from '../calendar/tradingCalendar.js';
import type { CommandContext } from './command.js';

/** Long-running commands (serve, ingest): warn at start when the known range ends within 30 days. */
export function warnNearKnownRangeEnd(ctx: CommandContext): void {
  const w = knownRangeWarning(ctx.config.clock.nowMs());
  if (w !== null) ctx.log.warn({ knownRange: knownRange() }, w);
}

/** Commands handed days (replay, generate): warn once for those past the known range. */
export function warnPastKnownRange(ctx: CommandContext, days: Iterable<string>): void {
  const r = knownRange();
  const past = [...new Set(days)].filter((d) => d > r.last).sort();
  if (past.length === 0) return;
  ctx.log.warn(
    { days: past, knownRange: r },
    `${past.length} day(s) past the calendar's known range (through ${r.last}), from ${past[0]}: their holidays are unknown and every weekday counts as a trading day; import the published closures with \`tickvault calendar import FILE\``,
  );
}
