/**
 * Rows of a detailed-history page (level 2, trades, orders) as JSON bytes. The common request is every field, so each row group's
 * rows are serialised once and kept in the cache as one UTF-8 buffer `[row],[row],…` with the
 * byte offset of every row; any page is then a few slices of those buffers (a warm full-day
 * page is a memcpy, not 250,000 number conversions). Other field lists are serialised from
 * the cached decoded columns on each request.
 */
import type { CatalogFile } from '../../storage/catalog.js';
import type { FileColumnCache } from '../reading/fileColumns.js';
import { groupRowCount, groupsOf } from '../reading/rowSearch.js';
import type { RowTextSource } from './rowTextSource.js';
import type { JsonPiece } from '../http/jsonPieces.js';
import { ALL_FIELDS, ROW_BYTES, isAllFields, serializeRows, sliceRows, type SerializedRows } from '../../storage/rowText/rowJson.js';

const COMMA = Buffer.from(',');

/**
 * Makes the every-field rows of a row group elsewhere (rowJsonPool.ts: worker threads); null
 * when it cannot read the file, which is then done on this thread.
 */
export interface RowJsonMaker {
  rows(file: CatalogFile, group: number, sizeHint: number): Promise<SerializedRows | null>;
}

/**
 * Where a row group's every-field rows come from when they are not cached: the file's row text
 * (written at seal), else row-JSON workers, else this thread; each null passes to the next.
 */
export interface RowSources {
  readonly rowText: RowTextSource | null;
  readonly pool: RowJsonMaker | null;
}

/** The cache key of a row group's every-field rows. */
function rowJsonKey(file: CatalogFile, g: number): string {
  return `${file.path}#${g}#rowjson`;
}

/** `frame`: the group's row text frame, when a stored piece already holds it. */
function groupRows(cache: FileColumnCache, file: CatalogFile, g: number, sources: RowSources, frame?: Buffer): Promise<SerializedRows> {
  const rows = groupRowCount(file, g);
  const estimate = rows * (ROW_BYTES[file.dataset] ?? 340);
  const all = ALL_FIELDS[file.dataset];
  // Text, row offsets, and the stored DEFLATE chunk when it came from row text (~a fifth of the text).
  return cache.memo(rowJsonKey(file, g), Math.round(estimate * 1.2) + rows * 4, async () => {
    const stored = sources.rowText ? await sources.rowText.rows(file, g, frame) : null;
    if (stored) return stored;
    const made = sources.pool && !(await cache.isRemote(file)) ? await sources.pool.rows(file, g, estimate) : null;
    if (made) return made;
    const [m] = await cache.rowGroups(file, [g], all, { keep: false });
    return serializeRows(
      all.map((c) => m.get(c)!),
      0,
      rows,
      estimate,
    );
  });
}

/**
 * The JSON of rows [first, end) with the given fields, as comma-joined pieces. A row group the
 * page holds whole, not cached, with row text, is a stored piece (jsonPieces.ts): inflated only
 * if the answer needs its text.
 */
export async function pageRowsJson(
  cache: FileColumnCache,
  file: CatalogFile,
  first: number,
  end: number,
  fields: readonly number[],
  /** Where every-field rows not yet cached come from; none: made on this thread. */
  sources: RowSources = { rowText: null, pool: null },
): Promise<JsonPiece[]> {
  const groups = groupsOf({ lo: first, hi: end }, file.rowGroupSize);
  const size = file.rowGroupSize;
  const pieces: JsonPiece[] = [];
  const push = (b: JsonPiece) => {
    if (pieces.length > 0) pieces.push(COMMA);
    pieces.push(b);
  };
  if (groups.length === 0) return pieces;
  if (isAllFields(fields, file.dataset)) {
    const rowText = sources.rowText;
    const perGroup = await Promise.all(
      groups.map(async (g): Promise<JsonPiece> => {
        const base = g * size;
        const n = groupRowCount(file, g);
        const from = Math.max(first, base) - base;
        const to = Math.min(end, base + n) - base;
        const whole = from === 0 && to === n;
        if (rowText && whole && !cache.has(rowJsonKey(file, g))) {
          const stored = await rowText.stored(file, g, async (chunk) => (await groupRows(cache, file, g, sources, chunk)).bytes);
          if (stored) return stored;
        }
        const rows = await groupRows(cache, file, g, sources);
        // Cached rows that came from row text keep their chunk: a gzip answer splices it.
        if (whole && rows.deflated) {
          return { chunk: rows.deflated.chunk, textBytes: rows.bytes.length, textCrc32: rows.deflated.textCrc32, text: () => Promise.resolve(rows.bytes) };
        }
        return sliceRows(rows, from, to);
      }),
    );
    perGroup.forEach(push);
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
