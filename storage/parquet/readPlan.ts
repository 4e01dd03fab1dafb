/**
 * The read plan: which bytes of a file a request for some columns of some row groups needs,
 * worked out from the footer alone, before any read, as plain data. Exactly the requested
 * column chunks: chunks that touch end to end in the file are read as one range (one read
 * call instead of several), but a range never spans an unrequested chunk, so reading two
 * columns of a wide row group costs those two chunks' bytes, not everything between them.
 */
import type { ParquetFooter } from './metadata.js';

/** One requested column chunk: `length` bytes at file offset `start`. */
export interface ChunkRange {
  readonly column: number;
  readonly start: number;
  readonly length: number;
}

/** One read: `length` bytes at file offset `start`, holding `chunks` back to back, in file order. */
export interface ByteRange {
  readonly start: number;
  readonly length: number;
  readonly chunks: readonly ChunkRange[];
}

export interface RowGroupReadPlan {
  readonly group: number;
  readonly numRows: number;
  /** In file order; together they hold every requested chunk once and no other byte. */
  readonly reads: readonly ByteRange[];
}

/**
 * Plans the reads of `columns` (positions in the schema, any order, repeats ignored) of each
 * of `rowGroups`, one plan per row group in the order asked.
 */
export function planRowGroupReads(footer: ParquetFooter, rowGroups: readonly number[], columns: readonly number[]): RowGroupReadPlan[] {
  const wanted = [...new Set(columns)];
  for (const c of wanted) {
    if (!Number.isInteger(c) || c < 0 || c >= footer.columns.length) throw new RangeError(`column ${c} does not exist`);
  }
  return rowGroups.map((group) => {
    const rg = footer.rowGroups[group];
    if (!rg) throw new RangeError(`row group ${group} does not exist`);
    const chunks: ChunkRange[] = wanted.map((column) => ({ column, start: rg.chunks[column].start, length: rg.chunks[column].length }));
    chunks.sort((a, b) => a.start - b.start);
    const reads: ByteRange[] = [];
    let run: ChunkRange[] = [];
    let runStart = 0;
    let runEnd = 0;
    for (const ch of chunks) {
      if (run.length > 0 && ch.start !== runEnd) {
        reads.push({ start: runStart, length: runEnd - runStart, chunks: run });
        run = [];
      }
      if (run.length === 0) runStart = ch.start;
      run.push(ch);
      runEnd = ch.start + ch.length;
    }
    if (run.length > 0) reads.push({ start: runStart, length: runEnd - runStart, chunks: run });
    return { group, numRows: rg.numRows, reads };
  });
}
