/**
 * A level-2 file for the reader's tests, and DuckDB's account of it: where each column chunk
 * lies (parquet_metadata) and what the columns hold (read_parquet), as the independent answer
 * the reader's plan, its reads and its values are checked against.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SCHEMAS } from '../../../shared/schema.js';
import { encodeParquet, type SymbolDayColumns } from '../../../storage/parquet/writer.js';

const HOUR = 3_600_000;

/** A scratch folder and an in-memory DuckDB, for one test file; `close` removes both. */
export interface Scratch {
  readonly dir: string;
  readonly con: DuckDBConnection;
  close(): Promise<void>;
}

export async function openScratch(name: string): Promise<Scratch> {
  const dir = await mkdtemp(join(tmpdir(), `tickvault-${name}-test-`));
  const inst = await DuckDBInstance.create(':memory:');
  const con = await inst.connect();
  return {
    dir,
    con,
    close: async () => {
      con.closeSync();
      inst.closeSync();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** `rows` snapshots from 09:15 every 3 s; levels 2-10 null in the first 200 rows (the auction). */
function level2Day(rows: number): SymbolDayColumns {
  const fields = SCHEMAS.level2.valueFields;
  const values = fields.map(() => new Float64Array(rows));
  const timesMs = new Int32Array(rows);
  for (let i = 0; i < rows; i++) {
    timesMs[i] = 9 * HOUR + 15 * 60_000 + i * 3000;
    fields.forEach((f, c) => {
      const depth = /(\d+)$/.exec(f.name);
      const level = depth ? Number(depth[1]) : 0;
      values[c][i] = level >= 2 && i < 200 ? NaN : Math.round((10 + c * 0.01 + Math.sin(i / 30)) * 100) / 100;
    });
  }
  return { dataset: 'level2', symbol: '600000.SH', tradedate: '20240102', rows, timesMs, values };
}

/** Writes a level-2 file of `rows` rows in row groups of `rowGroupSize`; returns its path. */
export async function writeLevel2File(dir: string, rows: number, rowGroupSize: number): Promise<string> {
  const path = join(dir, `level2-${rows}-${rowGroupSize}.parquet`);
  await writeFile(path, await encodeParquet(level2Day(rows), { rowGroupSize }));
  return path;
}

/** A column chunk as DuckDB's parquet_metadata() places it. */
export interface DuckChunk {
  readonly group: number;
  readonly column: number;
  readonly name: string;
  readonly start: number;
  readonly length: number;
}

export async function duckChunks(con: DuckDBConnection, path: string): Promise<DuckChunk[]> {
  const r = await con.runAndReadAll(
    `select row_group_id, column_id, path_in_schema, data_page_offset, dictionary_page_offset, total_compressed_size
     from parquet_metadata('${path.replaceAll("'", "''")}') order by row_group_id, column_id`,
  );
  return (r.getRowObjectsJS() as Record<string, unknown>[]).map((m) => {
    // A chunk begins at its dictionary page when it has one, else at its first data page.
    const dict = m.dictionary_page_offset === null ? null : Number(m.dictionary_page_offset);
    const data = Number(m.data_page_offset);
    return {
      group: Number(m.row_group_id),
      column: Number(m.column_id),
      name: String(m.path_in_schema),
      start: dict !== null && dict > 0 && dict < data ? dict : data,
      length: Number(m.total_compressed_size),
    };
  });
}

/** The named columns of the whole file as DuckDB reads them, in file row order (null for null). */
export async function duckColumns(con: DuckDBConnection, path: string, names: readonly string[]): Promise<unknown[][]> {
  const r = await con.runAndReadAll(
    `select ${names.map((n) => `"${n}"`).join(', ')} from read_parquet('${path.replaceAll("'", "''")}', file_row_number = true) order by file_row_number`,
  );
  const rows = r.getRowObjectsJS() as Record<string, unknown>[];
  return names.map((n) => rows.map((row) => row[n]));
}
