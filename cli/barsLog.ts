/**
 * What a command that seals says of the bars its seal made (ingest/seal/bars.ts): a log line
 * with the days, stock-days, bytes and time, and a warning per day left due because a file it
 * reads is not what the catalog says (doctor names the file; repair mends it, and the next seal
 * makes the bars).
 */
import type { BarsKept } from '../ingest/seal/bars.js';
import type { CommandContext } from './command.js';

export function barsLogger(ctx: CommandContext): (kept: BarsKept, ms: number) => void {
  return (kept, ms) => {
    if (kept.days > 0) ctx.log.info({ days: kept.days, stocks: kept.stocks, bytes: kept.bytes, ms }, 'bars made');
    for (const f of kept.failed) ctx.log.warn({ tradedate: f.tradedate, reason: f.reason }, 'bars not made for this day; run tickvault doctor');
  };
}
