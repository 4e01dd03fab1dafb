/**
 * Bars computed independently of tickvault (api-contract: Bars), by DuckDB SQL over the sealed
 * trade and level-2 files, following the contract's words: fills only (trade_code F), labels
 * at the bar's end (the auction in 0930, 11:30:00.000 in 1130, the closing match in 1500),
 * first and last fill by time then id, amounts summed in fen, bars without fills carrying the
 * last price (pre_close before the first fill).
 */
import { join } from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import { duckRows, sqlString } from './duckdb.js';
import { runCli } from './cli.js';
import { tempDir } from './tempDir.js';
import { REPLAY_NOW } from './server.js';
import { readCatalog } from './catalog.js';

export interface RefMinuteBar {
  readonly symbol: string;
  readonly tradedate: string;
  /** HHMM */
  readonly trademin: string;
  readonly open: number | null;
  readonly high: number | null;
  readonly low: number | null;
  readonly close: number | null;
  readonly vol: number;
  readonly fen: number;
}

export interface RefDaily {
  readonly symbol: string;
  readonly tradedate: string;
  readonly open: number;
  readonly high: number;
  readonly low: number;
  readonly close: number;
  readonly pre_close: number | null;
  readonly vol: number;
  readonly fen: number;
  readonly auc_price: number | null;
  readonly auc_vol: number;
  readonly auc_fen: number;
  readonly bid1: number | null;
  readonly ask1: number | null;
  readonly bid_vol1: number | null;
  readonly ask_vol1: number | null;
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** The current files of a dataset-day, as the catalog lists them (a restated day has versions beside them). */
function currentFiles(dataDir: string, dataset: 'trade' | 'level2', date: string): string {
  const paths = readCatalog(dataDir, (c) => c.filesOfDay(dataset, date).map((f) => sqlString(join(dataDir, f.path))), []);
  return `[${paths.join(', ')}]`;
}

const FILLS = (dataDir: string, date: string) => `
  fills AS (
    SELECT symbol, tradedate, trade_id, price, volume,
      CAST(substr(time, 1, 2) AS BIGINT) * 3600000 + CAST(substr(time, 3, 2) AS BIGINT) * 60000
        + CAST(substr(time, 5, 2) AS BIGINT) * 1000 + CAST(substr(time, 7, 3) AS BIGINT) AS ms
    FROM read_parquet(${currentFiles(dataDir, 'trade', date)})
    WHERE trade_code = 'F'),
  prices AS (
    SELECT symbol, arg_min(pre_close, time) FILTER (WHERE pre_close IS NOT NULL) AS pre_close
    FROM read_parquet(${currentFiles(dataDir, 'level2', date)}) GROUP BY symbol)`;

/** Every 1m bar of every stock with fills on `date`, by symbol then label. */
export async function refMinuteBars(dataDir: string, date: string, period = 1): Promise<RefMinuteBar[]> {
  // N-minute bars labelled at their end; the 0930 auction bar folds into the first (1m keeps it).
  const fold = (m: string) =>
    period === 1
      ? m
      : `CASE WHEN ${m} <= 690 THEN 570 + greatest(1, ceil((${m} - 570) / ${period}))::INT * ${period} ELSE 780 + ceil((${m} - 780) / ${period})::INT * ${period} END`;
  const labels =
    period === 1
      ? 'SELECT unnest(range(570, 691)) AS label UNION ALL SELECT unnest(range(781, 901))'
      : `SELECT unnest(range(${570 + period}, 691, ${period})) AS label UNION ALL SELECT unnest(range(${780 + period}, 901, ${period}))`;
  const rows = await duckRows(`
    WITH ${FILLS(dataDir, date)},
    labelled AS (
      SELECT *, ${fold(`CASE WHEN ms < 34200000 THEN 570 WHEN ms < 41400000 THEN ms // 60000 + 1 WHEN ms < 46800000 THEN 690
                     WHEN ms < 54000000 THEN ms // 60000 + 1 ELSE 900 END`)} AS label
      FROM fills),
    per AS (
      SELECT symbol, label, arg_min(price, [ms, trade_id]) AS open, max(price) AS high, min(price) AS low,
        arg_max(price, [ms, trade_id]) AS close, sum(volume) AS vol, sum(round(price * volume * 100)) AS fen
      FROM labelled GROUP BY symbol, label),
    labels AS (${labels}),
    grid AS (SELECT s.symbol, l.label FROM (SELECT DISTINCT symbol FROM fills) s CROSS JOIN labels l),
    joined AS (
      SELECT grid.symbol, grid.label, per.open, per.high, per.low, per.close, coalesce(per.vol, 0) AS vol, coalesce(per.fen, 0) AS fen,
        last_value(per.close IGNORE NULLS) OVER (PARTITION BY grid.symbol ORDER BY grid.label ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS last_close
      FROM grid LEFT JOIN per USING (symbol, label))
    SELECT j.symbol, j.label, coalesce(j.open, j.last_close, p.pre_close) AS open, coalesce(j.high, j.last_close, p.pre_close) AS high,
      coalesce(j.low, j.last_close, p.pre_close) AS low, coalesce(j.last_close, p.pre_close) AS close, j.vol, j.fen
    FROM joined j LEFT JOIN prices p USING (symbol) ORDER BY j.symbol, j.label`);
  return rows.map((r) => {
    const m = Number(r.label);
    return {
      symbol: String(r.symbol),
      tradedate: date,
      trademin: `${String(Math.floor(m / 60)).padStart(2, '0')}${String(m % 60).padStart(2, '0')}`,
      open: num(r.open),
      high: num(r.high),
      low: num(r.low),
      close: num(r.close),
      vol: Number(r.vol),
      fen: Number(r.fen),
    };
  });
}

/** The daily bar and auction facts of every stock with fills on `date`, by symbol. */
export async function refDaily(dataDir: string, date: string): Promise<RefDaily[]> {
  const rows = await duckRows(`
    WITH ${FILLS(dataDir, date)},
    day AS (
      SELECT symbol, arg_min(price, [ms, trade_id]) AS open, max(price) AS high, min(price) AS low, arg_max(price, [ms, trade_id]) AS close,
        sum(volume) AS vol, sum(round(price * volume * 100)) AS fen,
        arg_max(price, [ms, trade_id]) FILTER (WHERE ms < 34200000) AS auc_price,
        coalesce(sum(volume) FILTER (WHERE ms < 34200000), 0) AS auc_vol,
        coalesce(sum(round(price * volume * 100)) FILTER (WHERE ms < 34200000), 0) AS auc_fen
      FROM fills GROUP BY symbol),
    opening AS (
      SELECT symbol, arg_min(bid1, time) AS bid1, arg_min(ask1, time) AS ask1, arg_min(bid_vol1, time) AS bid_vol1, arg_min(ask_vol1, time) AS ask_vol1
      FROM read_parquet(${currentFiles(dataDir, 'level2', date)}) WHERE time >= '092500000' GROUP BY symbol)
    SELECT d.*, p.pre_close, o.bid1, o.ask1, o.bid_vol1, o.ask_vol1
    FROM day d LEFT JOIN prices p USING (symbol) LEFT JOIN opening o USING (symbol) ORDER BY d.symbol`);
  return rows.map((r) => ({
    symbol: String(r.symbol),
    tradedate: date,
    open: Number(r.open),
    high: Number(r.high),
    low: Number(r.low),
    close: Number(r.close),
    pre_close: num(r.pre_close),
    vol: Number(r.vol),
    fen: Number(r.fen),
    auc_price: num(r.auc_price),
    auc_vol: Number(r.auc_vol),
    auc_fen: Number(r.auc_fen),
    bid1: num(r.bid1),
    ask1: num(r.ask1),
    bid_vol1: num(r.bid_vol1),
    ask_vol1: num(r.ask_vol1),
  }));
}

/** The stock whose fills the bar lake drops on its second day: a suspended stock-day (trades file of cancellations only). */
export const SUSPENDED = { symbol: '600000.SH', tradedate: '20250103' } as const;
/** The bar lake's days: 20250102, 20250103, 20250106 (a week boundary), 20250107. */
export const BAR_DAYS = ['20250102', '20250103', '20250106', '20250107'] as const;

let lake: Promise<{ dataDir: string; feedFile: string }> | null = null;

/**
 * A replayed lake with trades: 4 trading days from 20250102, 4 stocks, ticks 1, with every
 * fill of SUSPENDED removed from the feed (its cancellations stay). Cached per test process.
 */
export function barLake(): Promise<{ dataDir: string; feedFile: string }> {
  lake ??= (async () => {
    const dir = tempDir('tickvault-bars-');
    const raw = join(dir, 'raw.jsonl');
    const feedFile = join(dir, 'feed.jsonl');
    const dataDir = join(dir, 'data');
    const env = { TICKVAULT_NOW: REPLAY_NOW };
    const gen = await runCli(['generate', '--out', raw, '--from', '20250102', '--days', '4', '--stocks', '4', '--indexes', '1', '--ticks', '1'], { env });
    if (gen.code !== 0) throw new Error(`generate failed: ${gen.stderr}`);
    const drop = `"kind":"trade","symbol":"${SUSPENDED.symbol}","tradedate":"${SUSPENDED.tradedate}"`;
    const kept = readFileSync(raw, 'utf8')
      .split('\n')
      .filter((l) => !(l.startsWith(`{${drop}`) && l.includes('"trade_code":"F"')));
    writeFileSync(feedFile, kept.join('\n'));
    const rep = await runCli(['replay', feedFile, '--data-dir', dataDir], { env });
    if (rep.code !== 0) throw new Error(`replay failed: ${rep.stderr}`);
    return { dataDir, feedFile };
  })();
  return lake;
}
