/**
 * tick_history's boundary rows on a live day (api-contract: The live day): for every symbol of
 * a staged dataset-day, per minute, where its first and last snapshot are in staging, kept up
 * to date by reading only what was committed since the last request.
 *
 * Why: a boundary asks one row per symbol, often of every stock (stock-god's poll at 09:25),
 * and a symbol's rows are spread through its staging bucket among ~20 others', so reading the
 * rows of the symbols asked means reading nearly all of staging on every request (≈550 MB of a
 * whole market's level 2 by 09:25, 13 GB by the close). Per minute and symbol, the first
 * snapshot (the least time, the later message among equal times) and the last (the greatest)
 * are the only candidates: the first row at or after a minute is the first of the first minute
 * with rows from it on, the last row before it the last of the last minute with rows before
 * it, exactly as the seal's duplicate rule resolves them. What is kept is where they are
 * (segment, offset), their time and order: ~36 bytes a minute a symbol, ~60 MB for a whole
 * market's trading day, in the boundary share of --cache-mb. The answer reads only the
 * candidates' records.
 *
 * The first request of a server process for a day reads the day's staging once; later ones read
 * the bytes committed since. Only committed bytes are read, so a row is visible once durable.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import type { ByteLru } from './byteLru.js';
import type { Db } from '../../shared/sqlite.js';
import { SCHEMAS, type Dataset } from '../../shared/schema.js';
import { segmentsOf, recordWindows, type StagedSymbolDay } from '../../storage/staging/bucketRead.js';
import { HEADER_BYTES, ORDER_OFFSET, recordBytes, recordSymbol, TIME_OFFSET } from '../../storage/staging/recordCodec.js';
import { MS_PER_MINUTE } from '../../shared/timeFormat.js';

const NONE = -1;
/** Slack when a symbol's minute range grows, so a day's minutes arrive with few copies. */
const GROW_MINUTES = 32;
const SYMBOL_OVERHEAD = 160;

/** One symbol's first and last snapshot per minute: where (segment, offset), when, and their order. */
class MinuteCandidates {
  base = 0;
  length = 0;
  firstTime = new Int32Array(0);
  firstOrder = new Float64Array(0);
  firstAt = new Float64Array(0);
  lastTime = new Int32Array(0);
  lastOrder = new Float64Array(0);
  lastAt = new Float64Array(0);

  note(timeMs: number, order: number, at: number): void {
    const m = Math.floor(timeMs / MS_PER_MINUTE);
    if (this.length === 0 || m < this.base || m >= this.base + this.length) this.cover(m);
    const i = m - this.base;
    const ft = this.firstTime[i]!;
    if (this.firstAt[i] === NONE || timeMs < ft || (timeMs === ft && order > this.firstOrder[i]!)) {
      this.firstTime[i] = timeMs;
      this.firstOrder[i] = order;
      this.firstAt[i] = at;
    }
    const lt = this.lastTime[i]!;
    if (this.lastAt[i] === NONE || timeMs > lt || (timeMs === lt && order > this.lastOrder[i]!)) {
      this.lastTime[i] = timeMs;
      this.lastOrder[i] = order;
      this.lastAt[i] = at;
    }
  }

  /** Where the first snapshot at or after `minute` is, or NONE. */
  after(minute: number): number {
    for (let i = Math.max(0, minute - this.base); i < this.length; i++) if (this.firstAt[i] !== NONE) return this.firstAt[i]!;
    return NONE;
  }

  /** Where the last snapshot strictly before `minute` is, or NONE. */
  before(minute: number): number {
    for (let i = Math.min(this.length, minute - this.base) - 1; i >= 0; i--) if (this.lastAt[i] !== NONE) return this.lastAt[i]!;
    return NONE;
  }

  get bytes(): number {
    return SYMBOL_OVERHEAD + this.length * (4 + 8 + 8) * 2;
  }

  /** Grows the minute range to hold `m` (with slack), keeping what is noted. */
  private cover(m: number): void {
    const from = this.length === 0 ? m - GROW_MINUTES : Math.min(this.base, m - GROW_MINUTES);
    const to = this.length === 0 ? m + GROW_MINUTES : Math.max(this.base + this.length, m + GROW_MINUTES);
    const base = Math.max(0, from);
    const length = to - base;
    const at = base <= this.base ? this.base - base : 0;
    const grow = <T extends Int32Array | Float64Array>(old: T, make: (n: number) => T, fill: number): T => {
      const next = make(length);
      next.fill(fill);
      next.set(old.subarray(0, this.length), at);
      return next;
    };
    this.firstTime = grow(this.firstTime, (n) => new Int32Array(n), 0);
    this.firstOrder = grow(this.firstOrder, (n) => new Float64Array(n), 0);
    this.firstAt = grow(this.firstAt, (n) => new Float64Array(n), NONE);
    this.lastTime = grow(this.lastTime, (n) => new Int32Array(n), 0);
    this.lastOrder = grow(this.lastOrder, (n) => new Float64Array(n), 0);
    this.lastAt = grow(this.lastAt, (n) => new Float64Array(n), NONE);
    this.base = base;
    this.length = length;
  }
}

/** A staged dataset-day followed for boundaries: how far each segment is read, and every symbol's candidates. */
class FollowedDay {
  readonly paths: string[] = [];
  readonly ordinal = new Map<string, number>();
  readonly scanned: number[] = [];
  readonly symbols = new Map<string, MinuteCandidates>();

