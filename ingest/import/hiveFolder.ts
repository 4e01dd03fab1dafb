/**
 * The hive folder of a data file's path: the nearest folder named `date=YYYYMMDD` or
 * `tradedate=` (dashes allowed: `date=2025-01-02`), as DuckDB and Spark write partitions.
 * The one reader of such folders: the lake-columns import and a mapping's `tradedate hive`.
 */
import { isValidDateText } from '../../shared/timeFormat.js';

export interface HiveFolder {
  /** The folder's name, for messages. */
  readonly folder: string;
  /** Its date as YYYYMMDD, or null when the name is no valid date. */
  readonly date: string | null;
}

/** The nearest hive date folder of `path` (folders may nest: the one closest to the file wins), or null. */
export function hiveFolderOf(path: string): HiveFolder | null {
  const folders = path.split(/[\\/]/).slice(0, -1).reverse();
  for (const folder of folders) {
    const hit = /^(?:trade)?date=(\d{4})-?(\d{2})-?(\d{2})$/.exec(folder);
    if (hit) {
      const d = hit[1] + hit[2] + hit[3];
      return { folder, date: isValidDateText(d) ? d : null };
    }
  }
  return null;
}
