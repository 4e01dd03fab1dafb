// The independent reader for the Python tests: DuckDB's read of one stored Parquet file,
// printed as JSON {"columns": [[name, type], ...], "rows": [[...], ...]} (BIGINT as numbers,
// NULL as null). Hive partitioning is off: `date=YYYYMMDD/` is a folder, not a column.
// Resolves @duckdb/node-api from the repository's node_modules (a devDependency).
import { DuckDBInstance } from '@duckdb/node-api';

const file = process.argv[2];
const con = await (await DuckDBInstance.create(':memory:')).connect();
const from = `read_parquet('${file.replaceAll("'", "''")}', hive_partitioning = false)`;
const described = (await con.runAndReadAll(`DESCRIBE SELECT * FROM ${from}`)).getRowObjectsJS();
const columns = described.map((c) => [c.column_name, c.column_type]);
const rows = (await con.runAndReadAll(`SELECT * FROM ${from}`)).getRowsJS();
process.stdout.write(JSON.stringify({ columns, rows }, (_k, v) => {
  if (typeof v !== 'bigint') return v;
  if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`BIGINT ${v} beyond 2^53`);
  return Number(v);
}));
