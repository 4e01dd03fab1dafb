/**
 * An imported Parquet file, read one row group at a time (a unit of work for the import's
 * workers, so memory stays at one row group per worker whatever the file's size). The fast
 * reader (storage/parquet/reader.ts) reads files in its subset, which every file of ours is;
 * anything else (DuckDB's SNAPPY, pyarrow's INT32 or TIMESTAMP columns, …) goes to the general
 * reader (hyparquet), as the server's fallback does.
 */
import { asyncBufferFromFile, parquetMetadataAsync, parquetRead, type FileMetaData } from 'hyparquet';
import { compressors } from '../../storage/parquet/generalReader.js';
import { withSyncFile } from '../../storage/parquet/byteSource.js';
import { readFooter, type ParquetFooter } from '../../storage/parquet/metadata.js';
import { readRowGroups } from '../../storage/parquet/reader.js';
import { UnsupportedParquetError } from '../../storage/parquet/format.js';

/** What planning an import needs of a file: its column names and rows per row group. */
export interface ParquetLayout {
  readonly columns: readonly string[];
  readonly rowGroupRows: readonly number[];
}

/**
 * The layout from the footer; a file that is not Parquet (or not a flat table) throws with
 * why. Our own footer parser first: it skips the statistics, which hyparquet decodes, and a
 * whole market's day is thousands of files (measured 2.7 ms a file with hyparquet).
 */
export async function parquetLayout(path: string): Promise<ParquetLayout> {
  try {
    const footer = await withSyncFile(path, (source, bytes) => readFooter(source, bytes));
    return { columns: footer.columns.map((c) => c.name), rowGroupRows: footer.rowGroups.map((g) => g.numRows) };
  } catch (e) {
    if (!(e instanceof UnsupportedParquetError)) throw e;
  }
  const meta = await parquetMetadataAsync(await asyncBufferFromFile(path));
  const root = meta.schema[0];
  if (root.num_children !== meta.schema.length - 1) throw new Error('nested columns are not supported; flatten the file first');
  return { columns: meta.schema.slice(1).map((s) => s.name), rowGroupRows: meta.row_groups.map((g) => Number(g.num_rows)) };
}

/**
 * One column of a row group: numbers with NaN for null (the fast reader's form), or any other
 * cells (strings, numbers, bigint, null).
 */
export type CellColumn = { readonly numbers: Float64Array } | { readonly cells: ArrayLike<unknown> };

export interface RowGroupCells {
  readonly rows: number;
  /** In the file's column order. */
  readonly columns: readonly CellColumn[];
}

/** The last footer read, per worker: units of one file arrive one after another. */
let lastFooter: { path: string; footer: ParquetFooter } | null = null;

export async function readRowGroupCells(path: string, rowGroup: number): Promise<RowGroupCells> {
  try {
    return await withSyncFile(path, async (source, bytes) => {
      const footer = lastFooter?.path === path ? lastFooter.footer : await readFooter(source, bytes);
      lastFooter = { path, footer };
      const all = footer.columns.map((_, i) => i);
      const [decoded] = await readRowGroups(source, footer, [rowGroup], all, path);
      const columns = all.map((i): CellColumn => {
        const c = decoded.get(i)!;
        return c.kind === 'number' ? { numbers: c.values } : { cells: c.values };
      });
      return { rows: footer.rowGroups[rowGroup].numRows, columns };
    });
  } catch (e) {
    if (!(e instanceof UnsupportedParquetError)) throw e;
    return readWithGeneralReader(path, rowGroup);
  }
}

let lastMeta: { path: string; meta: FileMetaData } | null = null;

async function readWithGeneralReader(path: string, rowGroup: number): Promise<RowGroupCells> {
  const file = await asyncBufferFromFile(path);
  const meta = lastMeta?.path === path ? lastMeta.meta : await parquetMetadataAsync(file);
  lastMeta = { path, meta };
  let rowStart = 0;
  for (let g = 0; g < rowGroup; g++) rowStart += Number(meta.row_groups[g].num_rows);
  const rows = Number(meta.row_groups[rowGroup].num_rows);
  const names = meta.schema.slice(1).map((s) => s.name);
  const at = new Map(names.map((n, i) => [n, i]));
  const out: (ArrayLike<unknown> | null)[] = names.map(() => null);
  await parquetRead({
    file,
    metadata: meta,
    compressors,
    rowStart,
    rowEnd: rowStart + rows,
    onChunk: ({ columnName, columnData, rowStart: chunkStart }) => {
      const c = at.get(columnName)!;
      const whole = chunkStart === rowStart && columnData.length === rows && out[c] === null;
      if (whole && !(columnData instanceof BigInt64Array) && !(columnData instanceof BigUint64Array)) {
        // The usual case, a chunk of the whole group: kept as it is (a typed array holds no
        // bigint or undefined; a plain one is converted in place), not copied.
        if (Array.isArray(columnData)) for (let i = 0; i < columnData.length; i++) columnData[i] = cellOf(columnData[i]);
        out[c] = columnData as ArrayLike<unknown>;
        return;
      }
      const target = (out[c] ??= new Array<unknown>(rows).fill(null)) as unknown[];
      for (let i = 0; i < columnData.length; i++) {
        const row = chunkStart + i - rowStart;
        if (row >= 0 && row < rows) target[row] = cellOf(columnData[i]);
      }
    },
  });
  return { rows, columns: out.map((cells) => ({ cells: cells ?? new Array<unknown>(rows).fill(null) })) };
}

/**
 * A general reader's value as a cell: bigint as a number when exact. A DATE or TIMESTAMP stays
 * a Date: the mapping knows whether it is a calendar date, an instant or a wall time.
 */
function cellOf(v: unknown): unknown {
  if (typeof v === 'bigint') return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
  return v === undefined ? null : v;
}
