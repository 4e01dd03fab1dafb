/**
 * The bars' SQL over catalog.db (tables created with the rest in catalog.ts): which days need
 * their bars made, a day's bars recorded in one transaction, and the daily rows read back.
 */
import type { Statement } from 'better-sqlite3';
import type { Db } from '../../shared/sqlite.js';
import { offloadedDays } from '../store/storeCatalog.js';
import type { SymbolDayBars } from './symbolDayBars.js';

/** A day's bar files as listed. */
export interface BarDay {
  readonly tradedate: string;
  readonly version: number;
  readonly minutePath: string | null;
  readonly minuteBytes: number | null;
  readonly minuteSha256: string | null;
  readonly minuteRowGroupSize: number | null;
  readonly dailyPath: string | null;
  readonly dailyBytes: number | null;
  readonly dailySha256: string | null;
  readonly stocks: number;
}

/** A stock-day's daily bar as the catalog keeps it (prices in yuan, volumes in shares, amounts in fen). */
export interface DailyBarRow {
  readonly symbol: string;
  readonly tradedate: string;
  readonly open: number;
  readonly high: number;
  readonly low: number;
  readonly close: number;
  readonly pre_close: number | null;
  readonly volume: number;
  readonly amount_fen: number;
  readonly auc_price: number | null;
  readonly auc_volume: number;
  readonly auc_amount_fen: number;
  readonly um_volume: number;
  readonly um_side: string | null;
  readonly minute_row: number;
}

interface BarDayRow {
  tradedate: string;
  version: number;
  minute_path: string | null;
  minute_bytes: number | null;
  minute_sha256: string | null;
  minute_row_group_size: number | null;
  daily_path: string | null;
  daily_bytes: number | null;
  daily_sha256: string | null;
  stocks: number;
}

function barDayOf(r: BarDayRow): BarDay {
  return {
    tradedate: r.tradedate,
    version: r.version,
    minutePath: r.minute_path,
    minuteBytes: r.minute_bytes,
    minuteSha256: r.minute_sha256,
    minuteRowGroupSize: r.minute_row_group_size,
    dailyPath: r.daily_path,
    dailyBytes: r.daily_bytes,
    dailySha256: r.daily_sha256,
    stocks: r.stocks,
  };
}

const DAILY_COLUMNS =
  'symbol, tradedate, open, high, low, close, pre_close, volume, amount_fen, auc_price, auc_volume, auc_amount_fen, um_volume, um_side, minute_row';

/** Reads of the bars' tables, prepared on first use (a server's catalog may predate them until a writer opens it). */
export class BarCatalogReader {
  private stmts: { day: Statement; range: Statement; rangeAll: Statement; days: Statement } | null = null;

  constructor(private readonly db: Db) {}

  private get q() {
    this.stmts ??= {
      day: this.db.prepare('SELECT * FROM bar_days WHERE tradedate = ?'),
      range: this.db.prepare(`SELECT ${DAILY_COLUMNS} FROM daily_bars WHERE symbol = ? AND tradedate BETWEEN ? AND ? ORDER BY tradedate`),
      rangeAll: this.db.prepare(`SELECT ${DAILY_COLUMNS} FROM daily_bars WHERE tradedate BETWEEN ? AND ? ORDER BY symbol, tradedate`),
      days: this.db.prepare('SELECT * FROM bar_days ORDER BY tradedate'),
    };
    return this.stmts;
  }

  /** Whether the catalog has the bars' tables (a catalog written before bars, opened read only, has not). */
  hasTables(): boolean {
    return this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'bar_days'").get() !== undefined;
  }

  barDay(tradedate: string): BarDay | null {
    const r = this.q.day.get(tradedate) as BarDayRow | undefined;
    return r ? barDayOf(r) : null;
  }

  barDays(): BarDay[] {
    return (this.q.days.all() as BarDayRow[]).map(barDayOf);
  }

  /** A stock's daily rows in [from, to], by date. */
  dailyOf(symbol: string, from: string, to: string): DailyBarRow[] {
    return this.q.range.all(symbol, from, to) as DailyBarRow[];
  }

  /** Every stock's daily rows in [from, to], by symbol then date. */
  dailyOfAll(from: string, to: string): DailyBarRow[] {
    return this.q.rangeAll.all(from, to) as DailyBarRow[];
  }
}

/** A day's bars, made: its files (durable on disk) and its daily rows. */
export interface MadeBarDay {
  readonly tradedate: string;
  /** nextBarVersion's answer when the files were named. */
  readonly version: number;
  readonly minute: { readonly path: string; readonly bytes: number; readonly sha256: string; readonly rowGroupSize: number } | null;
  readonly daily: { readonly path: string; readonly bytes: number; readonly sha256: string } | null;
  readonly rows: readonly DailyBarRow[];
}

/**
 * The days whose bars are due: those whose trade or level-2 files changed since their bars were
 * made (bar_stale, which a trigger on the files table marks in the listing's own transaction,
 * so a crash never loses a mark). A day sealed before bars existed has no mark: doctor names
 * it (daysWithoutBars) and `doctor --rebuild` marks it, so an upgrade never makes years of bars
 * inside an ingestor's seal tick.
 */
