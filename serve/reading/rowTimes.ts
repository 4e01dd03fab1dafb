/**
 * Snapshot times of sealed files as ms since midnight, for every operation: the one decoder of
 * a stored `time` column (level-2, trade and order files keep `HHMMSSmmm`, index files
 * `YYYY-MM-DD HH:mm:ss.SSS`), memoised per row group in the shared column cache. A time that
 * does not parse means the file is not what the seal wrote: DamagedFileError.
 *
 * `spanTimeLookup` is what rowSearch.firstRowAtOrAfter asks for when a bound falls inside a
 * minute; page boundaries, time windows and merges all read times through here.
 */
import type { CatalogFile } from '../../storage/catalog.js';
import { DamagedFileError } from '../../storage/damagedFile.js';
import type { DecodedColumn } from '../../storage/parquet/reader.js';
import { storedTimeMs } from '../../storage/tickShape.js';
import { SCHEMAS } from '../../shared/schema.js';
import type { FileColumnCache } from './fileColumns.js';
import { groupRowCount, groupsOf, type RowSpan } from './rowSearch.js';

const ENTRY_OVERHEAD = 200;

/** Schema position of the stored `time` column of a file. */
export function timeColumnOf(file: Pick<CatalogFile, 'dataset'>): number {
  return SCHEMAS[file.dataset].position.get('time')!;
}

/** The decoded `time` column of row group `g` (its `rows` rows) → ms since midnight. */
export function decodeTimes(col: DecodedColumn | undefined, file: CatalogFile, g: number, rows: number): Int32Array {
  if (col === undefined || col.kind !== 'string') throw new DamagedFileError(file.path, 'its time column is not text');
  const out = new Int32Array(rows);
  const timeMs = storedTimeMs(file.dataset);
  for (let r = 0; r < rows; r++) {
    const ms = timeMs(col.values[r]);
    if (Number.isNaN(ms)) throw new DamagedFileError(file.path, `malformed time at row ${g * file.rowGroupSize + r}`);
    out[r] = ms;
  }
  return out;
}

/** Times of row group `g` (memoised beside the decoded columns). */
export function groupTimes(cache: FileColumnCache, file: CatalogFile, g: number): Promise<Int32Array> {
  const rows = groupRowCount(file, g);
  return cache.memo(`${file.path}#${g}#ms`, ENTRY_OVERHEAD + rows * 4, async () => {
    const time = timeColumnOf(file);
    const [m] = await cache.rowGroups(file, [g], [time]);
    return decodeTimes(m.get(time), file, g, rows);
  });
}

/** The times of every row group touching `span`, by group number. */
export async function spanTimes(cache: FileColumnCache, file: CatalogFile, span: RowSpan): Promise<Map<number, Int32Array>> {
  const groups = groupsOf(span, file.rowGroupSize);
  const times = await Promise.all(groups.map((g) => groupTimes(cache, file, g)));
  return new Map(groups.map((g, i) => [g, times[i]]));
}

/** For rowSearch.firstRowAtOrAfter: the time of any row of a span, once the span's groups are decoded. */
export function spanTimeLookup(cache: FileColumnCache, file: CatalogFile): (span: RowSpan) => Promise<(row: number) => number> {
  return async (span) => {
    const times = await spanTimes(cache, file, span);
    const size = file.rowGroupSize;
    return (row) => times.get(Math.floor(row / size))![row % size];
  };
}
