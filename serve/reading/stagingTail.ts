/**
 * The staged rows of the symbols a server is asked for, kept up to date by reading only what
 * the ingestor committed since the last request (api-contract: The live day).
 *
 * Why this design (measured on one staging bucket at a whole market's close, 20 stocks ×
 * 4,800 level-2 snapshots, 53 MB; docs/architecture.md, The live day):
 * - Reading the symbol's bucket on every request, as the seal does, cost 57 ms p50 (two passes
 *   over 53 MB), about DuckDB's time for the sealed file: the cost grows with the day.
 * - An index of record positions kept by the server does not help: a symbol's records are
 *   interleaved with the bucket's other ~20, so reading them one by one is 4,800 reads
 *   (13 ms) where one sequential pass costs the same.
 * - An index or chunks published by the ingestor would cost it a second write of every row
 *   (the whole market's 13 GB a day) on the path the Kafka ratio measures.
 * - So the server keeps, for each symbol asked, its rows resolved exactly as the seal resolves
 *   them (storage/staging/bucketRead.ts `resolveRecords`), and per bucket how far each segment
 *   has been read. A request reads the committed bytes past that point (a few KB between
 *   polls) and appends the new rows when they come after the last one, which is how a feed
 *   arrives; a row that does not (a correction, an out-of-order message) makes the symbol read
 *   its bucket again, resolved from scratch. A symbol's first request reads its bucket once.
 *
 * What is kept is in the detail cache's LRU by bytes (--cache-mb): a bucket's symbols are one
 * entry, evicted together, and read again when asked again. Only committed bytes are read, so
 * a row is visible once durable and never one a crash could take back.
 */
import { ByteLru } from './byteLru.js';
import type { Db } from '../../shared/sqlite.js';
import { SCHEMAS, type Dataset } from '../../shared/schema.js';
import { readSymbols, recordWindows, segmentsOf, type Segment, type StagedSymbolDay } from '../../storage/staging/bucketRead.js';
import { HEADER_BYTES, recordBytes, recordSymbol, TIME_OFFSET } from '../../storage/staging/recordCodec.js';

/**
 * Serialised rows of a live symbol-day for the whole field list, made by the page writer and
 * kept with the rows while they only grow: chunks of consecutive rows, from row 0.
 */
export interface LiveRowText {
  /** Rows [0, rows) are serialised. */
  rows: number;
  readonly chunks: { readonly first: number; readonly bytes: Buffer; readonly offsets: Uint32Array }[];
}

/** A symbol's live rows, with the text cache the page writer fills. */
export interface LiveRows extends StagedSymbolDay {
  readonly text: LiveRowText;
}

const ENTRY_OVERHEAD = 512;

/** One symbol's resolved rows, growing in place while new rows come after the last. */
class HotSymbol {
  rows = 0;
  timesMs: Int32Array;
  values: Float64Array[];
  /** The last row's id (trades, orders), and the largest id held: a new row must pass both. */
  private lastId = -Infinity;
  private maxId = -Infinity;
  /** A committed record did not come after the last row: resolve again from the bucket. */
  dirty = false;
  text: LiveRowText = { rows: 0, chunks: [] };

  constructor(
    private readonly dataset: Dataset,
    readonly symbol: string,
    day: StagedSymbolDay,
  ) {
    this.timesMs = day.timesMs;
    this.values = day.values;
    this.rows = day.rows;
    const idValue = SCHEMAS[dataset].idValue;
    if (idValue !== null && day.rows > 0) {
      const ids = day.values[idValue]!;
      this.lastId = ids[day.rows - 1]!;
      for (let r = 0; r < day.rows; r++) if (ids[r]! > this.maxId) this.maxId = ids[r]!;
    }
  }

  /**
   * Appends the record at byte `o` of `w` when it comes after the last row (time, then id) and
   * cannot replace a row (a snapshot's time or a trade's id not held); otherwise marks the
   * symbol dirty. The resolution then equals resolveRecords over all records.
   */
  append(w: Buffer, o: number, f64: Float64Array): void {
    if (this.dirty) return;
    const timeMs = w.readInt32LE(o + TIME_OFFSET);
    const last = this.rows === 0 ? -Infinity : this.timesMs[this.rows - 1]!;
    const idValue = SCHEMAS[this.dataset].idValue;
    const base = (o + HEADER_BYTES) / 8;
    if (idValue === null) {
      if (!(timeMs > last)) return void (this.dirty = true);
    } else {
      const id = f64[base + idValue]!;
      if (!(id > this.maxId) || timeMs < last || (timeMs === last && !(id > this.lastId))) return void (this.dirty = true);
      this.lastId = id;
      this.maxId = id;
    }
    if (this.rows === this.timesMs.length) this.grow();
    this.timesMs[this.rows] = timeMs;
    for (let j = 0; j < this.values.length; j++) this.values[j]![this.rows] = f64[base + j]!;
    this.rows++;
  }

