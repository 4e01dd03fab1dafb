/**
 * A fetched symbol-day, whole and durable before it is recorded: the upstream's Parquet file
 * as downloaded (after verification), or its JSON pages written as CSV in the lake's columns
 * (what `mappings/tickvault-<dataset>.map` reads). Both are then imported like any file a desk
 * brings, so mirrored rows meet the same validation, quarantine and seal as an import's.
 */
import { mkdirSync, readdirSync, rmdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SCHEMAS, type Dataset } from '../../shared/schema.js';
import { writeDurably } from '../../shared/durableFile.js';
import { parquetLayout, readRowGroupCells } from '../import/parquetSource.js';

export function spoolDayDir(spoolRoot: string, dataset: Dataset, tradedate: string): string {
  return join(spoolRoot, dataset, `date=${tradedate}`);
}

/** Removes the spool's folders left empty once their days are sealed (a folder still holding a day stays). */
export function pruneSpool(spoolRoot: string): void {
  let datasets: string[];
  try {
    datasets = readdirSync(spoolRoot);
  } catch {
    return; // no spool at all
  }
  for (const d of [...datasets.map((x) => join(spoolRoot, x)), spoolRoot]) {
    try {
      rmdirSync(d);
    } catch {
      // not empty: a day still waits there
    }
  }
}

/** The mapping that reads a JSON-paged spool file (the package's own, beside dist/). */
export function spoolMappingPath(dataset: Dataset): string {
  return fileURLToPath(new URL(`../../../mappings/tickvault-${dataset}.map`, import.meta.url));
}

/** A downloaded file that is not the symbol-day asked for, or not a file of the lake. */
export class SpoolVerifyError extends Error {
  override name = 'SpoolVerifyError';
}

/**
 * Writes the downloaded bytes under the symbol-day's spool name and checks them: a Parquet
 * footer, the dataset's columns in the lake's order, every row group decodable, and every
 * row of this symbol and day. Returns the rows and the path relative to `dataDir`.
 */
export async function spoolParquet(
  dataDir: string,
  spoolRoot: string,
  dataset: Dataset,
  tradedate: string,
  symbol: string,
  bytes: Uint8Array,
): Promise<{ readonly rows: number; readonly spool: string }> {
  const dir = spoolDayDir(spoolRoot, dataset, tradedate);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${symbol}.parquet`);
  await writeDurably(path, bytes);
  let layout;
  try {
    layout = await parquetLayout(path);
  } catch (e) {
    throw new SpoolVerifyError(`the ${dataset} file of ${symbol} ${tradedate} is not a readable Parquet file: ${(e as Error).message}`);
  }
  const expected = SCHEMAS[dataset].fieldNames;
  if (layout.columns.join(',') !== expected.join(',')) {
    throw new SpoolVerifyError(`the ${dataset} file of ${symbol} ${tradedate} has columns ${layout.columns.join(',')}, not the lake's ${expected.join(',')}`);
  }
  const symbolAt = expected.indexOf('symbol');
  const dateAt = expected.indexOf('tradedate');
  let rows = 0;
  for (let g = 0; g < layout.rowGroupRows.length; g++) {
    const cells = await readRowGroupCells(path, g);
    if (cells.rows !== layout.rowGroupRows[g]) {
      throw new SpoolVerifyError(
        `the ${dataset} file of ${symbol} ${tradedate}: row group ${g} holds ${cells.rows} rows, its footer says ${layout.rowGroupRows[g]}`,
      );
    }
    const symbols = cells.columns[symbolAt]!;
    const dates = cells.columns[dateAt]!;
    if (!('cells' in symbols) || !('cells' in dates))
      throw new SpoolVerifyError(`the ${dataset} file of ${symbol} ${tradedate}: symbol and tradedate are not text columns`);
    for (let i = 0; i < cells.rows; i++) {
      if (symbols.cells[i] !== symbol || dates.cells[i] !== tradedate) {
        throw new SpoolVerifyError(
          `the ${dataset} file asked for ${symbol} ${tradedate} holds a row of ${String(symbols.cells[i])} ${String(dates.cells[i])} (row ${rows + i})`,
        );
      }
    }
    rows += cells.rows;
  }
  return { rows, spool: relative(dataDir, path) };
}

/** One CSV cell: JSON numbers as JavaScript prints them (the shortest text that reads back to the same double). */
function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  const text = typeof v === 'string' ? v : typeof v === 'number' ? String(v) : JSON.stringify(v);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The rows of JSON pages, as CSV with the page's field names for a header. */
export function spoolCsvText(fields: readonly string[], pages: readonly (readonly (readonly unknown[])[])[]): string {
  const lines = [fields.map(csvCell).join(',')];
  for (const items of pages) for (const row of items) lines.push(row.map(csvCell).join(','));
  return `${lines.join('\n')}\n`;
}

export async function spoolCsv(dataDir: string, spoolRoot: string, dataset: Dataset, tradedate: string, symbol: string, text: string): Promise<string> {
  const dir = spoolDayDir(spoolRoot, dataset, tradedate);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${symbol}.csv`);
  await writeDurably(path, Buffer.from(text));
  return relative(dataDir, path);
}
