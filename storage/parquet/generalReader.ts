import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { parquetMetadata, parquetRead, type FileMetaData } from 'hyparquet';

export type { FileMetaData };
import { PARQUET_MAGIC } from './format.js';
import { zstdDecompressSync } from './zstd.js';

/**
 * The general reader (hyparquet): any valid Parquet file, whole, slower than the fast reader.
 * It is the fallback when a file is outside the fast reader's subset, and the doctor's
 * independent check of a file (a second implementation of the format reading what the writer
 * wrote).
 */
/**
 * Codecs hyparquet lacks (it has SNAPPY and UNCOMPRESSED): ZSTD as we write it, and what other
 * writers use (DuckDB, pyarrow and Spark offer GZIP and BROTLI), from Node's zlib.
 */
export const compressors = {
  ZSTD: (input: Uint8Array) => zstdDecompressSync(input),
  GZIP: (input: Uint8Array) => new Uint8Array(gunzipSync(input)),
  BROTLI: (input: Uint8Array) => new Uint8Array(brotliDecompressSync(input)),
};

const MAGIC = [...PARQUET_MAGIC].map((c) => c.charCodeAt(0));

function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

/** The parsed footer of a whole file, or why there is none: magic at both ends, then the parser. */
export function parseFooterOrReason(bytes: Uint8Array): FileMetaData | string {
  if (bytes.length < 12) return `too short to be Parquet (${bytes.length} bytes)`;
  const at = (off: number) => MAGIC.every((m, i) => bytes[off + i] === m);
  if (!at(0) || !at(bytes.length - 4)) return `no Parquet magic "${PARQUET_MAGIC}" at its start or end`;
  try {
    return parquetMetadata(toArrayBuffer(bytes));
  } catch (err) {
    return `footer cannot be parsed: ${(err as Error).message}`;
  }
}

/** One decoded run of a column: values for rows [rowStart, rowStart + values.length). */
export interface ColumnRun {
  readonly columnName: string;
  readonly rowStart: number;
  readonly values: ArrayLike<unknown>;
}

/** Decodes every page of every column of a whole file, handing each run to `onRun`. */
export async function readColumnRuns(bytes: Uint8Array, metadata: FileMetaData | null, onRun: (run: ColumnRun) => void): Promise<void> {
  const file = toArrayBuffer(bytes);
  await parquetRead({
    file,
    metadata: metadata ?? parquetMetadata(file),
    compressors,
    onChunk: ({ columnName, columnData, rowStart }) => onRun({ columnName, rowStart, values: columnData }),
  });
}

/**
 * The named columns of a whole file as plain arrays (numbers, strings or null; INT64 as
 * numbers), in the order of `names`; a column the file lacks stays all null.
 */
export async function readNamedColumns(bytes: Uint8Array, names: readonly string[], rows: number): Promise<(string | number | null)[][]> {
  const columns: (string | number | null)[][] = names.map(() => new Array(rows).fill(null));
  const positions = new Map(names.map((n, i) => [n, i]));
  await readColumnRuns(bytes, null, ({ columnName, rowStart, values }) => {
    const pos = positions.get(columnName);
    if (pos === undefined) return;
    const target = columns[pos];
    for (let i = 0; i < values.length; i++) {
      const v = values[i] as string | number | bigint | null;
      target[rowStart + i] = typeof v === 'bigint' ? Number(v) : v;
    }
  });
  return columns;
}
