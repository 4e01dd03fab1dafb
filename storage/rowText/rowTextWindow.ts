/**
 * Which sealed days keep row text (rowTextFile.ts): the latest N trading days the lake holds.
 * Row text makes a first touch fast (0.15× DuckDB against the column path's 0.25–0.43×) but
 * is 0.81× the Parquet bytes of its day and cost the seal more than encoding the files did;
 * desks touch the latest days first and old days rarely, so only those days pay for it
 * (issue 52). "Latest" is by the days the catalog holds, not by the clock: a lake replayed
 * from an archive keeps row text for its own latest days, and an old archive imported into a
 * current lake gets none. The window's size is --row-text-days (shared/config.ts).
 */

/** The days of `storedDays` (ascending, as CatalogReader.storedTradingDays) inside a window of `days`. */
export function rowTextWindow(storedDays: readonly string[], days: number): ReadonlySet<string> {
  return new Set(days <= 0 ? [] : storedDays.slice(-days));
}
