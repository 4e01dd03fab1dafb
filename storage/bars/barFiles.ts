/**
 * A day's bar files (api-contract: Bars), laid out for DuckDB and for the server: `minute`
 * (every stock's 241 one-minute bars, by symbol then label; a row group holds whole stocks,
 * so one stock's bars are one row group's slice) and `daily` (one row per stock with fills).
 * Written through the lake's one Parquet writer (encodeTable) and the one durable write.
 */
import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { FieldDef } from '../../shared/schema.js';
import { writeDurably } from '../../shared/durableFile.js';
import { encodeTable } from '../parquet/writer.js';
import { barFileRelPath } from '../layout.js';
import { MINUTE_BARS, MINUTE_LABEL_TEXTS } from './barLabels.js';
import type { SymbolDayBars } from './symbolDayBars.js';

/** Stocks a minute file's row group holds: a stock's read decodes 16 stocks' bars (~3,900 rows). */
export const MINUTE_GROUP_STOCKS = 16;

const field = (name: string, type: FieldDef['type'], codes?: string): FieldDef => (codes ? { name, type, codes } : { name, type });

/** The minute file's columns: the API's fields but `time` (tradedate and trademin make it) and `vwap` (amount / vol). */
export const MINUTE_FILE_FIELDS: readonly FieldDef[] = [
  field('tradedate', 'string'),
  field('symbol', 'string'),
  field('trademin', 'string'),
  ...['open', 'high', 'low', 'close'].map((n) => field(n, 'double')),
  field('vol', 'int64'),
  field('amount', 'double'),
];

/** Positions in MINUTE_FILE_FIELDS of the numbers the server reads. */
export const MINUTE_VALUE_COLUMNS = { open: 3, high: 4, low: 5, close: 6, vol: 7, amount: 8 } as const;

/** The daily file's columns: the daily bar and the opening auction's facts (volumes in shares, amounts in yuan). */
export const DAILY_FILE_FIELDS: readonly FieldDef[] = [
  field('tradedate', 'string'),
  field('symbol', 'string'),
  ...['open', 'high', 'low', 'close', 'pre_close'].map((n) => field(n, 'double')),
  field('volume', 'int64'),
  field('amount', 'double'),
  field('auc_price', 'double'),
  field('auc_volume', 'int64'),
  field('auc_amount', 'double'),
  field('um_volume', 'double'),
  field('um_side', 'code', 'BS'),
];

export interface StockBars {
  readonly symbol: string;
  readonly bars: SymbolDayBars;
}

export interface WrittenBarFile {
  readonly path: string;
  readonly bytes: number;
  readonly sha256: string;
}

/** Yuan from fen, exact to the fen (the sum was kept in fen). */
export function yuanOfFen(fen: number): number {
  return fen / 100;
}

async function writeBarFile(dataDir: string, rel: string, bytes: Uint8Array): Promise<WrittenBarFile> {
  const path = join(dataDir, rel);
  await mkdir(dirname(path), { recursive: true });
  await writeDurably(path, bytes);
  return { path: rel, bytes: bytes.byteLength, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/** Writes the day's minute file (stocks in symbol order); a stock's first row is its position × 241. */
export async function writeMinuteFile(dataDir: string, tradedate: string, version: number, stocks: readonly StockBars[]): Promise<WrittenBarFile> {
  const rows = stocks.length * MINUTE_BARS;
  const symbols = new Array<string>(rows);
  const labels = new Array<string>(rows);
  const dates = new Array<string>(rows).fill(tradedate);
  const cols = Array.from({ length: 6 }, () => new Float64Array(rows));
  stocks.forEach((s, i) => {
    const at = i * MINUTE_BARS;
    const m = s.bars.minute;
    for (let b = 0; b < MINUTE_BARS; b++) {
      symbols[at + b] = s.symbol;
      labels[at + b] = MINUTE_LABEL_TEXTS[b];
    }
    cols[0].set(m.open, at);
    cols[1].set(m.high, at);
    cols[2].set(m.low, at);
    cols[3].set(m.close, at);
    cols[4].set(m.volume, at);
    for (let b = 0; b < MINUTE_BARS; b++) cols[5][at + b] = yuanOfFen(m.amountFen[b]);
  });
  const bytes = await encodeTable(
    { fields: MINUTE_FILE_FIELDS, rows, columns: [dates, symbols, labels, ...cols] },
    { rowGroupSize: MINUTE_GROUP_STOCKS * MINUTE_BARS },
  );
  return writeBarFile(dataDir, barFileRelPath('minute', tradedate, version), bytes);
}

/** Writes the day's daily file (stocks in symbol order). */
export async function writeDailyFile(dataDir: string, tradedate: string, version: number, stocks: readonly StockBars[]): Promise<WrittenBarFile> {
  const n = stocks.length;
  const cols = Array.from({ length: 12 }, () => new Float64Array(n));
  stocks.forEach((s, i) => {
    const d = s.bars.daily;
    const values = [
      d.open,
      d.high,
      d.low,
      d.close,
      d.preClose,
      d.volume,
      yuanOfFen(d.amountFen),
      d.aucPrice,
      d.aucVolume,
      yuanOfFen(d.aucAmountFen),
      d.umVolume,
      d.umSide === null ? NaN : d.umSide.charCodeAt(0),
    ];
    values.forEach((v, c) => (cols[c][i] = v));
  });
  const bytes = await encodeTable(
    {
      fields: DAILY_FILE_FIELDS,
      rows: n,
      columns: [new Array<string>(n).fill(tradedate), stocks.map((s) => s.symbol), ...cols],
    },
    { rowGroupSize: Math.max(1, n) },
  );
  return writeBarFile(dataDir, barFileRelPath('daily', tradedate, version), bytes);
}
