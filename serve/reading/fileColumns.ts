/**
 * Decoded sealed files, cached. Sealed files are immutable, so nothing cached here can go
 * stale; the key is the catalog path. One byte-bounded LRU (its share of --cache-mb: serve/operations.ts) holds:
 *   - decoded column chunks, per (file, row group, column): Float64Array (8 B a value, NaN =
 *     null) or strings (~40 B each);
 *   - anything derived from them that callers memoise (`memo`), e.g. level2's serialised rows;
 *   - parsed footers (a few KB each).
 *   - tick_history's day listings (dayFiles.ts), so a month of a whole market's days stays inside too.
 * Sizes are estimates of V8 heap use, good to a factor well under 2 (memoryBudget.ts).
 *
 * Two ways in:
 *   - `rowGroups(file, groups, columns)`: typed columns of chosen row groups (level2 paging
 *     decodes only the row groups a page touches);
 *   - `get(file)`: the whole file as plain arrays in schema order (tick_history).
 */
import { ByteLru } from './byteLru.js';
import type { CatalogFile } from '../../storage/catalog.js';
import { SCHEMAS, type FieldType } from '../../shared/schema.js';
import { bufferSource } from '../../storage/parquet/byteSource.js';
import { UnsupportedParquetError } from '../../storage/parquet/format.js';
import { asDamaged, DamagedFileError } from '../../storage/damagedFile.js';
import { readFooter, type ParquetFooter } from '../../storage/parquet/metadata.js';
import { readNamedColumns } from '../../storage/parquet/generalReader.js';
import { readRowGroups, type DecodedColumn } from '../../storage/parquet/reader.js';
import { LakeFiles, type LakeFile } from '../../storage/lakeFiles.js';
import { groupRowCount } from './rowSearch.js';
import { FileIntegrity } from './fileIntegrity.js';
import { DamageRecords } from './damageRecords.js';
import { footerHeapBytes } from './memoryBudget.js';

export type ColumnValues = ArrayLike<string | number | bigint | null>;

export interface DecodedFile {
  readonly file: CatalogFile;
  readonly rows: number;
  /**
   * One array per schema field, in schema order. Strings for the key columns; numbers or null
   * for the rest (INT64 columns come as number: every stored value is a safe integer).
   */
  readonly columns: readonly ColumnValues[];
}

/** Decoded columns of one row group, by schema position (entries not asked for are absent). */
export type RowGroupColumns = ReadonlyMap<number, DecodedColumn>;

const STRING_BYTES = 40;
const ENTRY_OVERHEAD = 200;

export class FileColumnCache {
  readonly lru: ByteLru;
  /** Every file is checked against the catalog before its first byte is decoded (fileIntegrity.ts). */
  readonly integrity: FileIntegrity;

  /**
   * `onDamaged`: told once of each stored file found damaged (the server logs it). `damage`:
   * what is remembered of damaged files, parts and row texts (its own share of the budget).
   */
  constructor(
    dataDir: string,
    maxBytes: number,
    onDamaged?: (e: DamagedFileError) => void,
    readonly damage: DamageRecords = new DamageRecords(1 << 20),
    /** Where files are read: the data directory, and the store for offloaded days (lakeFiles.ts). */
    readonly lake: LakeFiles = new LakeFiles(dataDir),
  ) {
    this.lru = new ByteLru(maxBytes);
    this.integrity = new FileIntegrity(dataDir, this.lru, onDamaged, damage, lake);
  }

  get usedBytes(): number {
    return this.lru.usedBytes;
  }

  /** Whether `key` is memoised (made or being made), without touching its recency. */
  has(key: string): boolean {
    return this.lru.has(key);
  }

  /** Memoises a value derived from an immutable file under `key` (include the file path). */
  memo<T>(key: string, bytes: number, compute: () => Promise<T>): Promise<T> {
    return this.lru.get<T>(key) ?? this.lru.set(key, bytes, compute());
  }

