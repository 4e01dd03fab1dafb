/**
 * A live day's bars (api-contract: Bars): a trading day whose trades are staged and not sealed
 * has no bar files yet, so its bars are made at request time from its staged rows, as the seal
 * will make them (the same symbolDayBars over the same resolved rows), the minute in progress
 * included as it stands: on today, bars run to the one holding the server's "now". A symbol
 * whose files a partial seal has listed already is read from them.
 */
import { beijingDate, beijingDayStartMs } from '../../shared/clock.js';
import { SCHEMAS } from '../../shared/schema.js';
import { dailyBarRow, type DailyBarRow } from '../../storage/bars/barCatalog.js';
import { makeStockBars, readSnapshotFacts } from '../../storage/bars/barKeeper.js';
import { MINUTE_BARS, minuteBarOf } from '../../storage/bars/barLabels.js';
import { foldSnapshots, NO_SNAPSHOT, symbolDayBars, type DaySnapshotFacts, type SymbolDayBars } from '../../storage/bars/symbolDayBars.js';
import { yuanOfFen } from '../../storage/bars/barFiles.js';
import type { CatalogReader } from '../../storage/catalog.js';
import { DamagedFileError } from '../../storage/damagedFile.js';
import type { LiveStaging, LiveSymbolDay } from '../reading/liveStaging.js';
import type { MinuteSlice } from './barValues.js';

/** One stock-day of bars, sealed or live, as the bar interfaces page them. */
export interface BarStockDay {
  readonly row: DailyBarRow;
  readonly live: boolean;
  /** One-minute bars answered: 241, or on a live today those up to the one in progress. */
  readonly minuteBars: number;
  slice(): Promise<MinuteSlice>;
}

const TRADE = SCHEMAS.trade.valueFields.map((f) => f.name);
const LEVEL2 = SCHEMAS.level2.valueFields.map((f) => f.name);
const col = (names: readonly string[], name: string) => names.indexOf(name);
const T = { id: col(TRADE, 'trade_id'), price: col(TRADE, 'price'), volume: col(TRADE, 'volume'), code: col(TRADE, 'trade_code') };
const L = {
  pre: col(LEVEL2, 'pre_close'),
  bid1: col(LEVEL2, 'bid1'),
  ask1: col(LEVEL2, 'ask1'),
  bidVol1: col(LEVEL2, 'bid_vol1'),
  askVol1: col(LEVEL2, 'ask_vol1'),
};

export class LiveBars {
  constructor(
    private readonly dataDir: string,
    private readonly catalog: CatalogReader,
    private readonly live: LiveStaging,
  ) {}

  /** The live trade days of [from, to]: staged here, not sealed. */
  days(from: string, to: string): string[] {
    return this.live.stagedDays('trade').filter((d) => d >= from && d <= to && !this.catalog.isDaySealed('trade', d));
  }

  /** The stock-days with fills of a live day (of `symbols`, or every stock staged), by symbol. */
  async stockDays(tradedate: string, symbols: readonly string[] | null, nowMs: number): Promise<BarStockDay[]> {
    const wanted = symbols ?? this.live.stagedSymbols('trade', tradedate) ?? [];
    const trades = this.live.symbolDays('trade', tradedate, wanted) ?? new Map<string, LiveSymbolDay>();
    const snapshots = this.live.symbolDays('level2', tradedate, wanted);
    const visible = tradedate === beijingDate(nowMs) ? Math.min(MINUTE_BARS, minuteBarOf(nowMs - beijingDayStartMs(tradedate)) + 1) : MINUTE_BARS;
    const out: BarStockDay[] = [];
    for (const symbol of [...wanted].sort()) {
      const bars = await this.symbolBars(tradedate, symbol, trades.get(symbol), snapshots?.get(symbol));
      if (bars === null) continue;
      out.push(liveStockDay(symbol, tradedate, bars, visible));
    }
    return out;
  }

  private async symbolBars(tradedate: string, symbol: string, staged: LiveSymbolDay | undefined, l2: LiveSymbolDay | undefined): Promise<SymbolDayBars | null> {
    const level2File = this.catalog.file('level2', tradedate, symbol);
    const tradeFile = this.catalog.file('trade', tradedate, symbol);
    if (tradeFile !== null) {
      // Listed by a partial seal: its staged rows are gone, its file holds them.
      const made = await makeStockBars({ dataDir: this.dataDir, trade: tradeFile, level2: level2File });
      if (made.kind === 'damaged') throw new DamagedFileError(made.path, made.reason);
      return made.bars;
    }
    if (!staged || staged.rows === 0) return null;
    let facts: DaySnapshotFacts = NO_SNAPSHOT;
    if (l2 && l2.rows > 0) {
      const v = l2.values;
      facts = foldSnapshots(NO_SNAPSHOT, {
        timesMs: l2.timesMs,
        preClose: v[L.pre],
        bid1: v[L.bid1],
        ask1: v[L.ask1],
        bidVol1: v[L.bidVol1],
        askVol1: v[L.askVol1],
      }).facts;
    } else if (level2File !== null) facts = await readSnapshotFacts(this.dataDir, level2File);
    const v = staged.values;
    return symbolDayBars({ rows: staged.rows, timesMs: staged.timesMs, ids: v[T.id], prices: v[T.price], volumes: v[T.volume], codes: v[T.code] }, facts);
  }
}

function liveStockDay(symbol: string, tradedate: string, bars: SymbolDayBars, visible: number): BarStockDay {
  const m = bars.minute;
  const amount = Float64Array.from(m.amountFen, yuanOfFen);
  return {
    row: dailyBarRow(symbol, tradedate, bars, -1),
    live: true,
    minuteBars: visible,
    slice: () => Promise.resolve({ open: m.open, high: m.high, low: m.low, close: m.close, vol: m.volume, amount, at: 0 }),
  };
}
