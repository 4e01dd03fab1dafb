/**
 * `--from YYYYMMDD` / `--to YYYYMMDD` of the commands that list a range of days (days,
 * quarantine): one wording of the error, and the order of the two checked once.
 */
import { isValidDate } from '../calendar/tradingCalendar.js';
import { UsageError } from './command.js';

export function dateFlag(value: unknown, flag: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !isValidDate(value)) throw new UsageError(`--${flag} must be a real date YYYYMMDD, got "${String(value)}"`);
  return value;
}

/** `--from` and `--to`, each optional, the first not after the second. */
export function dateRangeFlags(flags: Readonly<Record<string, unknown>>): { readonly from: string | undefined; readonly to: string | undefined } {
  const from = dateFlag(flags.from, 'from');
  const to = dateFlag(flags.to, 'to');
  if (from !== undefined && to !== undefined && from > to) throw new UsageError('--from must not be after --to');
  return { from, to };
}
