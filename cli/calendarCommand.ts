import { isValidDate, tradingDaysInRange } from '../calendar/tradingCalendar.js';
import { UsageError, type Command } from './command.js';

export const calendarCommand: Command = {
  name: 'calendar',
  summary: 'print the SSE/SZSE trading days of a range, one YYYYMMDD a line',
  usage: 'tickvault calendar --from YYYYMMDD --to YYYYMMDD',
  options: { from: { type: 'string' }, to: { type: 'string' } },
  positionals: 'none',
  async run(ctx) {
    const { from, to } = ctx.flags;
    if (typeof from !== 'string' || !isValidDate(from)) throw new UsageError('--from YYYYMMDD is required and must be a real date');
    if (typeof to !== 'string' || !isValidDate(to)) throw new UsageError('--to YYYYMMDD is required and must be a real date');
    if (from > to) throw new UsageError('--from must not be after --to');
    for (const d of tradingDaysInRange(from, to)) ctx.out(d);
    return 0;
  },
};
