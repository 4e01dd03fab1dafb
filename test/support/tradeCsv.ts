/**
 * Vendor-like trade CSV files whose every row is known (sh600000, HH:MM:SS.fff, prices ×10000,
 * volumes in lots, the date only in the file name), with chosen lines damaged: the answers an
 * import must give are then known from the file's making, not from the importer.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const TRADE_HEADER = 'Code,Clock,No,Px,Lots,Side';

export const TRADE_MAPPING = [
  'dataset trade',
  'symbol Code form=prefixed',
  'tradedate file pattern=_(\\d{8})\\.csv',
  'time Clock form=hh:mm:ss.fff',
  'price_scale 10000',
  'volume_unit lots',
  'field trade_id No',
  'field price Px',
  'field volume Lots',
  'code bs_flag Side 1=B 2=S 0=N',
].join('\n');

export type Damage = 'quote' | 'extra' | 'fewer';

export interface TradeRow {
  /** `600000.SH` as stored. */
  readonly symbol: string;
  readonly tradeId: number;
}

const pad = (x: number, w: number) => String(x).padStart(w, '0');

/**
 * Data row k (0-based; file line k + 2): symbol 600000 + k mod `symbols`, its trade id
 * ⌊k / symbols⌋ + 1, every 500 ms of that symbol from 09:30:00.000.
 */
export function tradeLine(k: number, symbols: number): string {
  const i = Math.floor(k / symbols);
  const ms = 9.5 * 3_600_000 + i * 500;
  const clock = `${pad(Math.floor(ms / 3_600_000), 2)}:${pad(Math.floor(ms / 60_000) % 60, 2)}:${pad(Math.floor(ms / 1000) % 60, 2)}.${pad(ms % 1000, 3)}`;
  return `sh${600000 + (k % symbols)},${clock},${i + 1},${102300 + (i % 50) * 100},${1 + (i % 7)},${1 + (k % 2)}`;
}

export function tradeRowOf(k: number, symbols: number): TradeRow {
  return { symbol: `${600000 + (k % symbols)}.SH`, tradeId: Math.floor(k / symbols) + 1 };
}

/** A line damaged: a quote opened and never closed, one field more, one field fewer. */
export function damaged(line: string, how: Damage): string {
  if (how === 'quote') {
    const cells = line.split(',');
    cells[3] = `"${cells[3]}`; // the price's quote: its field would run on to the end of the file
    return cells.join(',');
  }
  if (how === 'extra') return `${line},9`;
  return line.slice(0, line.lastIndexOf(','));
}

/**
 * The text of a trade file of `rows` data rows with lines damaged (by 1-based file line, the
 * header being line 1), and its lines as written.
 */
export function tradeCsvText(rows: number, damage: ReadonlyMap<number, Damage> = new Map(), symbols = 1): { readonly text: string; readonly lines: string[] } {
  const lines = [TRADE_HEADER];
  for (let k = 0; k < rows; k++) {
    const line = tradeLine(k, symbols);
    const how = damage.get(k + 2);
    lines.push(how === undefined ? line : damaged(line, how));
  }
  return { text: lines.join('\n') + '\n', lines };
}

export function writeTradeMapping(dir: string): string {
  const p = join(dir, 'trades.map');
  writeFileSync(p, TRADE_MAPPING + '\n');
  return p;
}
