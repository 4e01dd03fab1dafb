/**
 * Files in the lake's own columns (a `format=parquet` download, a sealed file, DuckDB's
 * `COPY … TO` of them): the dataset is recognised by the column names, and each row's cells
 * are handed to the feed's validation as they are, without a mapping.
 */
import { DATASETS, SCHEMAS, type Dataset } from '../../shared/schema.js';
import type { RowMapper } from './mapping.js';

/**
 * The dataset all of whose field names are among the columns (in any order), or null. Other
 * columns are ignored: DuckDB adds a hive folder's `date` to what it reads from our layout.
 */
export function lakeDatasetOf(columns: readonly string[]): Dataset | null {
  const have = new Set(columns);
  const complete = DATASETS.filter((d) => SCHEMAS[d].fieldNames.every((n) => have.has(n)));
  return complete.sort((a, b) => SCHEMAS[b].fieldNames.length - SCHEMAS[a].fieldNames.length)[0] ?? null;
}

/** The lake columns of `dataset` missing from `columns` (empty when the file has them all). */
export function missingLakeColumns(dataset: Dataset, columns: readonly string[]): string[] {
  const have = new Set(columns);
  return SCHEMAS[dataset].fieldNames.filter((n) => !have.has(n));
}

/**
 * `hiveDate`: the date of a `date=YYYYMMDD/` folder. It is the tradedate of a file whose
 * column went into the folder name (DuckDB's `PARTITION_BY`); in a file with the column (our
 * own lake), a row of another date is rejected: the folder is what the import plans by.
 */
export function lakeColumnsMapper(dataset: Dataset, columns: readonly string[], hiveDate: string | null = null): RowMapper {
  const at = new Map(columns.map((c, i) => [c, i]));
  const schema = SCHEMAS[dataset];
  const pos = (name: string): number => {
    const p = at.get(name);
    if (p === undefined) throw new Error(`column ${name} is missing`); // checked by missingLakeColumns first
    return p;
  };
  const symbolAt = pos('symbol');
  const dateAt = hiveDate !== null && !at.has('tradedate') ? -1 : pos('tradedate');
  const timeAt = pos('time');
  const valueAt = schema.valueFields.map((f) => pos(f.name));
  const width = valueAt.length;
  const checkDate = hiveDate !== null && dateAt !== -1;
  return {
    dataset,
    fileDate: hiveDate,
    map(cells) {
      if (checkDate && cells[dateAt] !== hiveDate) return `tradedate ${String(cells[dateAt]).slice(0, 20)} is not the date of its folder date=${hiveDate}`;
      const values: unknown[] = new Array(width);
      for (let i = 0; i < width; i++) {
        const v = cells[valueAt[i]];
        // INT64 columns read by the general reader arrive as bigint; ids are safe integers.
        values[i] = typeof v === 'bigint' ? Number(v) : v;
      }
      return { symbol: cells[symbolAt], tradedate: dateAt === -1 ? hiveDate : cells[dateAt], time: cells[timeAt], values };
    },
  };
}
