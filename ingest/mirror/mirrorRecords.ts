/**
 * What a mirror has finished, kept in ingest.db beside staging so that a killed mirror run
 * continues where it stopped without asking the upstream again (api-contract: Import and
 * mirror). A symbol-day is recorded once its rows are whole and durable in the spool (or the
 * upstream said it has none); a dataset-day once it is sealed here and its spool removed.
 */
import type { Db } from '../../shared/sqlite.js';
import type { Dataset } from '../../shared/schema.js';

export const MIRROR_SCHEMA = `
CREATE TABLE IF NOT EXISTS mirror_symbol_days (
  dataset   TEXT NOT NULL,
  tradedate TEXT NOT NULL,
  symbol    TEXT NOT NULL,
  via       TEXT NOT NULL,   -- parquet | json | nodata
  rows      INTEGER NOT NULL,
  spool     TEXT,            -- the spooled file, relative to the data directory; null for nodata
  upstream  TEXT NOT NULL,
  PRIMARY KEY (dataset, tradedate, symbol)
);
CREATE TABLE IF NOT EXISTS mirror_days (
  dataset   TEXT NOT NULL,
  tradedate TEXT NOT NULL,
  symbols   INTEGER NOT NULL,
  upstream  TEXT NOT NULL,
  PRIMARY KEY (dataset, tradedate)
);
`;

export type FetchedVia = 'parquet' | 'json' | 'nodata';

export interface FetchedSymbolDay {
  readonly dataset: Dataset;
  readonly tradedate: string;
  readonly symbol: string;
  readonly via: FetchedVia;
  readonly rows: number;
  readonly spool: string | null;
}

export class MirrorRecords {
  private readonly getSymbolDay;
  private readonly putSymbolDay;
  private readonly getDay;
  private readonly putDay;
  private readonly dropSymbolDays;
  private readonly db: Db;

  constructor(
    db: Db,
    private readonly upstream: string,
  ) {
    this.db = db;
    db.exec(MIRROR_SCHEMA);
    this.getSymbolDay = db.prepare('SELECT via, rows, spool FROM mirror_symbol_days WHERE dataset = ? AND tradedate = ? AND symbol = ?');
    this.putSymbolDay = db.prepare(
      'INSERT OR REPLACE INTO mirror_symbol_days (dataset, tradedate, symbol, via, rows, spool, upstream) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.getDay = db.prepare('SELECT symbols FROM mirror_days WHERE dataset = ? AND tradedate = ?');
    this.putDay = db.prepare('INSERT OR REPLACE INTO mirror_days (dataset, tradedate, symbols, upstream) VALUES (?, ?, ?, ?)');
    this.dropSymbolDays = db.prepare('UPDATE mirror_symbol_days SET spool = NULL WHERE dataset = ? AND tradedate = ?');
  }

  symbolDay(dataset: Dataset, tradedate: string, symbol: string): FetchedSymbolDay | null {
    const r = this.getSymbolDay.get(dataset, tradedate, symbol) as { via: FetchedVia; rows: number; spool: string | null } | undefined;
    return r === undefined ? null : { dataset, tradedate, symbol, ...r };
  }

  recordSymbolDay(s: FetchedSymbolDay): void {
    this.putSymbolDay.run(s.dataset, s.tradedate, s.symbol, s.via, s.rows, s.spool, this.upstream);
  }

  isDayDone(dataset: Dataset, tradedate: string): boolean {
    return this.getDay.get(dataset, tradedate) !== undefined;
  }

  /** The day is sealed here from its spool: the spool files are no longer needed. */
  recordDayDone(dataset: Dataset, tradedate: string, symbols: number): void {
    this.db.transaction(() => {
      this.putDay.run(dataset, tradedate, symbols, this.upstream);
      this.dropSymbolDays.run(dataset, tradedate);
    })();
  }
}
