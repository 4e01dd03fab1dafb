/**
 * Boundary snapshots (api-contract: tick_history): per index, the last snapshot strictly before HH:MM:00.000
 * (`before`) or the first at or after it (`after`).
 *
 * Which row that is needs no data at all: the catalog's minute index gives p = rows before
 * minute HH:MM, so `after` is row p and `before` row p-1, exactly. Only its text must be read,
 * from one of up to thousands of files. The seal writes those rows — p-1 and p of every minute
 * start, the candidates — regrouped by minute into boundary parts (storage/boundary/), so the
 * whole market's answer at a minute is two small blocks of one file: that is the path for every
 * file a part names.
 *
 * A file no part names (a day sealed before parts existed, or a crash between listing files
 * and their part) is answered from the file itself: the candidates of a row group are
 * extracted once, on first use, from one decode of that group, and kept in a byte-bounded LRU
 * of their own (a whole-market day must not evict the detail caches).
 */
import { Limiter } from '../../shared/limiter.js';
import { asDamaged, DamagedFileError } from '../../storage/damagedFile.js';
import { SCHEMAS } from '../../shared/schema.js';
import { boundaryRow } from '../../storage/minuteIndex.js';
import { ByteLru } from '../reading/byteLru.js';
import type { FileColumnCache } from '../reading/fileColumns.js';
import { readRowGroups, type DecodedColumn } from '../../storage/parquet/reader.js';
import { StoreError } from '../../storage/store/storeError.js';
import type { DayFile } from './dayFiles.js';
import type { BoundaryItem } from './daySymbols.js';
import { ALL_TICK_FIELDS, candidatePositions, minuteOfRow } from '../../storage/boundary/candidates.js';
import type { BlockEntry, BoundaryBlock } from '../../storage/boundary/partCodec.js';
import { readBoundaryBlock } from '../../storage/boundary/partFile.js';
import type { Side } from './params.js';
import { sourceOfFile, storedColumns, tickColumns, tickRowText } from '../../storage/tickShape.js';

const BUILD_CONCURRENCY = 8;
const STRING_BYTES = 40;

/** The candidate rows of one row group of a symbol-day file. */
export interface BoundaryRows {
  /** File positions, ascending, unique. */
  readonly positions: Int32Array;
  /** Per tick field, the values at `positions` (null for the always-null fields). */
  readonly columns: readonly (DecodedColumn | null)[];
}

/** The row answering (minute, side) in a file, or -1 when the index has none that day. */
export function boundaryPosition(df: DayFile, minute: number, side: Side): number {
  return boundaryRow(df.file.minuteIndex, df.starts, df.file.rows, minute, side === 'after');
}

function pick(col: DecodedColumn, positions: Int32Array, firstRow: number, rows: number, out: DecodedColumn): void {
  for (let k = 0; k < positions.length; k++) {
    const p = positions[k];
    if (p < firstRow || p >= firstRow + rows) continue;
    if (col.kind === 'number' && out.kind === 'number') out.values[k] = col.values[p - firstRow];
    else if (col.kind === 'string' && out.kind === 'string') (out.values as string[])[k] = col.values[p - firstRow];
  }
}

export class BoundaryIndex {
  /** Boundary rows' share of --cache-mb; a live day's boundary candidates are kept in it too (liveBoundaries.ts). */
  readonly lru: ByteLru;
  /** Row groups decoded at once while building: bounds transient memory and file handles. */
  private readonly builds = new Limiter(BUILD_CONCURRENCY);

  constructor(
    /** Its files are read through the column cache's lake (the data directory, or the store). */
    private readonly columns: FileColumnCache,
    maxBytes: number,
    /** Told of a damaged part, once per part; the rows then come from the files. */
    private readonly onDamagedPart: (e: DamagedFileError) => void = () => undefined,
  ) {
    this.lru = new ByteLru(maxBytes);
  }

  get usedBytes(): number {
    return this.lru.usedBytes;
  }

  /**
   * JSON text of row `position` of a file: `fields` (tick field positions) in order, or null
   * for every field (the text a part holds, as it is).
   */
  async rowText(df: DayFile, position: number, fields: readonly number[] | null): Promise<string> {
    if (df.boundary) {
      const text = await this.partText(df, position);
      if (text !== null) {
        if (fields === null) return text;
        const values = JSON.parse(text) as unknown[];
        return JSON.stringify(fields.map((f) => values[f]));
      }
    }
    const rows = await this.rowsOf(df, position);
    const k = indexOfPosition(rows.positions, position);
    if (k < 0) throw new Error(`boundary row ${position} of ${df.file.path} is not among its candidates`);
    return tickRowText(
      (fields ?? ALL_TICK_FIELDS).map((c) => rows.columns[c]),
      k,
    );
  }

  /**
   * The row's text from the file's boundary part; null when the part does not hold it, is gone
   * from disk, or is damaged: a part is an index of rows the files hold too, so losing it costs
   * speed, never an answer. Damage is not silent: it is reported (a DamagedFileError naming
   * the part, logged by the server) once per part, and `doctor` names it too. An error of the
   * disk itself (EACCES, EIO…) is raised as it is.
   */
  private async partText(df: DayFile, position: number): Promise<string | null> {
    const { part, symbol } = df.boundary!;
    const entry = part.directory.get(minuteOfRow(df.file.minuteIndex, df.starts, position));
    if (!entry) return null;
    const block = await this.block(part.path, entry);
    if (block === null) return null;
    try {
      return block.text(symbol, position);
    } catch (e) {
      return this.damaged(asDamaged(part.path, e));
    }
  }

