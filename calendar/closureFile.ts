/**
 * The closure file an operator imports (`tickvault calendar import FILE`) and the data
 * directory keeps: one weekday closure `YYYYMMDD` a line; blank lines and `#` comments (whole
 * line or after the date) allowed. Pure text in, checked closures out; no I/O here.
 */
import { CALENDAR_FIRST, isValidDate, isWeekdayDate, type CalendarExtension } from './tradingCalendar.js';

export class ClosureFileError extends Error {
  override name = 'ClosureFileError';
}

export interface ParsedClosures {
  /** Distinct years the file names, ascending. */
  readonly years: readonly number[];
  /** The closures, ascending. */
  readonly closures: readonly string[];
}

const yearOf = (d: string): number => Number(d.slice(0, 4));

/** Parses and checks a closure file: real dates, weekdays only, no duplicates, at least one date. */
export function parseClosureFile(text: string, source: string): ParsedClosures {
  const seen = new Map<string, number>();
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const where = `${source}:${i + 1}`;
    const body = lines[i]!.replace(/#.*$/, '').trim();
    if (body === '') continue;
    if (!/^\d{8}$/.test(body)) throw new ClosureFileError(`${where}: expected one date YYYYMMDD, got "${body}"`);
    if (!isValidDate(body)) throw new ClosureFileError(`${where}: ${body} is not a real date`);
    if (!isWeekdayDate(body))
      throw new ClosureFileError(`${where}: ${body} is a weekend day; list weekday closures only (the exchanges never trade on weekends)`);
    if (body < CALENDAR_FIRST) throw new ClosureFileError(`${where}: ${body} is before the calendar's first day ${CALENDAR_FIRST}`);
    const before = seen.get(body);
    if (before !== undefined) throw new ClosureFileError(`${where}: ${body} is listed twice (first on line ${before})`);
    seen.set(body, i + 1);
  }
  if (seen.size === 0) throw new ClosureFileError(`${source}: no closure dates (one YYYYMMDD a line)`);
  const closures = [...seen.keys()].sort();
  return { closures, years: [...new Set(closures.map(yearOf))] };
}

/** What is known before an import: the end of the known range and the years already imported. */
export interface KnownCalendar {
  readonly last: string;
  readonly imported: CalendarExtension | null;
}

/**
 * The extension after importing `file` on top of `known`: the file's years replace what was known
 * of them (only with `replace`), and new years must follow the known range without a gap, since
 * a year skipped would silently count its holidays as trading days.
 */
export function mergeImport(known: KnownCalendar, file: ParsedClosures, replace: boolean, source: string): CalendarExtension {
  const knownLastYear = yearOf(known.last);
  const already = file.years.filter((y) => y <= knownLastYear);
  if (already.length > 0 && !replace) {
    throw new ClosureFileError(
      `${source}: ${already.join(', ')} ${already.length > 1 ? 'are' : 'is'} already known (the calendar runs through ${known.last}); pass --replace to replace ${already.length > 1 ? "those years'" : "that year's"} closures`,
    );
  }
  for (const y of file.years) {
    if (y > knownLastYear + 1 && !file.years.includes(y - 1)) {
      throw new ClosureFileError(`${source}: names ${y} but not ${y - 1}; the known range ends ${known.last} and each later year needs its closures first`);
    }
  }
  const replaced = new Set(file.years);
  const keptYears = (known.imported?.years ?? []).filter((y) => !replaced.has(y));
  const kept = (known.imported?.closures ?? []).filter((c) => !replaced.has(yearOf(c)));
  return {
    years: [...keptYears, ...file.years].sort((a, b) => a - b),
    closures: [...kept, ...file.closures].sort(),
  };
}

/** The text kept in the data directory for an extension; parseClosureFile reads it back. */
export function formatClosureFile(ext: CalendarExtension, header: readonly string[]): string {
  const lines = header.map((h) => `# ${h}`);
  for (const y of ext.years) {
    lines.push('', `# ${y}`);
    for (const c of ext.closures) if (yearOf(c) === y) lines.push(c);
  }
  return lines.join('\n') + '\n';
}