  /**
   * Whether the file is read from the store (offloaded: its local copy gone), asked once per
   * file: the row-JSON workers read local files only, so its pages are made on this thread.
   */
  isRemote(file: CatalogFile): Promise<boolean> {
    if (this.lake.remote === null) return Promise.resolve(false);
    return this.memo(`${file.path}#remote`, 64, async () => (await this.lake.remoteCopy(file.path)) !== null);
  }

  footer(file: CatalogFile): Promise<ParquetFooter> {
    const groups = Math.ceil(file.rows / file.rowGroupSize);
    return this.memo(`${file.path}#footer`, footerHeapBytes(SCHEMAS[file.dataset].fields.length, groups), async () => {
      const verified: { bytes?: Buffer } = {};
      await this.integrity.check(file, (bytes) => (verified.bytes = bytes));
      // From the bytes the check just read when it did (five round trips to libuv's threads
      // fewer on a first touch), else from the file. Outside our reader's subset is not
      // damage: rowGroups falls back to the general reader.
      const read = verified.bytes
        ? readFooter(bufferSource(verified.bytes, file.path), verified.bytes.length)
        : this.lake.with(file.path, (f) => readFooter(f, f.size));
      const footer = await read.catch((e: unknown) => {
        throw e instanceof UnsupportedParquetError ? e : asDamaged(file.path, e);
      });
      checkFooter(file, footer);
      return footer;
    });
  }

  /**
   * The given columns (schema positions) of the given row groups, decoding what is not cached
   * in one pass over the file. Result: one map per requested row group, in request order.
   */
  async rowGroups(
    file: CatalogFile,
    groups: readonly number[],
    columns: readonly number[],
    opts: { readonly keep?: boolean } = {},
  ): Promise<RowGroupColumns[]> {
    // keep: false decodes what is missing without caching it, for a one-off pass whose
    // result is memoised in another form (level2 serialises all fields once, then only the
    // serialised rows are worth their memory).
    const keep = opts.keep ?? true;
    const missing = new Map<number, number[]>();
    const cached: (Promise<DecodedColumn> | undefined)[][] = groups.map((g) =>
      columns.map((c) => {
        const hit = this.lru.get<DecodedColumn>(chunkKey(file, g, c));
        if (!hit) missing.set(g, [...(missing.get(g) ?? []), c]);
        return hit;
      }),
    );
    const decodedAll = missing.size > 0 ? this.decodeGroups(file, missing) : null;
    const pending = groups.map((g, gi) =>
      columns.map((c, ci) => {
        const hit = cached[gi][ci];
        if (hit) return hit;
        const one = decodedAll!.then((m) => m.get(g)!.get(c)!);
        return keep ? this.lru.set(chunkKey(file, g, c), estimateChunkBytes(file, g, c), one) : one;
      }),
    );
    const resolved = await Promise.all(pending.map((cols) => Promise.all(cols)));
    return resolved.map((cols) => new Map(cols.map((col, ci) => [columns[ci], col])));
  }

  private async decodeGroups(file: CatalogFile, missing: Map<number, number[]>): Promise<Map<number, Map<number, DecodedColumn>>> {
    const groups = [...missing.keys()];
    const columns = [...new Set([...missing.values()].flat())].sort((a, b) => a - b);
    try {
      const footer = await this.footer(file);
      const decoded = await this.lake.with(file.path, (f) => readRowGroups(f, footer, groups, columns, file.path));
      return new Map(groups.map((g, i) => [g, decoded[i]]));
    } catch (e) {
      if (!(e instanceof UnsupportedParquetError)) throw e;
      // Not the layout our sealer writes: decode with the general reader and slice it into
      // the catalog's row groups, so callers see the same shape either way.
      const whole = await decodeWithGeneralReader(this.lake, file).catch((e2: unknown) => {
        throw asDamaged(file.path, e2);
      });
      return new Map(
        groups.map((g) => {
          const lo = g * file.rowGroupSize;
          const hi = Math.min(file.rows, lo + file.rowGroupSize);
          return [g, new Map(columns.map((c) => [c, sliceColumn(SCHEMAS[file.dataset].fields[c].type, whole[c], lo, hi)]))];
        }),
      );
    }
  }

