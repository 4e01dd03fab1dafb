/**
 * Rows of a detailed-history page (level 2, trades, orders) as JSON bytes. The common request is every field, so each row group's
 * rows are serialised once and kept in the cache as one UTF-8 buffer `[row],[row],…` with the
 * byte offset of every row; any page is then a few slices of those buffers (a warm full-day
 * page is a memcpy, not 250,000 number conversions). Other field lists are serialised from
 * the cached decoded columns on each request.
 */
import type { CatalogFile } from '../../storage/catalog.js';
import { SCHEMAS, type Dataset } from '../../shared/schema.js';
import type { FileColumnCache } from '../reading/fileColumns.js';
import type { DecodedColumn } from '../../storage/parquet/reader.js';
import { groupRowCount, groupsOf } from '../reading/rowSearch.js';
import { JsonBytesWriter } from './jsonBytes.js';

/** Every field's position, per dataset: made once, not per row group served. */
export const ALL_FIELDS: Readonly<Record<Dataset, readonly number[]>> = {
  level2: SCHEMAS.level2.fields.map((_, i) => i),
  index: SCHEMAS.index.fields.map((_, i) => i),
  trade: SCHEMAS.trade.fields.map((_, i) => i),
  order: SCHEMAS.order.fields.map((_, i) => i),
};
const COMMA = Buffer.from(',');

/**
 * The LRU needs a size up front: measured ~320 bytes a full level-2 row of generated data;
 * a trade row ~150, an order row ~120.
 */
const ROW_BYTES: Readonly<Partial<Record<Dataset, number>>> = { level2: 340, trade: 160, order: 130 };

export function isAllFields(fields: readonly number[], dataset: Dataset = 'level2'): boolean {
  return fields.length === SCHEMAS[dataset].fields.length && fields.every((f, i) => f === i);
}

/** Serialised rows of one row group: `bytes` holds rows separated by commas. */
export interface SerializedRows {
  readonly bytes: Buffer;
  /** offsets[r] = first byte of row r; offsets[n] = bytes.length + 1 (as if a comma followed). */
  readonly offsets: Uint32Array;
}

/** Writes rows [from, to) of a row group's columns (in output order) as `[…],[…]`. */
export function serializeRows(cols: readonly DecodedColumn[], from: number, to: number, sizeHint = 0): SerializedRows {
  const w = new JsonBytesWriter(Math.max(1024, sizeHint));
  const offsets = new Uint32Array(to - from + 1);
  const n = cols.length;
  // Split by kind up front so the hot loop's element loads stay monomorphic.
  const nums: (Float64Array | null)[] = cols.map((c) => (c.kind === 'number' ? c.values : null));
  const strs: (readonly (string | null)[] | null)[] = cols.map((c) => (c.kind === 'number' ? null : c.values));
  for (let r = from; r < to; r++) {
    if (r > from) w.byte(44);
    offsets[r - from] = w.pos;
    w.byte(91);
    for (let c = 0; c < n; c++) {
      if (c > 0) w.byte(44);
      const nv = nums[c];
      if (nv !== null) w.number(nv[r]);
      else {
        const s = strs[c]![r];
        if (s === null) w.raw('null'); // an absent code (bs_flag, …)
        else w.string(s);
      }
    }
    w.byte(93);
  }
  offsets[to - from] = w.pos + 1;
  // Copy out of the growable buffer so the cache holds exactly the bytes it accounts for;
  // into memory of its own (never Node's shared pool), so a worker can transfer it.
  const bytes = Buffer.allocUnsafeSlow(w.pos);
  w.bytes().copy(bytes);
  return { bytes, offsets };
}

/**
 * Makes the every-field rows of a row group elsewhere (rowJsonPool.ts: worker threads); null
 * when it cannot read the file, which is then done on this thread.
 */
export interface RowJsonMaker {
  rows(file: CatalogFile, group: number, sizeHint: number): Promise<SerializedRows | null>;
}

/** Rows [a, b) of serialised rows, without a trailing comma. */
export function sliceRows(s: SerializedRows, a: number, b: number): Buffer {
  return s.bytes.subarray(s.offsets[a], s.offsets[b] - 1);
}

function groupRows(cache: FileColumnCache, file: CatalogFile, g: number, pool: RowJsonMaker | null): Promise<SerializedRows> {
  const rows = groupRowCount(file, g);
  const estimate = rows * (ROW_BYTES[file.dataset] ?? 340);
  const all = ALL_FIELDS[file.dataset];
  return cache.memo(`${file.path}#${g}#rowjson`, estimate + rows * 4, async () => {
    const made = pool ? await pool.rows(file, g, estimate) : null;
    if (made) return made;
    const [m] = await cache.rowGroups(file, [g], all, { keep: false });
    return serializeRows(all.map((c) => m.get(c)!), 0, rows, estimate);
  });
}

/** The JSON bytes of rows [first, end) with the given fields, as comma-joined pieces. */
export async function pageRowsJson(
  cache: FileColumnCache,
  file: CatalogFile,
  first: number,
  end: number,
  fields: readonly number[],
  /** Row-JSON workers for every-field rows not yet cached; null: made on this thread. */
  pool: RowJsonMaker | null = null,
): Promise<Buffer[]> {
  const groups = groupsOf({ lo: first, hi: end }, file.rowGroupSize);
  const size = file.rowGroupSize;
  const pieces: Buffer[] = [];
  const push = (b: Buffer) => {
    if (pieces.length > 0) pieces.push(COMMA);
    pieces.push(b);
  };
  if (groups.length === 0) return pieces;
  if (isAllFields(fields, file.dataset)) {
    const perGroup = await Promise.all(groups.map((g) => groupRows(cache, file, g, pool)));
    groups.forEach((g, i) => {
      const base = g * size;
      const rows = perGroup[i];
      const n = rows.offsets.length - 1;
      push(sliceRows(rows, Math.max(first, base) - base, Math.min(end, base + n) - base));
    });
  } else {
    const decoded = await cache.rowGroups(file, groups, fields);
    groups.forEach((g, i) => {
      const base = g * size;
      const cols = fields.map((c) => decoded[i].get(c)!);
      const from = Math.max(first, base) - base;
      const to = Math.min(end, base + size) - base;
      push(serializeRows(cols, from, to, (to - from) * (fields.length * 8 + 4)).bytes);
    });
  }
  return pieces;
}
