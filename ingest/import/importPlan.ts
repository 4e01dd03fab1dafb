/**
 * What an import will read, decided before anything is staged: the files (folders walked,
 * sorted), each file's kind, columns and how its rows become fields. Everything a user must
 * fix (a missing file, a CSV without a mapping, a mapping naming a column the file lacks, a
 * Parquet file in nobody's columns) is found here, as an ImportInputError (exit 2) or the
 * mapping's MappingError, so that a bad argument never leaves half an import behind.
 */
import { readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ConfigError } from '../../shared/config.js';
import { SCHEMAS, type Dataset } from '../../shared/schema.js';
import { decompressed } from '../feed/lines.js';
import { csvCutPoint, forEachCsvRecord } from './csvRecords.js';
import { lakeDatasetOf, missingLakeColumns } from './lakeColumns.js';
import { readMapping, type RowMapper } from './mapping.js';
import { hiveFolderOf } from './hiveFolder.js';
import { parquetLayout } from './parquetSource.js';
import { mapperOf, type FileReading } from './importWorker.js';

export class ImportInputError extends ConfigError {
  override name = 'ImportInputError';
}

interface PlannedCommon {
  readonly reading: FileReading;
  readonly bytes: number;
  /** `dataset|tradedate` of every row when the path names the day, else null (any day). */
  readonly day: string | null;
}

export type PlannedFile =
  | (PlannedCommon & { readonly kind: 'csv'; readonly delimiter: string })
  | (PlannedCommon & { readonly kind: 'parquet'; readonly rowGroupRows: readonly number[] });

export interface ImportOptions {
  readonly mapping: string | null;
  readonly dataset: Dataset | null;
}

type Kind = 'csv' | 'parquet';

function kindOf(path: string): Kind | null {
  if (/\.csv(\.gz|\.zst)?$/i.test(path)) return 'csv';
  if (/\.parquet$/i.test(path)) return 'parquet';
  return null;
}

/** The files named, folders walked recursively (files in name order; others in them skipped). */
export function listImportFiles(inputs: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && kindOf(p) !== null && !basename(p).startsWith('.')) out.push(p);
    }
  };
  for (const input of inputs) {
    let st;
    try {
      st = statSync(input);
    } catch {
      throw new ImportInputError(`${input}: no such file or folder`);
    }
    if (st.isDirectory()) walk(input);
    else if (kindOf(input) === null) throw new ImportInputError(`${input}: not a CSV (.csv, .csv.gz, .csv.zst) or Parquet (.parquet) file`);
    else out.push(input);
  }
  return out;
}

export async function planImport(inputs: readonly string[], opts: ImportOptions): Promise<PlannedFile[]> {
  const files = listImportFiles(inputs);
  if (files.length === 0) throw new ImportInputError(`no CSV or Parquet files in ${inputs.join(', ')}`);
  const mapping = opts.mapping === null ? null : readMapping(opts.mapping);
  const planned: PlannedFile[] = [];
  for (const file of files) {
    const bytes = statSync(file).size;
    if (kindOf(file) === 'csv') {
      if (mapping === null)
        throw new ImportInputError(`${file}: a CSV file needs --mapping MAP (ready-made ones in mappings/; the format in docs/import-mappings.md)`);
      const columns = await readCsvHeader(file, mapping.delimiter);
      const reading: FileReading = { file, mapping: opts.mapping, dataset: opts.dataset, columns, hiveDate: hiveFolderOf(file)?.date ?? null };
      planned.push({ kind: 'csv', reading, bytes, day: dayOf(mapperOf(reading, mapping)), delimiter: mapping.delimiter });
      continue;
    }
    let layout;
    try {
      layout = await parquetLayout(file);
    } catch (e) {
      throw new ImportInputError(`${file}: cannot be read as Parquet: ${(e as Error).message}`);
    }
    const hiveDate = hiveFolderOf(file)?.date ?? null;
    // Without a mapping the dataset is decided here, once: the workers take it as given.
    const dataset = mapping === null ? lakeDatasetChecked(file, layout.columns, opts.dataset, hiveDate) : opts.dataset;
    const reading: FileReading = { file, mapping: opts.mapping, dataset, columns: layout.columns, hiveDate };
    planned.push({ kind: 'parquet', reading, bytes, day: dayOf(mapperOf(reading, mapping)), rowGroupRows: layout.rowGroupRows });
  }
  return planned;
}

function dayOf(mapper: RowMapper): string | null {
  return mapper.fileDate === null ? null : `${mapper.dataset}|${mapper.fileDate}`;
}

/** The dataset of a Parquet file read without a mapping: one whose lake columns it has, all of them. */
function lakeDatasetChecked(file: string, columns: readonly string[], dataset: Dataset | null, hiveDate: string | null): Dataset {
  // A hive-partitioned export (DuckDB's PARTITION_BY) moves the date into the folder name.
  const all = hiveDate !== null && !columns.includes('tradedate') ? [...columns, 'tradedate'] : columns;
  const d = dataset ?? lakeDatasetOf(all);
  if (d === null) {
    const closest = (Object.keys(SCHEMAS) as Dataset[])
      .map((ds) => ({ ds, missing: missingLakeColumns(ds, all) }))
      .sort((a, b) => a.missing.length - b.missing.length)[0];
    throw new ImportInputError(
      `${file}: not in the lake's columns of any dataset (closest: ${closest.ds}, which also needs ${closest.missing.slice(0, 5).join(', ')}${closest.missing.length > 5 ? ', …' : ''}); other layouts need --mapping MAP`,
    );
  }
  const missing = missingLakeColumns(d, all);
  if (missing.length > 0)
    throw new ImportInputError(`${file}: lacks ${d} column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}; other layouts need --mapping MAP`);
  return d;
}

/** The first record of a CSV file: its header. */
export async function readCsvHeader(file: string, delimiter: string): Promise<string[]> {
  let head = Buffer.alloc(0);
  try {
    for await (const { chunk } of decompressed(file)) {
      head = Buffer.concat([head, chunk]);
      const cut = csvCutPoint(head);
      if (cut > 0) {
        head = head.subarray(0, cut);
        break;
      }
      if (head.length > 1 << 20) break;
    }
  } catch (e) {
    throw new ImportInputError(`${file}: cannot be read: ${(e as Error).message.split('\n')[0]}`);
  }
  let header: string[] | null = null;
  let bad: string | null = null;
  forEachCsvRecord(
    head.toString('utf8'),
    delimiter,
    1,
    (cells) => {
      header ??= cells.map((c, i) => (i === 0 ? c.replace(/^\uFEFF/, '') : c).trim());
    },
    (lineNo, _raw, reason) => {
      if (header === null) bad ??= `${file}:${lineNo}: the header is malformed: ${reason}`;
    },
  );
  if (bad !== null) throw new ImportInputError(bad);
  if (header === null) throw new ImportInputError(`${file}: empty: a CSV file needs a header row`);
  return header;
}
