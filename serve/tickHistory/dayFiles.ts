/**
 * The index files of a trading day as tick_history reads them: sorted by symbol, with the
 * minute index's cumulative starts computed once. A file is visible as soon as its catalog
 * row exists (it is complete and immutable by then), like level2's. Once the day is marked
 * sealed its listing can no longer change, so it is kept in the budget's LRU; a day still being sealed
 * (partition by partition under Kafka ingest) is listed afresh on every request. A restatement
 * (api-contract: Corrections) changes a sealed day's listing: the catalog's generation of the
 * day, asked on each use, says when a kept listing is stale.
 */
import type { CatalogBoundaryPart, CatalogFile, CatalogReader } from '../../storage/catalog.js';
import { minuteStarts } from '../../storage/minuteIndex.js';
import type { ByteLru } from '../reading/byteLru.js';
import { listedFileHeapBytes, listedPartHeapBytes } from '../reading/memoryBudget.js';
import { MS_PER_DAY } from '../../shared/timeFormat.js';

export interface DayFile {
  readonly file: CatalogFile;
  readonly starts: Uint32Array;
  /** The boundary part holding this file's candidates, and the file's place in its symbols; null when none does. */
  readonly boundary: { readonly part: CatalogBoundaryPart; readonly symbol: number } | null;
}

export interface DayFiles {
  readonly tradedate: string;
  /** The day's restatement generation when listed. */
  readonly generation: number;
  /** Ascending by symbol. */
  readonly files: readonly DayFile[];
  readonly bySymbol: ReadonlyMap<string, DayFile>;
}

export class TickDays {
  constructor(
    private readonly catalog: CatalogReader,
    /** index files, or level-2 files for asset=stock. */
    private readonly dataset: 'index' | 'level2',
    /**
     * Where sealed days' listings are kept: the detail cache's LRU, inside --cache-mb
     * (memoryBudget.ts). A whole market's level-2 day lists ~15 MB; a count of days was no bound.
     */
    private readonly cache: ByteLru,
  ) {}

  /** The day's listed files of the dataset. */
  day(tradedate: string): DayFiles {
    const generation = this.catalog.restatedGeneration(this.dataset, tradedate);
    const key = `listing:${this.dataset}:${tradedate}`;
    const hit = this.cache.value<DayFiles>(key);
    if (hit && hit.generation === generation) return hit;
    // Asked before listing: a day sealed in between is listed complete and cached next time.
    const sealed = this.catalog.isDaySealed(this.dataset, tradedate);
    // Files first: a part is listed after its files, so every part found names listed files.
    const listed = this.catalog.filesOfDay(this.dataset, tradedate);
    const inPart = new Map<string, DayFile['boundary']>();
    let bytes = 200;
    for (const part of this.catalog.boundaryParts(this.dataset, tradedate)) {
      part.symbols.forEach((symbol, i) => inPart.set(symbol, { part, symbol: i }));
      bytes += listedPartHeapBytes(part.symbols.length, part.directory.size);
    }
    const files = listed
      .filter((f) => f.rows > 0)
      .map((file): DayFile => ({ file, starts: minuteStarts(file.minuteIndex), boundary: inPart.get(file.symbol) ?? null }));
    for (const f of files) bytes += listedFileHeapBytes(f.file.minuteIndex.counts.length);
    const day: DayFiles = { tradedate, generation, files, bySymbol: new Map(files.map((f) => [f.file.symbol, f])) };
    return sealed ? this.cache.keep(key, bytes, day) : day;
  }
}

/**
 * Every calendar date of [from, to]. Stored data decides which of them hold rows, so a day
 * the calendar would not list is still served if files were stored for it. Ranges here are at most one
 * month (the cross-month rule), so walking the dates is cheap.
 */
export function calendarDates(from: string, to: string, maxSpanDays = MAX_SPAN_DAYS): string[] {
  const out: string[] = [];
  const t = new Date(Date.UTC(+from.slice(0, 4), +from.slice(4, 6) - 1, +from.slice(6, 8)));
  const end = Date.UTC(+to.slice(0, 4), +to.slice(4, 6) - 1, +to.slice(6, 8));
  // Compared as instants, not strings: past year 9999 a date string grows a digit and sorts
  // before its end, which once made this loop run for minutes.
  if (!(end - t.getTime() <= maxSpanDays * MS_PER_DAY)) throw new RangeError(`calendarDates: ${from}-${to} is longer than ${maxSpanDays} days`);
  while (t.getTime() <= end) {
    out.push(`${t.getUTCFullYear()}`.padStart(4, '0') + `${t.getUTCMonth() + 1}`.padStart(2, '0') + `${t.getUTCDate()}`.padStart(2, '0'));
    t.setUTCDate(t.getUTCDate() + 1);
  }
  return out;
}

/** Longest span walked: the cross-month rule leaves at most one month to read. */
const MAX_SPAN_DAYS = 31;
