/**
 * Rows of sealed index files (or, for asset=stock, level-2 files seen through storage/tickShape.ts) for tick_history, on top of the shared column cache: snapshot
 * times as ms (for merging and time bounds) and rows as JSON array text. Both are memoised
 * per row group in the same byte-bounded LRU as the decoded columns they come from.
 *
 * Row text is made lazily, row by row: a 200-symbol page needs ~30 rows of each file's row
 * group, and serialising the other 450 would cost more than the whole query. Once made, a
 * row's text is reused by every later request with the same field list.
 */
import type { CatalogFile } from '../../storage/catalog.js';
import { sourceOfFile, storedColumns, tickColumns, tickRowText } from '../../storage/tickShape.js';
import type { FileColumnCache } from '../reading/fileColumns.js';
import { groupRowCount, groupsOf } from '../reading/rowSearch.js';
import { decodeTimes } from '../reading/rowTimes.js';
import type { DecodedColumn } from '../../storage/parquet/reader.js';

const ENTRY_OVERHEAD = 200;
/**
 * Estimated bytes per row and field of a GroupRows entry: its text (digits, comma, string
 * header) plus the decoded value it keeps alive even after the LRU drops the column entry.
 */
const ROW_BYTES_PER_FIELD = 20;

/** Rows of one row group as JSON text for one field list, made on first use, and their times. */
export class GroupRows {
  private readonly texts: (string | undefined)[];

  constructor(
    /** ms since midnight of each row of the group. */
    readonly times: Int32Array,
    private readonly columns: readonly (DecodedColumn | null)[],
  ) {
    this.texts = new Array<string | undefined>(times.length);
  }

  /** `[v1,v2,…]` of row `r` of the group (NaN and the always-null fields are null). */
  text(r: number): string {
    let t = this.texts[r];
    if (t === undefined) {
      t = tickRowText(this.columns, r);
      this.texts[r] = t;
    }
    return t;
  }
}

/**
 * GroupRows of several row groups of a file for one field list. Each is memoised on its own;
 * the ones not cached yet are decoded together in one pass over the file (one open, one read
 * per group), which is what a cold page or a whole day needs.
 */
export function groupRowsOf(cache: FileColumnCache, file: CatalogFile, groups: readonly number[], fields: readonly number[]): Promise<GroupRows>[] {
  const source = sourceOfFile(file);
  // Only the stored columns the fields need (never pre_close / pct_chg: always null).
  const decode = storedColumns(source, fields);
  const fieldsKey = fields.join(',');
  let batch: Promise<ReadonlyMap<number, DecodedColumn>[]> | null = null;
  return groups.map((g, i) =>
    cache.memo(`${file.path}#${g}#tick-rows#${fieldsKey}`, ENTRY_OVERHEAD + groupRowCount(file, g) * (4 + fields.length * ROW_BYTES_PER_FIELD), async () => {
      batch ??= cache.rowGroups(file, groups, decode);
      const m = (await batch)[i];
      const times = decodeTimes(m.get(source.timeColumn), file, g, groupRowCount(file, g));
      return new GroupRows(
        times,
        tickColumns(source, file.tradedate, fields, times, (c) => m.get(c)!),
      );
    }),
  );
}

/** Every row of a file, ascending, as JSON row texts joined by commas (compatible mode). */
export async function wholeFileText(cache: FileColumnCache, file: CatalogFile, fields: readonly number[]): Promise<string> {
  const groups = groupsOf({ lo: 0, hi: file.rows }, file.rowGroupSize);
  const decoded = await Promise.all(groupRowsOf(cache, file, groups, fields));
  const parts: string[] = [];
  for (const rows of decoded) for (let r = 0; r < rows.times.length; r++) parts.push(rows.text(r));
  return parts.join(',');
}