  bytes(): number {
    let n = 1024 + this.paths.length * 96;
    for (const c of this.symbols.values()) n += c.bytes;
    return n;
  }
}

/**
 * Where a boundary is asked: the minute and side, and the minute of day now (Beijing time). The
 * last row `before` a minute that has not passed is not known yet (rows up to it are still to
 * come), so it is none so far; `after` needs no such rule: no row at or after a minute still to
 * come is staged.
 */
export interface LiveBoundaryAt {
  readonly minute: number;
  readonly side: 'before' | 'after';
  readonly nowMinute: number;
}

/** Record positions are (segment ordinal, byte offset) in one number: offsets stay below 2^32. */
const SEGMENT_STRIDE = 2 ** 32;

export class LiveBoundaries {
  constructor(
    private readonly dataDir: string,
    /** The boundary share of --cache-mb (memoryBudget.ts), shared with sealed days' boundary rows. */
    private readonly cache: ByteLru,
  ) {}

  /**
   * The boundary row of each of `symbols` (null: every symbol staged) at `at` from what is
   * committed now, as the seal would resolve it: one row each, absent when the symbol has none
   * on that side (or none known yet). `withRows`: symbols with any row that day.
   */
  rows(
    db: Db,
    dataset: Extract<Dataset, 'index' | 'level2'>,
    tradedate: string,
    symbols: readonly string[] | null,
    at: LiveBoundaryAt,
  ): { readonly rows: Map<string, StagedSymbolDay>; readonly withRows: number } {
    const day = this.followed(db, dataset, tradedate);
    const wanted = symbols ?? [...day.symbols.keys()];
    const known = at.side === 'after' || at.minute <= at.nowMinute;
    const positions = new Map<string, number>();
    let withRows = 0;
    for (const s of wanted) {
      const c = day.symbols.get(s);
      if (c === undefined) continue;
      withRows++;
      const p = !known ? NONE : at.side === 'after' ? c.after(at.minute) : c.before(at.minute);
      if (p !== NONE) positions.set(s, p);
    }
    return { rows: this.readAt(day, dataset, positions), withRows };
  }

  /** The day's candidates, brought up to what is committed now. */
  private followed(db: Db, dataset: Dataset, tradedate: string): FollowedDay {
    const key = `live-boundary:${dataset}:${tradedate}`;
    const day = this.cache.value<FollowedDay>(key) ?? new FollowedDay();
    const size = recordBytes(dataset);
    for (const seg of segmentsOf(db, dataset, tradedate)) {
      let k = day.ordinal.get(seg.path);
      if (k === undefined) {
        k = day.paths.push(seg.path) - 1;
        day.ordinal.set(seg.path, k);
        day.scanned.push(0);
      }
      const from = day.scanned[k]!;
      const to = seg.bytes - (seg.bytes % size);
      if (to <= from) continue;
      let pos = from;
      for (const w of recordWindows(this.dataDir, [{ path: seg.path, bytes: to, from }], size)) {
        for (let o = 0; o < w.length; o += size) {
          const symbol = recordSymbol(w, o);
          let c = day.symbols.get(symbol);
          if (c === undefined) day.symbols.set(symbol, (c = new MinuteCandidates()));
          c.note(w.readInt32LE(o + TIME_OFFSET), w.readDoubleLE(o + ORDER_OFFSET), k * SEGMENT_STRIDE + pos + o);
        }
        pos += w.length;
      }
      day.scanned[k] = to;
    }
    return this.cache.keep(key, day.bytes(), day);
  }

  /** The records at the positions, one row per symbol (each is its symbol's answer: no duplicate to resolve). */
  private readAt(day: FollowedDay, dataset: Dataset, at: ReadonlyMap<string, number>): Map<string, StagedSymbolDay> {
    const size = recordBytes(dataset);
    const bySegment = new Map<number, [string, number][]>();
    for (const [symbol, p] of at) {
      const k = Math.floor(p / SEGMENT_STRIDE);
      let list = bySegment.get(k);
      if (!list) bySegment.set(k, (list = []));
      list.push([symbol, p - k * SEGMENT_STRIDE]);
    }
    const out = new Map<string, StagedSymbolDay>();
    const width = SCHEMAS[dataset].valueFields.length;
    for (const [k, list] of bySegment) {
      const fd = openSync(join(this.dataDir, day.paths[k]!), 'r');
      try {
        // One buffer for the segment's records; each row's values are views of it.
        const buf = Buffer.from(new ArrayBuffer(size * list.length));
        const f64 = new Float64Array(buf.buffer);
        list.forEach(([symbol, offset], i) => {
          if (readSync(fd, buf, i * size, size, offset) !== size)
            throw new Error(`staging segment ${day.paths[k]} ends before its committed record at ${offset}`);
          const base = (i * size + HEADER_BYTES) / 8;
          out.set(symbol, {
            symbol,
            rows: 1,
            timesMs: Int32Array.of(buf.readInt32LE(i * size + TIME_OFFSET)),
            values: Array.from({ length: width }, (_, j) => f64.subarray(base + j, base + j + 1)),
          });
        });
      } finally {
        closeSync(fd);
      }
    }
    return out;
  }
}