  private grow(): void {
    const capacity = Math.max(64, this.timesMs.length * 2);
    const times = new Int32Array(capacity);
    times.set(this.timesMs.subarray(0, this.rows));
    this.timesMs = times;
    this.values = this.values.map((v) => {
      const next = new Float64Array(capacity);
      next.set(v.subarray(0, this.rows));
      return next;
    });
  }

  view(): LiveRows {
    return {
      symbol: this.symbol,
      rows: this.rows,
      timesMs: this.timesMs.subarray(0, this.rows),
      values: this.values.map((v) => v.subarray(0, this.rows)),
      text: this.text,
    };
  }

  bytes(): number {
    let text = 0;
    for (const c of this.text.chunks) text += c.bytes.length + c.offsets.byteLength;
    return ENTRY_OVERHEAD + this.timesMs.byteLength + this.values.reduce((n, v) => n + v.byteLength, 0) + text;
  }
}

/** A bucket of a staged day: how far each segment is read, and the symbols followed. */
class FollowedBucket {
  /** Bytes of each segment (by path) already read into `hot`. */
  readonly scanned = new Map<string, number>();
  readonly hot = new Map<string, HotSymbol>();

  bytes(): number {
    let n = ENTRY_OVERHEAD;
    for (const h of this.hot.values()) n += h.bytes();
    return n;
  }
}

export class StagingTail {
  constructor(
    private readonly dataDir: string,
    /** The detail cache's LRU: followed buckets are kept in --cache-mb with everything else. */
    private readonly cache: ByteLru,
  ) {}

  /**
   * The rows of `symbols` in one bucket of a staged day, as the seal would write them from
   * what is committed now; a symbol with nothing staged is absent.
   */
  bucketRows(db: Db, dataset: Dataset, tradedate: string, bucket: number, symbols: ReadonlySet<string>): Map<string, LiveRows> {
    const key = `live:${dataset}:${tradedate}:${bucket}`;
    try {
      return this.follow(key, db, dataset, tradedate, bucket, symbols);
    } catch (e) {
      // Half brought up to date (a segment removed by the seal meanwhile, a read error): forgotten.
      this.cache.delete(key);
      throw e;
    }
  }

  private follow(key: string, db: Db, dataset: Dataset, tradedate: string, bucket: number, symbols: ReadonlySet<string>): Map<string, LiveRows> {
    const followed = this.cache.value<FollowedBucket>(key) ?? new FollowedBucket();
    const segs = segmentsOf(db, dataset, tradedate, bucket);
    const size = recordBytes(dataset);
    // What was committed since the last request, for the symbols followed already.
    if (followed.hot.size > 0) {
      const tail = segs.map((s): Segment => ({ ...s, from: followed.scanned.get(s.path) ?? 0 }));
      for (const w of recordWindows(this.dataDir, tail, size)) {
        const f64 = new Float64Array(w.buffer, w.byteOffset, w.length / 8);
        for (let o = 0; o < w.length; o += size) followed.hot.get(recordSymbol(w, o))?.append(w, o, f64);
      }
    }
    // Symbols asked for the first time, or made dirty: their whole bucket, resolved as sealed.
    const fresh = new Set([...symbols].filter((s) => followed.hot.get(s)?.dirty ?? true));
    if (fresh.size > 0) {
      const resolved = new Map([...readSymbols(this.dataDir, dataset, segs, fresh)].map((d) => [d.symbol, d]));
      // A symbol with nothing staged yet is followed too (its rows are appended as they come),
      // so asking for it again does not read its bucket again.
      for (const s of fresh) followed.hot.set(s, new HotSymbol(dataset, s, resolved.get(s) ?? emptyDay(dataset, s)));
    }
    for (const s of segs) followed.scanned.set(s.path, s.bytes - (s.bytes % size));
    const out = new Map<string, LiveRows>();
    for (const s of symbols) {
      const h = followed.hot.get(s);
      if (h !== undefined && h.rows > 0) out.set(s, h.view());
    }
    this.cache.keep(key, followed.bytes(), followed);
    return out;
  }
}

function emptyDay(dataset: Dataset, symbol: string): StagedSymbolDay {
  return { symbol, rows: 0, timesMs: new Int32Array(0), values: SCHEMAS[dataset].valueFields.map(() => new Float64Array(0)) };
}