  /** The whole file, schema order, plain arrays (numbers or null). Cached. */
  get(file: CatalogFile): Promise<DecodedFile> {
    const schema = SCHEMAS[file.dataset];
    const bytes = ENTRY_OVERHEAD + file.rows * schema.fields.length * 16;
    return this.memo(`${file.path}#whole`, bytes, async () => {
      const groups = Array.from({ length: Math.ceil(file.rows / file.rowGroupSize) }, (_, g) => g);
      const all = schema.fields.map((_, i) => i);
      const decoded = await this.rowGroups(file, groups, all);
      const columns = all.map((c) => {
        const out = new Array<string | number | null>(file.rows);
        let row = 0;
        for (const m of decoded) {
          const col = m.get(c)!;
          if (col.kind === 'number') for (const v of col.values) out[row++] = v === v ? v : null;
          else for (const v of col.values) out[row++] = v;
        }
        return out;
      });
      return { file, rows: file.rows, columns };
    });
  }
}

function chunkKey(file: CatalogFile, g: number, c: number): string {
  return `${file.path}#${g}#${c}`;
}

function estimateChunkBytes(file: CatalogFile, g: number, c: number): number {
  const rows = groupRowCount(file, g);
  const type = SCHEMAS[file.dataset].fields[c].type;
  const isString = type === 'string' || type === 'code';
  return ENTRY_OVERHEAD + rows * (isString ? STRING_BYTES : 8);
}

/** What checkFooter compares a footer with. */
export type FileFacts = Pick<CatalogFile, 'path' | 'rows' | 'rowGroupSize' | 'dataset'>;

/** The footer must describe the catalog's file, or row positions would point elsewhere. */
export function checkFooter(file: FileFacts, footer: ParquetFooter): void {
  const names = SCHEMAS[file.dataset].fieldNames;
  const problem =
    footer.numRows !== file.rows
      ? `has ${footer.numRows} rows, the catalog says ${file.rows}`
      : footer.columns.length !== names.length || footer.columns.some((c, i) => c.name !== names[i])
        ? 'has columns other than the schema'
        : footer.rowGroups.some((rg, g) => rg.firstRow !== g * file.rowGroupSize)
          ? `row groups are not of the catalog's size ${file.rowGroupSize}`
          : null;
  if (problem) throw new DamagedFileError(file.path, `it ${problem}`);
}

function sliceColumn(type: FieldType, values: readonly (string | number | null)[], lo: number, hi: number): DecodedColumn {
  if (type === 'string') return { kind: 'string', values: values.slice(lo, hi) as string[] };
  if (type === 'code') return { kind: 'nullable-string', values: values.slice(lo, hi) as (string | null)[] };
  const out = new Float64Array(hi - lo);
  for (let i = lo; i < hi; i++) out[i - lo] = values[i] === null ? NaN : Number(values[i]);
  return { kind: 'number', values: out };
}

/** General-purpose decode of a whole file (the general reader), schema order; the fallback path. */
async function decodeWithGeneralReader(lake: LakeFiles, file: CatalogFile): Promise<(string | number | null)[][]> {
  return readNamedColumns(await lake.with(file.path, readWhole), SCHEMAS[file.dataset].fieldNames, file.rows);
}

/** Every byte of an open lake file. */
export async function readWhole(f: LakeFile): Promise<Buffer> {
  const bytes = Buffer.allocUnsafe(f.size);
  let at = 0;
  while (at < bytes.length) {
    const { bytesRead } = await f.read(bytes, at, bytes.length - at, at);
    if (bytesRead === 0) throw new DamagedFileError(f.path, `it ends at byte ${at} of ${bytes.length}`);
    at += bytesRead;
  }
  return bytes;
}
