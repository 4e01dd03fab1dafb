/**
 * Row groups to warm a thread's decoder on: a made-up level-2 symbol-day (two row groups of the
 * sealed size; prices on the cent grid, volumes, amounts, and the opening auction's empty
 * levels and prices), encoded once in memory by the writer and decoded again and again by the
 * reader. A thread that will decode sealed files runs it before its first pages: a new server
 * process otherwise teaches V8 its decoder and serialiser on its users' first pages, which cost
 * 2-5× a warm one (a new process without row text, 5 warm-up pages of one file cached after the
 * first: 50-145 ms for the next three pages against 13-20 ms from the fifteenth on, load 4-5).
 */
import { SCHEMAS } from '../../shared/schema.js';
import { bufferSource } from './byteSource.js';
import type { DecodedColumn } from './columnChunk.js';
import { readFooter } from './metadata.js';
import { readRowGroups } from './reader.js';
import { encodeParquet, type SymbolDayColumns } from './writer.js';

const HOUR_MS = 3_600_000;
/** Snapshots of the call auction (09:15-09:25 every 3 s): no book beyond the first level, no prices yet. */
const AUCTION_ROWS = 200;

/** A decoded row group of the made-up day, every column by schema position. */
export interface WarmUpGroup {
  readonly rows: number;
  readonly columns: ReadonlyMap<number, DecodedColumn>;
}

/** The made-up day: `rows` snapshots every 3 s from 09:15, values from a fixed sequence (the same day each time). */
export function warmUpDay(rows: number): SymbolDayColumns {
  const fields = SCHEMAS.level2.valueFields;
  const values = fields.map(() => new Float64Array(rows));
  const timesMs = new Int32Array(rows);
  let seed = 0x2f6b_3c1d;
  const next = () => {
    // xorshift32: deterministic, no allocation.
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 4294967296;
  };
  // What each field is, worked out once (a regular expression a value made the warm-up slower
  // than what it warms).
  const kinds = fields.map((f) => {
    const depth = /(\d+)$/.exec(f.name);
    const level = depth ? Number(depth[1]) : 0;
    return {
      level,
      volume: f.name.includes('vol'),
      amount: f.name === 'amount',
      bid: f.name.startsWith('bid'),
      open: f.name === 'open',
      // Null in the auction: the book past its first level, and the prices of a trade.
      auctionNull: level >= 2 || ['open', 'high', 'low', 'close'].includes(f.name),
    };
  });
  let price = 10;
  for (let i = 0; i < rows; i++) {
    timesMs[i] = 9 * HOUR_MS + 15 * 60_000 + i * 3000;
    price = Math.max(0.01, Math.round((price + (next() - 0.5) * 0.04) * 100) / 100);
    const auction = i < AUCTION_ROWS;
    for (let c = 0; c < kinds.length; c++) {
      const k = kinds[c];
      // Every length of integer up to 12 digits, cents up to 10^10 and prices of three
      // decimals (funds): the serialiser's branches, so a real day's numbers never meet code
      // compiled without them (a day's cumulative volume of 9 digits deoptimised it).
      const digits = 1 + ((i * 7 + c) % 12);
      let v: number;
      if (k.volume) v = Math.round(next() * 10 ** digits);
      else if (k.amount) v = Math.round(next() * 10 ** digits) / 100;
      else if (k.level > 0) v = Math.round((price + (k.bid ? -k.level : k.level) * 0.01) * 100) / 100;
      else v = i % 50 === 0 ? Math.round(price * 1000 + 1) / 1000 : price;
      // Now and then a number off both grids and a negative one: the writer's other paths.
      if (i % 61 === 0 && k.amount) v += 0.123457;
      if (i % 67 === 0 && k.open) v = -v;
      values[c][i] = auction && k.auctionNull ? NaN : v;
    }
  }
  return { dataset: 'level2', symbol: '600000.SH', tradedate: '20250102', rows, timesMs, values };
}

/**
 * `rounds` decoded row groups of the made-up day, every column, the day encoded once first. The
 * caller does with each what its thread does with a sealed file's (serialises it) and may yield
 * between rounds so requests are not held behind the warm-up.
 */
export async function* warmUpRowGroups(rounds: number): AsyncGenerator<WarmUpGroup> {
  const size = SCHEMAS.level2.rowGroupSize;
  const bytes = await encodeParquet(warmUpDay(2 * size), { rowGroupSize: size });
  const source = bufferSource(bytes, '(warm-up)');
  const footer = await readFooter(source, bytes.length);
  const all = footer.columns.map((_, i) => i);
  for (let i = 0; i < rounds; i++) {
    const g = i % footer.rowGroups.length;
    const [columns] = await readRowGroups(source, footer, [g], all);
    yield { rows: footer.rowGroups[g].numRows, columns };
  }
}
