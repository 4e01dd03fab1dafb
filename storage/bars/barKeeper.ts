/**
 * Makes the bars of the days whose trade or level-2 files changed (api-contract: Bars): after
 * every seal, import, mirror, restate and repair, and at an ingestor's start, so a crash between
 * a day's listing and its bars only delays them. A day's bars come from its listed files, each
 * read once its SHA-256 is the catalog's: the trades give the fills, the level-2 snapshots the
 * pre_close and the opening auction's unmatched volume. The files are written durably, then
 * listed with the daily rows in one catalog transaction; the version they replaced is removed.
 */
import { createHash } from 'node:crypto';
import { readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Db } from '../../shared/sqlite.js';
import { SCHEMAS } from '../../shared/schema.js';
import { parseLevel2Time } from '../../shared/timeFormat.js';
import { CatalogReader, type CatalogFile } from '../catalog.js';
import { DamagedFileError } from '../damagedFile.js';
import { bufferSource } from '../parquet/byteSource.js';
import { readFooter } from '../parquet/metadata.js';
import { readRowGroups, type DecodedColumn } from '../parquet/reader.js';
import { MINUTE_BARS } from './barLabels.js';
import { dailyBarRow, dueBarDays, nextBarVersion, recordBarDay } from './barCatalog.js';
import { MINUTE_GROUP_STOCKS, writeDailyFile, writeMinuteFile, type StockBars } from './barFiles.js';
import { foldSnapshots, NO_SNAPSHOT, symbolDayBars, type DayFills, type DaySnapshotFacts, type SymbolDayBars } from './symbolDayBars.js';
import { Limiter } from '../../shared/limiter.js';

export interface BarKeeping {
  readonly dataDir: string;
  readonly catalog: Db;
  readonly nowMs: () => number;
  /** Asked between days: true ends the pass (the rest stay due). */
  readonly stop?: () => boolean;
  /** Where a stock-day's bars are made: this thread (makeStockBars) or a worker pool (barPool.ts). */
  readonly maker?: StockBarsMaker;
  /** Stock-days made at once (the pool's size). */
  readonly concurrency?: number;
}

/** One stock-day's files, as the catalog lists them. */
export interface StockBarsJob {
  readonly dataDir: string;
  readonly trade: Pick<CatalogFile, 'path' | 'sha256' | 'rows'>;
  readonly level2: Pick<CatalogFile, 'path' | 'sha256'> | null;
}

/** A stock-day's bars (null: no fill), or why its files could not be read (a damaged file's words). */
export type StockBarsOutcome =
  { readonly kind: 'bars'; readonly bars: SymbolDayBars | null } | { readonly kind: 'damaged'; readonly path: string; readonly reason: string };

export type StockBarsMaker = (job: StockBarsJob) => Promise<StockBarsOutcome>;

/** A stock-day's bars from its listed files, on this thread. */
export async function makeStockBars(job: StockBarsJob): Promise<StockBarsOutcome> {
  try {
    const fills = await readFills(job.dataDir, job.trade);
    const facts = job.level2 ? await readSnapshotFacts(job.dataDir, job.level2) : NO_SNAPSHOT;
    return { kind: 'bars', bars: symbolDayBars(fills, facts) };
  } catch (e) {
    if (e instanceof DamagedFileError) return { kind: 'damaged', path: e.path, reason: e.message };
    throw e;
  }
}

export interface BarsKept {
  /** Days whose bars were made. */
  readonly days: number;
  /** Stock-days with bars among them. */
  readonly stocks: number;
  readonly bytes: number;
  /** Days left due because a file they read is not what the catalog says (doctor names it). */
  readonly failed: readonly { readonly tradedate: string; readonly reason: string }[];
}

/** Makes the bars of every due day, oldest first. A disk that takes no more bytes throws (the days stay due). */
export async function keepBars(k: BarKeeping): Promise<BarsKept> {
  let days = 0;
  let stocks = 0;
  let bytes = 0;
  const failed: { tradedate: string; reason: string }[] = [];
  for (const due of dueBarDays(k.catalog)) {
    if (k.stop?.()) break;
    try {
      const made = await makeDayBars(k, due.tradedate, due.changes);
      days++;
      stocks += made.stocks;
      bytes += made.bytes;
    } catch (e) {
      if (!(e instanceof DamagedFileError)) throw e;
      failed.push({ tradedate: due.tradedate, reason: e.message });
    }
  }
  return { days, stocks, bytes, failed };
}

/** Makes one day's bars from its listed files and lists them. */
export async function makeDayBars(k: BarKeeping, tradedate: string, changesSeen: number): Promise<{ readonly stocks: number; readonly bytes: number }> {
  const catalog = new CatalogReader(k.catalog);
  const trades = catalog.filesOfDay('trade', tradedate);
  const snapshots = new Map(catalog.filesOfDay('level2', tradedate).map((f) => [f.symbol, f]));
  const make = k.maker ?? makeStockBars;
  const limit = new Limiter(Math.max(1, k.concurrency ?? 1));
  const outcomes = await Promise.all(
    trades.map((file) => limit.run(() => make({ dataDir: k.dataDir, trade: file, level2: snapshots.get(file.symbol) ?? null }))),
  );
  const stocks: StockBars[] = [];
  outcomes.forEach((o, i) => {
    if (o.kind === 'damaged') throw new DamagedFileError(o.path, o.reason);
    if (o.bars) stocks.push({ symbol: trades[i].symbol, bars: o.bars });
  });
  const version = nextBarVersion(k.catalog, tradedate);
  const minute = stocks.length > 0 ? await writeMinuteFile(k.dataDir, tradedate, version, stocks) : null;
  const daily = stocks.length > 0 ? await writeDailyFile(k.dataDir, tradedate, version, stocks) : null;
  const rows = stocks.map((s, i) => dailyBarRow(s.symbol, tradedate, s.bars, i * MINUTE_BARS));
  const replaced = recordBarDay(
    k.catalog,
    { tradedate, version, minute: minute && { ...minute, rowGroupSize: MINUTE_GROUP_STOCKS * MINUTE_BARS }, daily, rows },
    changesSeen,
    k.nowMs(),
  );
  // The catalog names the new files now; a server that read the old listing a moment ago asks again.
  await Promise.all(replaced.map((p) => unlink(join(k.dataDir, p)).catch(() => undefined)));
  return { stocks: stocks.length, bytes: (minute?.bytes ?? 0) + (daily?.bytes ?? 0) };
}

