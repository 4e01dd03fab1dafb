/**
 * The independent reader: DuckDB reading our Parquet files. Results come back as plain JS
 * values (numbers, strings, null; BIGINT as bigint).
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';

let connection: Promise<DuckDBConnection> | null = null;

export function duck(): Promise<DuckDBConnection> {
  connection ??= DuckDBInstance.create(':memory:').then((i) => i.connect());
  return connection;
}

export async function duckRows(sql: string): Promise<Record<string, unknown>[]> {
  const con = await duck();
  const reader = await con.runAndReadAll(sql);
  return reader.getRowObjectsJS() as Record<string, unknown>[];
}

/** Quotes a path for a SQL string literal. */
export function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
