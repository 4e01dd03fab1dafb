/**
 * The status of every dataset-day (api-contract: Corrections), for `tickvault days`: from the
 * facts the catalog and ingest.db hold to one row per dataset and day, and its text and JSON
 * forms. Nothing here opens a file: the command gathers the facts through `DayFactSource`.
 */
import { previousTradingDay, tradingDaysInRange } from '../../calendar/tradingCalendar.js';
import type { Dataset } from '../../shared/schema.js';

/** What the catalog answers about a day (CatalogReader has these). */
export interface DayFactSource {
  isDaySealed(dataset: Dataset, tradedate: string): boolean;
  dayTotals(dataset: Dataset, tradedate: string): { readonly files: number; readonly rows: number };
  /** Absent in a catalog without versions: every file is then version 1. */
  dayVersions?(dataset: Dataset, tradedate: string): { readonly restatedSymbols: number; readonly highestVersion: number };
  symbolsOfDay(dataset: Dataset, tradedate: string): string[];
}

/** A staged (not sealed) dataset-day, as ingest.db lists it. */
export interface StagedDay {
  readonly dataset: Dataset;
  readonly tradedate: string;
  readonly symbols: number;
  readonly records: number;
}

/** Everything known of one dataset-day. */
export interface DayFacts {
  readonly dataset: Dataset;
  readonly day: string;
  readonly sealed: boolean;
  /** Current files and their rows in the catalog. */
  readonly files: number;
  readonly rows: number;
  readonly highestVersion: number;
  readonly restatedSymbols: number;
  /** Open symbols and records (duplicates not resolved yet) staged for the day. */
  readonly stagedSymbols: number;
  readonly stagedRecords: number;
  /** Late messages for the day waiting in quarantine. */
  readonly late: number;
  /** Symbols with a file on the day. */
  readonly symbols: readonly string[];
  /** The previous trading day and its symbols, when that day is sealed; null otherwise. */
  readonly previous: { readonly day: string; readonly symbols: readonly string[] } | null;
  /** Whether the day's files are in the store (issue 50: its files and manifest uploaded and verified). */
  readonly stored: boolean;
  /** Whether `tickvault offload` removed the day's local copies: its files are in the store only. */
  readonly offloaded: boolean;
}

/**
 * Where a day's files are: `local` (this disk only), `both` (here and verified in the store),
 * `stored` (the store only: offloaded); `-` for a day without files.
 */
export type DayPlace = 'local' | 'both' | 'stored' | '-';

export type DayState = 'empty' | 'live' | 'not sealed' | 'sealed' | 'restated';

/** One row of the report (also its JSON object, one a line). */
export interface DayStatus {
  readonly dataset: Dataset;
  readonly day: string;
  readonly status: DayState;
  readonly where: DayPlace;
  /** Highest current version of the day's files (1: none restated). */
  readonly version: number;
  readonly restatedSymbols: number;
  readonly files: number;
  readonly rows: number;
  readonly stagedSymbols: number;
  readonly stagedRecords: number;
  readonly late: number;
  /**
   * Symbols of the previous trading day without a file on this one (sorted); null unless both
   * days are sealed.
   */
  readonly missing: { readonly against: string; readonly count: number; readonly symbols: readonly string[] } | null;
}

export function dayStatus(f: DayFacts): DayStatus {
  let status: DayState;
  if (f.sealed) status = f.highestVersion > 1 ? 'restated' : 'sealed';
  // Rows staged and not sealed: the day is live (api-contract: The live day), its pages served from staging.
  else if (f.stagedRecords > 0) status = 'live';
  else status = f.stagedSymbols > 0 || f.files > 0 ? 'not sealed' : 'empty';
  let missing: DayStatus['missing'] = null;
  if (f.sealed && f.previous !== null) {
    const here = new Set(f.symbols);
    const gone = f.previous.symbols.filter((s) => !here.has(s)).sort();
    missing = { against: f.previous.day, count: gone.length, symbols: gone };
  }
  return {
    dataset: f.dataset,
    day: f.day,
    status,
    where: f.files === 0 ? '-' : f.offloaded ? 'stored' : f.stored ? 'both' : 'local',
    version: f.highestVersion,
    restatedSymbols: f.restatedSymbols,
    files: f.files,
    rows: f.rows,
    stagedSymbols: f.stagedSymbols,
    stagedRecords: f.stagedRecords,
    late: f.late,
    missing,
  };
}

