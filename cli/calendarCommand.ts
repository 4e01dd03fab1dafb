/**
 * `tickvault calendar`: the known range (no arguments), the trading days of a range (one a line
 * on stdout, warnings on stderr), or `calendar import FILE [--replace]` to add published years.
 */
import { ClosureFileError } from '../calendar/closureFile.js';
import { importClosureFile } from '../calendar/closureStore.js';
import { isValidDate, knownRange, knownRangeWarning, tradingDaysInRange } from '../calendar/tradingCalendar.js';
import { UsageError, type Command, type CommandContext } from './command.js';

const USAGE = 'tickvault calendar [--from YYYYMMDD --to YYYYMMDD] | tickvault calendar import FILE [--replace]';

function warn(line: string): void {
  process.stderr.write(`warning: ${line}\n`);
}

function printKnownRange(ctx: CommandContext): void {
  const r = knownRange();
  ctx.out(`known range ${r.first}..${r.last} (closures of the SSE/SZSE calendar known; outside it only weekends are)`);
  const w = knownRangeWarning(ctx.config.clock.nowMs());
  if (w) warn(w);
}

async function runImport(ctx: CommandContext, args: readonly string[]): Promise<number> {
  if (args.length !== 1) throw new UsageError(`calendar import takes one FILE: ${USAGE}`);
  if (ctx.flags.from !== undefined || ctx.flags.to !== undefined) throw new UsageError('--from/--to do not apply to "calendar import"');
  try {
    const r = await importClosureFile(ctx.config.dataDir, args[0]!, ctx.flags.replace === true, new Date(ctx.config.clock.nowMs()).toISOString());
    ctx.log.debug({ years: r.years, closures: r.closures, path: r.path }, 'closures imported');
    ctx.out(`imported ${r.closures} closures for ${r.years.join(', ')} into ${r.path}; known range ${r.knownRange.first}..${r.knownRange.last}`);
    return 0;
  } catch (e) {
    // A bad file is bad input: one line naming the file and line, exit 2, nothing written.
    if (e instanceof ClosureFileError) throw new UsageError(e.message);
    throw e;
  }
}

export const calendarCommand: Command = {
  name: 'calendar',
  summary: 'show the known range, print the SSE/SZSE trading days of a range, or import published closures',
  usage: USAGE,
  options: { from: { type: 'string' }, to: { type: 'string' }, replace: { type: 'boolean' } },
  help: [
    { flag: 'from', value: 'YYYYMMDD', help: 'first day of the range to list (with --to)' },
    { flag: 'to', value: 'YYYYMMDD', help: 'last day of the range to list (with --from)' },
    { flag: 'replace', help: 'calendar import: replace the closures of years already known' },
  ],
  positionals: 'any',
  async run(ctx) {
    const [sub, ...args] = ctx.positionals;
    if (sub === 'import') return runImport(ctx, args);
    if (sub !== undefined) throw new UsageError(`unknown argument "${sub}": ${USAGE}`);
    if (ctx.flags.replace !== undefined) throw new UsageError('--replace applies to "calendar import" only');
    const { from, to } = ctx.flags;
    if (from === undefined && to === undefined) {
      printKnownRange(ctx);
      return 0;
    }
    if (typeof from !== 'string' || !isValidDate(from)) throw new UsageError('--from YYYYMMDD is required and must be a real date');
    if (typeof to !== 'string' || !isValidDate(to)) throw new UsageError('--to YYYYMMDD is required and must be a real date');
    if (from > to) throw new UsageError('--from must not be after --to');
    const r = knownRange();
    // Said before the list, so that `| head` still shows it on the terminal.
    if (to > r.last || from < r.first) {
      warn(
        `the calendar's known range is ${r.first}..${r.last}; outside it holidays are unknown and every weekday is listed as a trading day (add published years with \`tickvault calendar import FILE\`)`,
      );
    }
    for (const d of tradingDaysInRange(from, to)) ctx.out(d);
    return 0;
  },
};