/** A listed file's bytes, once their SHA-256 is the catalog's. */
async function listedBytes(dataDir: string, file: Pick<CatalogFile, 'path' | 'sha256'>): Promise<Buffer> {
  const path = join(dataDir, file.path);
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new DamagedFileError(path, 'the file is missing');
    throw e;
  }
  if (createHash('sha256').update(bytes).digest('hex') !== file.sha256) throw new DamagedFileError(path, 'its SHA-256 is not the catalog’s');
  return bytes;
}

const TRADE = SCHEMAS.trade.position;
const TRADE_COLUMNS = ['time', 'trade_id', 'price', 'volume', 'trade_code'].map((n) => TRADE.get(n)!);
const LEVEL2 = SCHEMAS.level2.position;
const LEVEL2_COLUMNS = ['time', 'pre_close', 'bid1', 'ask1', 'bid_vol1', 'ask_vol1'].map((n) => LEVEL2.get(n)!);

function numbers(c: DecodedColumn | undefined): Float64Array {
  if (c?.kind !== 'number') throw new Error('expected a numeric column');
  return c.values;
}

function texts(c: DecodedColumn | undefined): readonly (string | null)[] {
  if (c === undefined || c.kind === 'number') throw new Error('expected a string column');
  return c.values;
}

function timesOf(path: string, c: DecodedColumn | undefined): Int32Array {
  const t = texts(c);
  const out = new Int32Array(t.length);
  for (let i = 0; i < t.length; i++) {
    const ms = parseLevel2Time(t[i]);
    if (ms === null) throw new DamagedFileError(path, `row ${i} has the time ${String(t[i])}`);
    out[i] = ms;
  }
  return out;
}

/** A trade file's fills columns, every row group. */
async function readFills(dataDir: string, file: Pick<CatalogFile, 'path' | 'sha256' | 'rows'>): Promise<DayFills> {
  const bytes = await listedBytes(dataDir, file);
  const path = join(dataDir, file.path);
  const source = bufferSource(bytes, path);
  const footer = await readFooter(source, bytes.byteLength);
  const groups = await readRowGroups(
    source,
    footer,
    footer.rowGroups.map((_, g) => g),
    TRADE_COLUMNS,
    path,
  );
  const [time, id, price, volume, code] = TRADE_COLUMNS;
  const cat = <T>(parts: readonly ArrayLike<T>[], make: (n: number) => { [i: number]: T; length: number }) => {
    let n = 0;
    for (const p of parts) n += p.length;
    const out = make(n);
    let at = 0;
    for (const p of parts) for (let i = 0; i < p.length; i++) out[at++] = p[i];
    return out;
  };
  return {
    rows: file.rows,
    timesMs: cat(
      groups.map((g) => timesOf(path, g.get(time))),
      (n) => new Int32Array(n),
    ) as Int32Array,
    ids: cat(
      groups.map((g) => numbers(g.get(id))),
      (n) => new Float64Array(n),
    ) as Float64Array,
    prices: cat(
      groups.map((g) => numbers(g.get(price))),
      (n) => new Float64Array(n),
    ) as Float64Array,
    volumes: cat(
      groups.map((g) => numbers(g.get(volume))),
      (n) => new Float64Array(n),
    ) as Float64Array,
    codes: cat(
      groups.map((g) => texts(g.get(code))),
      (n) => new Array<string | null>(n),
    ) as (string | null)[],
  };
}

export async function readSnapshotFacts(dataDir: string, file: Pick<CatalogFile, 'path' | 'sha256'>): Promise<DaySnapshotFacts> {
  const bytes = await listedBytes(dataDir, file);
  const path = join(dataDir, file.path);
  const source = bufferSource(bytes, path);
  const footer = await readFooter(source, bytes.byteLength);
  const [time, preClose, bid1, ask1, bidVol1, askVol1] = LEVEL2_COLUMNS;
  let facts = NO_SNAPSHOT;
  for (let g = 0; g < footer.rowGroups.length; g++) {
    const [cols] = await readRowGroups(source, footer, [g], LEVEL2_COLUMNS, path);
    const folded = foldSnapshots(facts, {
      timesMs: timesOf(path, cols!.get(time)),
      preClose: numbers(cols!.get(preClose)),
      bid1: numbers(cols!.get(bid1)),
      ask1: numbers(cols!.get(ask1)),
      bidVol1: numbers(cols!.get(bidVol1)),
      askVol1: numbers(cols!.get(askVol1)),
    });
    facts = folded.facts;
    if (folded.done) break;
  }
  return facts;
}
