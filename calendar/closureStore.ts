/**
 * The operator's closures, kept in the data directory so that every command on it (serve,
 * ingest, replay, seal, calendar, doctor, demo) uses the same calendar. The file holds only
 * what was imported; the shipped list stays in calendar/closures.ts.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { writeDurably } from '../shared/durableFile.js';
import { join } from 'node:path';
import { ClosureFileError, formatClosureFile, mergeImport, parseClosureFile } from './closureFile.js';
import { CALENDAR_LAST, installClosures, type CalendarExtension, type KnownRange } from './tradingCalendar.js';

export const CLOSURES_FILE = 'calendar-closures.txt';

export function closuresPath(dataDir: string): string {
  return join(dataDir, CLOSURES_FILE);
}

function readStored(dataDir: string): CalendarExtension | null {
  const path = closuresPath(dataDir);
  if (!existsSync(path)) return null;
  const parsed = parseClosureFile(readFileSync(path, 'utf8'), path);
  // Re-checked as an import over the shipped list: a hand-edited file with a gap is refused.
  return mergeImport({ last: CALENDAR_LAST, imported: null }, parsed, true, path);
}

/**
 * Installs the shipped list plus the data directory's imported closures (if any) as this
 * process's calendar; a missing directory or file means the shipped list alone. A damaged file
 * throws a ClosureFileError naming its line.
 */
export function loadCalendarExtension(dataDir: string): KnownRange {
  return installClosures(readStored(dataDir));
}

export interface ImportResult {
  readonly years: readonly number[];
  readonly closures: number;
  readonly knownRange: KnownRange;
  readonly path: string;
}

/**
 * Checks `file` against what the data directory already knows, then writes the merged list
 * durably (shared/durableFile.ts) and installs it. Nothing is written when a check fails.
 */
export async function importClosureFile(dataDir: string, file: string, replace: boolean, nowIso: string): Promise<ImportResult> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ClosureFileError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const parsed = parseClosureFile(text, file);
  const imported = readStored(dataDir);
  const before = installClosures(imported);
  const merged = mergeImport({ last: before.last, imported }, parsed, replace, file);
  const range = installClosures(merged); // throws (before anything is written) if inconsistent
  mkdirSync(dataDir, { recursive: true });
  const path = closuresPath(dataDir);
  const body = formatClosureFile(merged, [
    'SSE/SZSE weekday closures imported by `tickvault calendar import` (one YYYYMMDD a line).',
    `Extends the shipped calendar (through ${CALENDAR_LAST}); known through ${range.last}. Last import ${nowIso}.`,
  ]);
  await writeDurably(path, Buffer.from(body));
  return { years: parsed.years, closures: parsed.closures.length, knownRange: range, path };
}