export function dueBarDays(db: Db): { readonly tradedate: string; readonly changes: number }[] {
  // An offloaded day's files are in the store, not here: its bars cannot be made from them.
  const offloaded = offloadedDays(db);
  const due = db.prepare('SELECT tradedate, changes FROM bar_stale ORDER BY tradedate').all() as { tradedate: string; changes: number }[];
  return due.filter((d) => !offloaded.has(d.tradedate));
}

/**
 * Sealed trade or level-2 days with neither bars nor a due mark (sealed before bars existed),
 * ascending; not offloaded days (their files are in the store: `doctor --rebuild` cannot read them).
 */
export function daysWithoutBars(db: Db): string[] {
  const offloaded = offloadedDays(db);
  const days = db
    .prepare(
      `SELECT DISTINCT s.tradedate FROM sealed_days s WHERE s.dataset IN ('trade', 'level2')
         AND NOT EXISTS (SELECT 1 FROM bar_days b WHERE b.tradedate = s.tradedate)
         AND NOT EXISTS (SELECT 1 FROM bar_stale t WHERE t.tradedate = s.tradedate)
       ORDER BY s.tradedate`,
    )
    .pluck()
    .all() as string[];
  return days.filter((d) => !offloaded.has(d));
}

/**
 * Lists a day's bars in one transaction: its bar_days row (version + 1), its daily rows in
 * place of the old, and its due mark cleared when no file changed since `changes` was read.
 * Returns the paths of the files it replaced, for the caller to remove.
 */
export function recordBarDay(db: Db, made: MadeBarDay, changesSeen: number, atMs: number): string[] {
  return db.transaction(() => {
    const old = db.prepare('SELECT minute_path, daily_path FROM bar_days WHERE tradedate = ?').get(made.tradedate) as
      { minute_path: string | null; daily_path: string | null } | undefined;
    const version = made.version;
    db.prepare(
      `INSERT OR REPLACE INTO bar_days (tradedate, version, minute_path, minute_bytes, minute_sha256, minute_row_group_size,
        daily_path, daily_bytes, daily_sha256, stocks, made_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      made.tradedate,
      version,
      made.minute?.path ?? null,
      made.minute?.bytes ?? null,
      made.minute?.sha256 ?? null,
      made.minute?.rowGroupSize ?? null,
      made.daily?.path ?? null,
      made.daily?.bytes ?? null,
      made.daily?.sha256 ?? null,
      made.rows.length,
      atMs,
    );
    db.prepare('DELETE FROM daily_bars WHERE tradedate = ?').run(made.tradedate);
    const insert = db.prepare(
      `INSERT INTO daily_bars (${DAILY_COLUMNS}) VALUES (${DAILY_COLUMNS.split(',')
        .map(() => '?')
        .join(', ')})`,
    );
    for (const r of made.rows) {
      insert.run(
        r.symbol,
        r.tradedate,
        r.open,
        r.high,
        r.low,
        r.close,
        r.pre_close,
        r.volume,
        r.amount_fen,
        r.auc_price,
        r.auc_volume,
        r.auc_amount_fen,
        r.um_volume,
        r.um_side,
        r.minute_row,
      );
    }
    db.prepare('DELETE FROM bar_stale WHERE tradedate = ? AND changes <= ?').run(made.tradedate, changesSeen);
    const replaced = [old?.minute_path, old?.daily_path].filter((p): p is string => typeof p === 'string' && p !== made.minute?.path && p !== made.daily?.path);
    return replaced;
  })();
}

/** The version the next made bars of a day take (file names are per version). */
export function nextBarVersion(db: Db, tradedate: string): number {
  const v = db.prepare('SELECT version FROM bar_days WHERE tradedate = ?').pluck().get(tradedate) as number | undefined;
  return (v ?? 0) + 1;
}

/** Marks a day's bars due (repair: its bar files are damaged or missing), as a change of its files would. */
export function markBarsDue(db: Db, tradedate: string): void {
  db.prepare('INSERT INTO bar_stale (tradedate, changes) VALUES (?, 1) ON CONFLICT (tradedate) DO UPDATE SET changes = changes + 1').run(tradedate);
}

/** A stock-day's bars as the catalog keeps its daily row (NaN prices as null); `minuteRow` its first row in the minute file (-1: none). */
export function dailyBarRow(symbol: string, tradedate: string, bars: SymbolDayBars, minuteRow: number): DailyBarRow {
  const d = bars.daily;
  const nullable = (v: number) => (v === v ? v : null);
  return {
    symbol,
    tradedate,
    open: d.open,
    high: d.high,
    low: d.low,
    close: d.close,
    pre_close: nullable(d.preClose),
    volume: d.volume,
    amount_fen: d.amountFen,
    auc_price: nullable(d.aucPrice),
    auc_volume: d.aucVolume,
    auc_amount_fen: d.aucAmountFen,
    um_volume: d.umVolume,
    um_side: d.umSide,
    minute_row: minuteRow,
  };
}