  /** A block of a part, decoded; null when the part's file is gone or damaged. */
  private block(path: string, entry: BlockEntry): Promise<BoundaryBlock | null> {
    const key = `${path}@${entry.minute}`;
    const hit = this.lru.get<BoundaryBlock | null>(key);
    if (hit) return hit;
    const read = readBoundaryBlock(this.columns.lake, path, entry).catch((e: unknown) => {
      // Gone, or in a store that cannot be reached now: the rows come from the files (which say so).
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' || e instanceof StoreError) return null;
      return this.damaged(asDamaged(path, e));
    });
    // Decoded, a block is about 8 times its compressed size.
    return this.lru.set(key, 200 + entry.length * 8, read);
  }

  /** Reports a damaged part once (an error of the disk itself is raised instead); the caller falls back to the files. */
  private damaged(e: Error): null {
    if (!(e instanceof DamagedFileError)) throw e;
    // Each part is reported once (while the damage records remember it).
    if (this.columns.damage.firstReport('part', e.path)) this.onDamagedPart(e);
    return null;
  }

  /** The candidates of the row group holding file position `position`. */
  rowsOf(df: DayFile, position: number): Promise<BoundaryRows> {
    const g = Math.floor(position / df.file.rowGroupSize);
    const key = `${df.file.path}#${g}`;
    const hit = this.lru.get<BoundaryRows>(key);
    if (hit) return hit;
    const first = g * df.file.rowGroupSize;
    const all = candidatePositions(df.starts, df.file.rows);
    const positions = all.filter((p) => p >= first && p < first + df.file.rowGroupSize);
    const bytes = 200 + positions.length * (4 + (ALL_TICK_FIELDS.length - 3) * 8 + 3 * STRING_BYTES);
    return this.lru.set(
      key,
      bytes,
      this.builds.run(() => this.build(df, g, positions)),
    );
  }

  private async build(df: DayFile, g: number, positions: Int32Array): Promise<BoundaryRows> {
    const { file } = df;
    const source = sourceOfFile(file);
    const stored = storedColumns(source, ALL_TICK_FIELDS);
    const footer = await this.columns.footer(file);
    const [m] = await this.columns.lake.with(file.path, (f) => readRowGroups(f, footer, [g], stored, file.path));
    const rg = footer.rowGroups[g];
    const schema = SCHEMAS[file.dataset];
    const picked = new Map<number, DecodedColumn>();
    for (const c of stored) {
      const out: DecodedColumn =
        schema.fields[c].type === 'string'
          ? { kind: 'string', values: new Array<string>(positions.length) }
          : { kind: 'number', values: new Float64Array(positions.length) };
      pick(m.get(c)!, positions, rg.firstRow, rg.numRows, out);
      picked.set(c, out);
    }
    const timeCol = picked.get(source.timeColumn)!;
    const times = Int32Array.from(timeCol.kind === 'string' ? timeCol.values : [], (t) => source.timeMs(t));
    return { positions, columns: tickColumns(source, file.tradedate, ALL_TICK_FIELDS, times, (c) => picked.get(c)!) };
  }
}

function isEveryField(fields: readonly number[]): boolean {
  return fields.length === ALL_TICK_FIELDS.length && fields.every((f, i) => f === i);
}

/** Binary search of a file position among the candidates; -1 when absent. */
function indexOfPosition(positions: Int32Array, p: number): number {
  let lo = 0;
  let hi = positions.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (positions[mid] < p) lo = mid + 1;
    else hi = mid;
  }
  return lo < positions.length && positions[lo] === p ? lo : -1;
}

/**
 * JSON row texts of the boundary rows, one per symbol that has one, in the items' order (the
 * caller passes them sorted by symbol): a sealed file's row, or a live day's row made while
 * its staging was read (daySymbols.ts).
 */
export async function boundaryRowTexts(
  index: BoundaryIndex,
  items: readonly BoundaryItem[],
  at: { readonly minute: number; readonly side: Side },
  fields: readonly number[],
  page: { readonly offset: number; readonly limit: number } = { offset: 0, limit: Infinity },
): Promise<{ readonly rows: string[]; readonly total: number }> {
  // Which files have a boundary row is known from the minute index alone, so a page is cut
  // before any row is read: only the page's rows are decoded.
  const all = items
    .map((item) => ({ item, position: item.kind === 'file' ? boundaryPosition(item.df, at.minute, at.side) : 0 }))
    .filter((w) => w.position >= 0);
  const wanted = all.slice(page.offset, page.offset + page.limit);
  const asStored = isEveryField(fields) ? null : fields;
  return {
    rows: await Promise.all(wanted.map(({ item, position }) => (item.kind === 'file' ? index.rowText(item.df, position, asStored) : item.text))),
    total: all.length,
  };
}
