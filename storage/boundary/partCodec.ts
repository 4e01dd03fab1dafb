/**
 * The layout of a boundary part (pure; partFile.ts does the I/O). A part holds the candidates
 * of a set of symbol-day files of one dataset-day, regrouped by minute: the block of minute M
 * holds every candidate row whose time falls in M — the first and last row of M of each file
 * — so the whole market's answer at a boundary sits in two blocks (M-1's last rows, M's first
 * rows), not in one row group of each of thousands of files.
 *
 * Block (before compression), little-endian: u32 n; n × u32 symbol (index into the part's
 * symbols); n × u32 position; n × u32 end of the row's text; then the texts, UTF-8. Rows are
 * sorted by symbol, then position. Directory: per block, u16 minute, u32 offset, u32 length
 * (of its compressed bytes in the file), ascending by minute.
 */
import type { FileCandidates } from './candidates.js';

export interface PartBlock {
  readonly minute: number;
  readonly raw: Buffer;
}

export interface BlockEntry {
  readonly minute: number;
  readonly offset: number;
  readonly length: number;
}

/**
 * Symbols ascending, and one block per minute that has candidate rows, ascending. The blocks
 * are made as they are iterated, each minute's rows let go once its block is made, so a writer
 * holding only a few raw blocks at a time never holds the part's text twice.
 */
export function partBlocks(files: readonly FileCandidates[]): { readonly symbols: string[]; readonly blocks: Iterable<PartBlock> } {
  const sorted = [...files].sort((a, b) => (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0));
  const byMinute = new Map<number, { symbol: number; position: number; text: string }[]>();
  sorted.forEach((f, symbol) => {
    for (let k = 0; k < f.positions.length; k++) {
      let rows = byMinute.get(f.minutes[k]);
      if (!rows) byMinute.set(f.minutes[k], (rows = []));
      // Files are visited in symbol order and their rows in position order: each block's rows
      // arrive sorted.
      rows.push({ symbol, position: f.positions[k], text: f.texts[k] });
    }
  });
  function* blocks(): Generator<PartBlock> {
    for (const minute of [...byMinute.keys()].sort((a, b) => a - b)) {
      const rows = byMinute.get(minute)!;
      byMinute.delete(minute);
      yield encodeBlock(minute, rows);
    }
  }
  return { symbols: sorted.map((f) => f.symbol), blocks: blocks() };
}

function encodeBlock(minute: number, rows: readonly { symbol: number; position: number; text: string }[]): PartBlock {
  const texts = Buffer.from(rows.map((r) => r.text).join(''), 'utf8');
  const head = Buffer.alloc(4 + rows.length * 12);
  head.writeUInt32LE(rows.length, 0);
  let end = 0;
  rows.forEach((r, i) => {
    head.writeUInt32LE(r.symbol, 4 + i * 4);
    head.writeUInt32LE(r.position, 4 + (rows.length + i) * 4);
    end += Buffer.byteLength(r.text, 'utf8');
    head.writeUInt32LE(end, 4 + (2 * rows.length + i) * 4);
  });
  if (end !== texts.length) throw new Error('boundary block: text lengths do not add up');
  return { minute, raw: Buffer.concat([head, texts]) };
}

/** A decoded block: the row text of (symbol, position), found by binary search. */
export class BoundaryBlock {
  private readonly n: number;
  private readonly view: DataView;
  private readonly textStart: number;

  constructor(private readonly raw: Uint8Array) {
    this.view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
    this.n = this.view.getUint32(0, true);
    this.textStart = 4 + this.n * 12;
    if (raw.byteLength < this.textStart) throw new Error('boundary block is truncated');
  }

  get rows(): number {
    return this.n;
  }

  get bytes(): number {
    return this.raw.byteLength;
  }

  private symbolAt(i: number): number {
    return this.view.getUint32(4 + i * 4, true);
  }

  private positionAt(i: number): number {
    return this.view.getUint32(4 + (this.n + i) * 4, true);
  }

  private endAt(i: number): number {
    return i < 0 ? 0 : this.view.getUint32(4 + (2 * this.n + i) * 4, true);
  }

  /** The JSON text of row `position` of the part's `symbol`-th file, or null when absent. */
  text(symbol: number, position: number): string | null {
    let lo = 0;
    let hi = this.n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const s = this.symbolAt(mid);
      if (s < symbol || (s === symbol && this.positionAt(mid) < position)) lo = mid + 1;
      else hi = mid;
    }
    if (lo >= this.n || this.symbolAt(lo) !== symbol || this.positionAt(lo) !== position) return null;
    return Buffer.from(this.raw.buffer, this.raw.byteOffset + this.textStart + this.endAt(lo - 1), this.endAt(lo) - this.endAt(lo - 1)).toString('utf8');
  }
}

export function encodeDirectory(entries: readonly BlockEntry[]): Buffer {
  const buf = Buffer.alloc(entries.length * 10);
  entries.forEach((e, i) => {
    buf.writeUInt16LE(e.minute, i * 10);
    buf.writeUInt32LE(e.offset, i * 10 + 2);
    buf.writeUInt32LE(e.length, i * 10 + 6);
  });
  return buf;
}

export function decodeDirectory(buf: Uint8Array): Map<number, BlockEntry> {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  if (b.length % 10 !== 0) throw new Error(`boundary directory of ${b.length} bytes is not a whole number of entries`);
  const out = new Map<number, BlockEntry>();
  for (let i = 0; i < b.length; i += 10) {
    const minute = b.readUInt16LE(i);
    out.set(minute, { minute, offset: b.readUInt32LE(i + 2), length: b.readUInt32LE(i + 6) });
  }
  return out;
}