/**
 * The facts of each day of `days` for each of `datasets`, dataset by dataset. `catalog` null:
 * no catalog.db yet (nothing sealed). `late` is keyed `dataset|tradedate`; `stored`: the days
 * wholly in the store; `offloaded`: those of them with no local copies left.
 */
export function collectDayFacts(
  catalog: DayFactSource | null,
  datasets: readonly Dataset[],
  days: readonly string[],
  late: ReadonlyMap<string, number>,
  staged: readonly StagedDay[],
  stored: ReadonlySet<string> = new Set(),
  offloaded: ReadonlySet<string> = new Set(),
): DayFacts[] {
  const stagedBy = new Map(staged.map((s) => [`${s.dataset}|${s.tradedate}`, s]));
  const out: DayFacts[] = [];
  for (const dataset of datasets) {
    for (const day of days) {
      const sealed = catalog?.isDaySealed(dataset, day) ?? false;
      const totals = catalog?.dayTotals(dataset, day) ?? { files: 0, rows: 0 };
      const versions = catalog?.dayVersions?.(dataset, day) ?? { restatedSymbols: 0, highestVersion: 1 };
      const s = stagedBy.get(`${dataset}|${day}`);
      let previous: DayFacts['previous'] = null;
      if (sealed && catalog !== null) {
        const prev = previousTradingDay(day);
        if (catalog.isDaySealed(dataset, prev)) previous = { day: prev, symbols: catalog.symbolsOfDay(dataset, prev) };
      }
      out.push({
        dataset,
        day,
        sealed,
        files: totals.files,
        rows: totals.rows,
        highestVersion: versions.highestVersion,
        restatedSymbols: versions.restatedSymbols,
        stagedSymbols: s?.symbols ?? 0,
        stagedRecords: s?.records ?? 0,
        late: late.get(`${dataset}|${day}`) ?? 0,
        symbols: sealed && catalog !== null ? catalog.symbolsOfDay(dataset, day) : [],
        previous,
        stored: stored.has(day),
        offloaded: offloaded.has(day),
      });
    }
  }
  return out;
}

/**
 * The days to report: the trading days of from..to, and any stored day in it the calendar does
 * not count (a day sealed with --force), ascending.
 */
export function reportDays(from: string, to: string, storedDays: Iterable<string>): string[] {
  const days = new Set(tradingDaysInRange(from, to));
  for (const d of storedDays) if (d >= from && d <= to) days.add(d);
  return [...days].sort();
}

/** `restated v2 (1 symbol)`, `sealed`, … */
function statusText(s: DayStatus): string {
  if (s.status !== 'restated') return s.status;
  return `restated v${s.version} (${s.restatedSymbols} symbol${s.restatedSymbols === 1 ? '' : 's'})`;
}

/** `-` when not compared, `0`, or `2: 600001.SH, 600002.SH` with at most `names` names. */
function missingText(s: DayStatus, names: number): string {
  if (s.missing === null) return '-';
  if (s.missing.count === 0) return '0';
  const shown = s.missing.symbols.slice(0, names).join(', ');
  return `${s.missing.count}: ${shown}${s.missing.count > names ? ', …' : ''}`;
}

const HEADER = ['DATASET', 'DAY', 'STATUS', 'WHERE', 'FILES', 'ROWS', 'STAGED', 'LATE', 'MISSING'] as const;
/** Columns aligned right (numbers). */
const RIGHT = new Set([4, 5, 6, 7]);

/** The report as aligned text lines, a header first; `names`: missing symbols named per day. */
export function statusTable(rows: readonly DayStatus[], names = 3): string[] {
  const cells = rows.map((s) => [
    s.dataset,
    s.day,
    statusText(s),
    s.where,
    String(s.files),
    String(s.rows),
    s.stagedRecords > 0 ? String(s.stagedRecords) : '-',
    String(s.late),
    missingText(s, names),
  ]);
  const all = [[...HEADER], ...cells];
  const widths = HEADER.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  return all.map((r) => r.map((c, i) => (i === r.length - 1 ? c : RIGHT.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  '));
}

/** One JSON object (one line) per day. */
export function statusJson(s: DayStatus): string {
  return JSON.stringify(s);
}
