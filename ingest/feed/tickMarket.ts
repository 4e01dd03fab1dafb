/**
 * The tick-by-tick market of one stock-day: the orders (逐笔委托) and trades (逐笔成交) behind
 * the generator's level-2 snapshots. It does not decide prices or volumes: each snapshot
 * hands it the shares it traded and its price, and the market makes them out of orders, so
 * that the trades up to each snapshot sum exactly to its cumulative volume and amount.
 *
 * Per snapshot at time T (previous snapshot of the symbol at P) every event falls in
 * (P, T], never before the start of T's phase. The events are sorted by time (orders before
 * trades at the same ms) and numbered then, so that ids rise with time.
 *
 * - Call auction (T < 09:25): limit and market orders collect; before 09:20 some are
 *   cancelled. The first snapshot at or after 09:25 carries the auction match: trades at
 *   09:25:00.000 with bs_flag N, best-priced orders first, market orders last.
 * - Closing call auction (14:57 ≤ T < 15:00): limit orders collect, nothing trades, nothing
 *   is cancelled. The first snapshot at or after 15:00 carries the closing match, by the same
 *   code as the opening one: trades at 15:00:00.000 with bs_flag N at the snapshot's close,
 *   the continuous book's resting orders taking part beside the auction's.
 * - Continuous: the traded shares are split into aggressor orders, placed at their trade's
 *   time; each takes the resting orders at the price in time priority, and a passive order
 *   placed earlier in the window covers what the book lacks. Remainders rest; orders away
 *   from the price rest and never trade; resting orders from earlier windows get cancelled
 *   (Shanghai/Beijing: a `D` order; Shenzhen: a `C` trade record).
 *
 * Every random number comes from the market's own generator, never the snapshot's, so the
 * snapshot lines are the same whether or not ticks are generated.
 */
import { formatLevel2Time } from '../../shared/timeFormat.js';
import { AUCTION_CANCEL_END, AUCTION_END, CLOSE_AUCTION_START, MARKET_CLOSE, phaseStart } from './tradingHours.js';

export interface TickMarketOptions {
  readonly symbol: string;
  readonly date: string;
  readonly preCloseCents: number;
  /** 1 = the default count of trades and orders, 2 ≈ twice as many; see runsFor. */
  readonly scale: number;
  /** Probability, per good line, of also emitting a bad line or a corrected duplicate. */
  readonly faults: number;
  readonly rnd: () => number;
  /**
   * Rows instead of lines: each order and trade goes to the sink as its values in schema
   * order (api-contract: Trades and orders; codes as character codes, NaN = null), with no text made, and
   * `linesUpTo` returns nothing. For generating straight into staging (the demo); no faults.
   */
  readonly rows?: TickRowSink;
}

/** Where a market's rows go when it writes no lines: values reused between calls. */
export interface TickRowSink {
  order(symbol: string, date: string, timeMs: number, values: Float64Array): void;
  trade(symbol: string, date: string, timeMs: number, values: Float64Array): void;
}

type Side = 'B' | 'S';

interface Order {
  /** 0 until the order's line is written. */
  id: number;
  /** The exchange's original number (Shanghai/Beijing), given when written; a deletion carries the deleted order's. */
  no: number | null;
  /** A deletion's order. */
  readonly deletes: Order | null;
  readonly side: Side;
  readonly type: 'L' | 'M' | 'U' | 'D';
  /** As written: null for market and best-of-own-side orders. */
  readonly priceCents: number | null;
  /** Where the order rests and matches (a best-of-own-side order takes its side's price). */
  readonly bookCents: number;
  readonly volume: number;
  /** Neither traded nor cancelled yet. */
  remaining: number;
  readonly timeMs: number;
}

interface Trade {
  id: number;
  readonly timeMs: number;
  /** 0 for a cancellation record. */
  readonly priceCents: number;
  readonly volume: number;
  readonly flag: 'B' | 'S' | 'N' | null;
  readonly code: 'F' | 'C';
  readonly buy: Order | null;
  readonly sell: Order | null;
}

interface Event {
  readonly timeMs: number;
  readonly seq: number;
  readonly order: Order | null;
  readonly trade: Trade | null;
}

/** Resting orders at one price of one side, in time priority; filled or cancelled ones are skipped lazily. */
interface Queue {
  readonly orders: Order[];
  head: number;
}

// Mean counts per snapshot window at scale 1, tuned so that a stock-day has ~5,000 trades
// and ~1.5–2× as many orders (measured in the tests).
const AUCTION_ORDERS = 0.8;
const AUCTION_CANCELS = 0.05;
const RESTING_ORDERS = 0.12;
const CANCELS = 0.1;
/** Shares of each side's opening market orders: above the largest auction match (59 lots), so the match always finds its orders. */
const OPENING_MARKET_SHARES = 6000;
const MARKET_ORDER_SHARE = 0.07;
const SZ_BEST_OWN_SHARE = 0.1;

const expo = (rnd: () => number) => -Math.log(1 - rnd());

/** Poisson draw (Knuth): the means here are small. */
function poisson(mean: number, rnd: () => number): number {
  if (mean <= 0) return 0;
  const limit = Math.exp(-mean);
  let k = 0;
  for (let p = rnd(); p > limit; p *= rnd()) k++;
  return k;
}

/** An order size in lots of 100 shares: mostly a few lots, now and then a block of 20–99. */
function sizeLots(rnd: () => number): number {
  return rnd() < 0.04 ? 20 + Math.floor(rnd() * 80) : 1 + Math.floor(expo(rnd) * 3);
}

/** `lots` split into `n` parts of at least one lot, skewed: many small parts and a few large ones. */
function splitLots(lots: number, n: number, rnd: () => number): number[] {
  if (n === 1) return [lots];
  const weights = Array.from({ length: n }, () => expo(rnd) ** 2);
  const total = weights.reduce((a, b) => a + b, 0);
  const rest = lots - n;
  const parts = weights.map((w) => 1 + Math.floor((rest * w) / total));
  let left = lots - parts.reduce((a, b) => a + b, 0);
  for (let i = 0; left > 0; i = (i + 1) % n, left--) parts[i]++;
  return parts;
}

const num = (n: number | null) => (n === null ? 'null' : String(n));
const yuan = (cents: number | null) => (cents === null ? null : Math.round(cents) / 100);

export class TickMarket {
  private readonly sym: string;
  private readonly date: string;
  private readonly scale: number;
  private readonly faults: number;
  private readonly rnd: () => number;
  /** Shanghai and Beijing report order numbers, order amounts and deletions as orders; Shenzhen cancels by trade records. */
  private readonly shenzhen: boolean;
  private readonly limitUp: number;
  private readonly limitDown: number;
  private nextOrderId = 1;
  private nextTradeId = 1;
  /** A separate exchange-wide counter, so order_no never equals order_id. */
  private nextOrderNo: number;
  private lastMs = -1;
  private lastCents: number;
  private opened = false;
  private closed = false;
  private readonly auctionOrders: Order[] = [];
  private readonly book: [Map<number, Queue>, Map<number, Queue>] = [new Map(), new Map()];
  /** Every order put in the book, for picking cancellations (filled ones are dropped when met). */
  private readonly resting: Order[] = [];
  private events: Event[] = [];
  /** Orders of the current window that rest once it is over (the book only holds earlier windows' orders). */
  private pending: Order[] = [];
  private readonly lines: string[] = [];
  private readonly parts: string[] = [];
  private readonly rows: TickRowSink | null;
  // order: order_id, price, volume, amount, side, order_type, order_no
  private readonly orderValues = new Float64Array(7);
  // trade: trade_id, price, volume, amount, bs_flag, trade_code, buy_order_id, sell_order_id
  private readonly tradeValues = new Float64Array(8);

  constructor(opts: TickMarketOptions) {
    this.sym = opts.symbol;
    this.date = opts.date;
    this.scale = opts.scale;
    this.faults = opts.faults;
    this.rnd = opts.rnd;
    this.rows = opts.rows ?? null;
    if (this.rows && this.faults > 0) throw new RangeError('a tick market writing rows makes no faults');
    this.shenzhen = opts.symbol.endsWith('.SZ');
    this.limitUp = Math.round(opts.preCloseCents * 1.1);
    this.limitDown = Math.round(opts.preCloseCents * 0.9);
    this.lastCents = opts.preCloseCents;
    this.nextOrderNo = 1_000_000 + Math.floor(this.rnd() * 8_000_000);
  }

  /**
   * The order and trade lines of the snapshot at `timeMs`, which traded `traded` shares at
   * `priceCents` (its close; in a call auction its indicative match price, 0 traded); they
   * come before the snapshot's own line. The array is reused.
   */
  linesUpTo(timeMs: number, priceCents: number, traded: number): readonly string[] {
    const lo = Math.max(this.lastMs + 1, phaseStart(timeMs));
    this.events = [];
    this.pending = [];
    if (timeMs < AUCTION_END) this.auctionWindow(lo, timeMs, priceCents, MARKET_ORDER_SHARE);
    else if (!this.opened) this.auctionMatch(AUCTION_END, lo, priceCents, traded);
    else if (timeMs < CLOSE_AUCTION_START) this.continuousWindow(lo, timeMs, priceCents, traded);
    else if (timeMs < MARKET_CLOSE) this.auctionWindow(lo, timeMs, priceCents, 0);
    else if (!this.closed) this.auctionMatch(MARKET_CLOSE, lo, priceCents, traded);
    this.lastMs = timeMs;
    this.lastCents = priceCents;
    return this.write();
  }

  /** A call auction's window: orders collect (`marketShare` of them market orders; none at the close, where they are not accepted). */
  private auctionWindow(lo: number, hi: number, cents: number, marketShare: number): void {
    const rnd = this.rnd;
    if (this.lastMs < 0) {
      for (const side of ['B', 'S'] as const) {
        const shares = OPENING_MARKET_SHARES + 100 * Math.floor(rnd() * 40);
        this.addOrder(side, 'M', cents, shares, this.timeIn(lo, hi));
      }
    }
    if (hi < AUCTION_CANCEL_END) {
      for (let c = poisson(this.scale * AUCTION_CANCELS, rnd); c > 0; c--) {
        const o = this.auctionOrders[Math.floor(rnd() * this.auctionOrders.length)];
        if (o !== undefined && o.type === 'L' && o.remaining > 0) this.cancel(o, this.timeIn(lo, hi));
      }
    }
    for (let n = poisson(this.scale * AUCTION_ORDERS, rnd); n > 0; n--) {
      const side: Side = rnd() < 0.5 ? 'B' : 'S';
      const away = Math.round((rnd() - 0.5) * 2 * expo(rnd) * 2);
      this.addOrder(side, rnd() < marketShare ? 'M' : 'L', this.clamp(cents + away), 100 * sizeLots(rnd), this.timeIn(lo, hi));
    }
    this.auctionOrders.push(...this.pending.sort((a, b) => a.timeMs - b.timeMs));
  }

  /**
   * A call auction's match at `at` (09:25:00.000 opening, 15:00:00.000 closing), `traded`
   * shares at `cents`: buys priced at or above it against sells at or below it, best price
   * first, then time; market orders last. At the close the continuous book's resting orders
   * take part too. The opening market orders cover the largest opening match; where a side's
   * orders fall short (at the close), a limit order at the match price placed in [lo, at)
   * covers the rest. Then the unfilled limit orders rest (after the close they go nowhere).
   */
  private auctionMatch(at: number, lo: number, cents: number, traded: number): void {
    const closing = this.opened;
    this.opened = true;
    this.closed = closing;
    const priority = (side: Side) => {
      const sign = side === 'B' ? -1 : 1;
      const eligible = this.auctionOrders.filter((o) => o.side === side && o.remaining > 0 && (o.type === 'M' || sign * (o.bookCents - cents) <= 0));
      if (closing) {
        for (const [bookCents, q] of this.book[side === 'B' ? 0 : 1]) {
          if (sign * (bookCents - cents) > 0) continue;
          for (let i = q.head; i < q.orders.length; i++) if (q.orders[i].remaining > 0) eligible.push(q.orders[i]);
        }
      }
      let short = traded;
      for (const o of eligible) short -= o.remaining;
      if (short > 0) eligible.push(this.addOrder(side, 'L', cents, short + 100 * Math.floor(this.rnd() * 20), this.timeIn(lo, at - 1)));
      return eligible.sort((a, b) => (a.type === 'M' ? 1 : 0) - (b.type === 'M' ? 1 : 0) || sign * (a.bookCents - b.bookCents) || a.timeMs - b.timeMs);
    };
    const buys = priority('B');
    const sells = priority('S');
    let left = traded;
    for (let b = 0, s = 0; left > 0;) {
      const buy = buys[b];
      const sell = sells[s];
      const v = Math.min(left, buy.remaining, sell.remaining);
      this.trade(at, cents, v, 'N', buy, sell);
      left -= v;
      if (buy.remaining === 0) b++;
      if (sell.remaining === 0) s++;
    }
    for (const o of this.auctionOrders) if (o.type === 'L' && o.remaining > 0) this.rest(o);
    this.auctionOrders.length = 0;
  }

  private continuousWindow(lo: number, hi: number, cents: number, traded: number): void {
    const rnd = this.rnd;
    // Cancellations first: they only take orders that rested before this window, and what
    // they take cannot trade in it.
    for (let c = poisson(this.scale * CANCELS, rnd); c > 0; c--) this.cancelResting(lo, hi);
    const lots = traded / 100;
    if (lots > 0) {
      const buyShare = cents > this.lastCents ? 0.7 : cents < this.lastCents ? 0.3 : 0.5;
      for (const run of splitLots(lots, this.runsFor(lots), rnd)) {
        this.aggress(rnd() < buyShare ? 'B' : 'S', run * 100, cents, lo, this.timeIn(lo, hi));
      }
    }
    for (let n = poisson(this.scale * RESTING_ORDERS, rnd); n > 0; n--) {
      const side: Side = rnd() < 0.5 ? 'B' : 'S';
      const away = Math.min(20, Math.floor(expo(rnd) * 2.5));
      const type = this.shenzhen && rnd() < SZ_BEST_OWN_SHARE ? 'U' : 'L';
      this.addOrder(side, type, this.clamp(side === 'B' ? cents - away : cents + away), 100 * sizeLots(rnd), this.timeIn(lo, hi));
    }
    for (const o of this.pending.sort((a, b) => a.timeMs - b.timeMs)) if (o.remaining > 0) this.rest(o);
  }

  /**
   * How many aggressor orders make a snapshot's trades: at least one (every traded share is
   * some trade's), at most one per lot; above scale 1 about `scale` on average, so trade
   * counts grow with the scale (below 1 the one-per-snapshot floor holds them).
   */
  private runsFor(lots: number): number {
    return Math.min(lots, 1 + Math.round(expo(this.rnd) * Math.max(0, this.scale - 1)));
  }

  /**
   * One aggressor order at `t` taking `shares` at `cents` in one trade: from the earliest
   * resting order of the other side that can fill it, else from a new passive order placed
   * earlier in the window. One trade per aggressor keeps the count near one per snapshot
   * (a snapshot's 3 s hold 0–59 lots); smaller resting orders wait for a smaller one.
   */
  private aggress(side: Side, shares: number, cents: number, lo: number, t: number): void {
    const rnd = this.rnd;
    const market = rnd() < MARKET_ORDER_SHARE;
    const extra = !market && rnd() < 0.15 ? 100 * (1 + Math.floor(rnd() * 5)) : 0;
    const agg = this.addOrder(side, market ? 'M' : 'L', cents, shares + extra, t);
    const other: Side = side === 'B' ? 'S' : 'B';
    const queue = this.book[other === 'B' ? 0 : 1].get(cents);
    let passive = queue ? fitting(queue, shares) : null;
    if (passive === null) {
      const type = this.shenzhen && rnd() < SZ_BEST_OWN_SHARE ? 'U' : 'L';
      const more = rnd() < 0.3 ? 0 : 100 * (1 + Math.floor(rnd() * 60));
      passive = this.addOrder(other, type, cents, shares + more, this.timeIn(lo, t));
    }
    this.trade(t, cents, shares, side, side === 'B' ? agg : passive, side === 'B' ? passive : agg);
    if (market) agg.remaining = 0; // a market order's unfilled rest is withdrawn, never rests
  }

  private cancelResting(lo: number, hi: number): void {
    for (let tries = 0; tries < 4 && this.resting.length > 0; tries++) {
      const i = Math.floor(this.rnd() * this.resting.length);
      const o = this.resting[i];
      this.resting[i] = this.resting[this.resting.length - 1];
      this.resting.pop();
      if (o.remaining > 0) return this.cancel(o, this.timeIn(lo, hi));
    }
  }

  /** Shanghai/Beijing: a deletion order naming the order's number; Shenzhen: a cancellation trade record. */
  private cancel(o: Order, t: number): void {
    if (this.shenzhen) {
      const trade: Trade = {
        id: 0,
        timeMs: t,
        priceCents: 0,
        volume: o.remaining,
        flag: null,
        code: 'C',
        buy: o.side === 'B' ? o : null,
        sell: o.side === 'S' ? o : null,
      };
      this.events.push({ timeMs: t, seq: this.events.length, order: null, trade });
    } else {
      const del: Order = {
        id: 0,
        no: null,
        deletes: o,
        side: o.side,
        type: 'D',
        priceCents: o.priceCents,
        bookCents: o.bookCents,
        volume: o.remaining,
        remaining: 0,
        timeMs: t,
      };
      this.events.push({ timeMs: t, seq: this.events.length, order: del, trade: null });
    }
    o.remaining = 0;
  }

  private addOrder(side: Side, type: 'L' | 'M' | 'U', cents: number, volume: number, t: number): Order {
    const o: Order = {
      id: 0,
      no: null,
      deletes: null,
      side,
      type,
      priceCents: type === 'L' ? cents : null,
      bookCents: cents,
      volume,
      remaining: volume,
      timeMs: t,
    };
    this.events.push({ timeMs: t, seq: this.events.length, order: o, trade: null });
    this.pending.push(o);
    return o;
  }

  private trade(t: number, cents: number, volume: number, flag: 'B' | 'S' | 'N', buy: Order, sell: Order): void {
    buy.remaining -= volume;
    sell.remaining -= volume;
    const trade: Trade = { id: 0, timeMs: t, priceCents: cents, volume, flag, code: 'F', buy, sell };
    this.events.push({ timeMs: t, seq: this.events.length, order: null, trade });
  }

  private rest(o: Order): void {
    const side = this.book[o.side === 'B' ? 0 : 1];
    let q = side.get(o.bookCents);
    if (!q) side.set(o.bookCents, (q = { orders: [], head: 0 }));
    q.orders.push(o);
    this.resting.push(o);
  }

  private timeIn(lo: number, hi: number): number {
    return lo + Math.floor(this.rnd() * (hi - lo + 1));
  }

  private clamp(cents: number): number {
    return Math.min(this.limitUp, Math.max(this.limitDown, cents));
  }

  /** Sorts the window's events by time (orders first within a ms), numbers them and writes their lines. */
  private write(): readonly string[] {
    const lines = this.lines;
    lines.length = 0;
    this.events.sort((a, b) => a.timeMs - b.timeMs || (a.order ? 0 : 1) - (b.order ? 0 : 1) || a.seq - b.seq);
    let time = '';
    let timeMs = -1;
    for (const e of this.events) {
      if (e.timeMs !== timeMs && !this.rows) time = formatLevel2Time(e.timeMs);
      timeMs = e.timeMs;
      if (e.order) {
        e.order.id = this.nextOrderId++;
        if (!this.shenzhen) e.order.no = e.order.deletes ? e.order.deletes.no : this.orderNo();
        if (this.rows) this.orderRow(e.order, timeMs);
        else this.emit(this.orderLine(e.order, time), () => this.orderObject(e.order!, time));
      } else {
        const t = e.trade!;
        t.id = this.nextTradeId++;
        if (this.rows) this.tradeRow(t, timeMs);
        else this.emit(this.tradeLine(t, time), () => this.tradeObject(t, time));
      }
    }
    return lines;
  }

  /** The next exchange order number: it counts the other symbols' orders too, so it skips. */
  private orderNo(): number {
    const no = this.nextOrderNo;
    this.nextOrderNo += 1 + Math.floor(this.rnd() * 3);
    return no;
  }

  /** Order amount: reported by Shanghai and Beijing for limit orders only. */
  private orderAmount(o: Order): number | null {
    return !this.shenzhen && o.type === 'L' ? Math.round(o.volume * o.priceCents!) / 100 : null;
  }

  /** Written by hand (like the snapshot lines) for speed; equal to JSON.stringify(orderObject). */
  private orderLine(o: Order, time: string): string {
    const p = this.parts;
    p.length = 0;
    p.push(
      '{"kind":"order","symbol":"',
      this.sym,
      '","tradedate":"',
      this.date,
      '","time":"',
      time,
      '","order_id":',
      String(o.id),
      ',"price":',
      num(yuan(o.priceCents)),
      ',"volume":',
      String(o.volume),
      ',"amount":',
      num(this.orderAmount(o)),
      ',"side":"',
      o.side,
      '","order_type":"',
      o.type,
      '","order_no":',
      num(o.no),
      '}',
    );
    return p.join('');
  }

  /** The order's values as orderLine writes them, to the row sink. */
  private orderRow(o: Order, timeMs: number): void {
    const v = this.orderValues;
    v[0] = o.id;
    v[1] = o.priceCents === null ? NaN : yuan(o.priceCents)!;
    v[2] = o.volume;
    v[3] = this.orderAmount(o) ?? NaN;
    v[4] = o.side.charCodeAt(0);
    v[5] = o.type.charCodeAt(0);
    v[6] = o.no ?? NaN;
    this.rows!.order(this.sym, this.date, timeMs, v);
  }

  /** The trade's values as tradeLine writes them, to the row sink. */
  private tradeRow(t: Trade, timeMs: number): void {
    const v = this.tradeValues;
    v[0] = t.id;
    v[1] = yuan(t.priceCents)!;
    v[2] = t.volume;
    v[3] = Math.round(t.volume * t.priceCents) / 100;
    v[4] = t.flag === null ? NaN : t.flag.charCodeAt(0);
    v[5] = t.code.charCodeAt(0);
    v[6] = t.buy ? t.buy.id : NaN;
    v[7] = t.sell ? t.sell.id : NaN;
    this.rows!.trade(this.sym, this.date, timeMs, v);
  }

  private orderObject(o: Order, time: string): Record<string, unknown> {
    return {
      kind: 'order',
      symbol: this.sym,
      tradedate: this.date,
      time,
      order_id: o.id,
      price: yuan(o.priceCents),
      volume: o.volume,
      amount: this.orderAmount(o),
      side: o.side,
      order_type: o.type,
      order_no: o.no,
    };
  }

  private tradeLine(t: Trade, time: string): string {
    const p = this.parts;
    p.length = 0;
    p.push(
      '{"kind":"trade","symbol":"',
      this.sym,
      '","tradedate":"',
      this.date,
      '","time":"',
      time,
      '","trade_id":',
      String(t.id),
      ',"price":',
      String(yuan(t.priceCents)),
      ',"volume":',
      String(t.volume),
      ',"amount":',
      String(Math.round(t.volume * t.priceCents) / 100),
      ',"bs_flag":',
      t.flag === null ? 'null' : `"${t.flag}"`,
      ',"trade_code":"',
      t.code,
      '","buy_order_id":',
      num(t.buy && t.buy.id),
      ',"sell_order_id":',
      num(t.sell && t.sell.id),
      '}',
    );
    return p.join('');
  }

  private tradeObject(t: Trade, time: string): Record<string, unknown> {
    return {
      kind: 'trade',
      symbol: this.sym,
      tradedate: this.date,
      time,
      trade_id: t.id,
      price: yuan(t.priceCents),
      volume: t.volume,
      amount: Math.round(t.volume * t.priceCents) / 100,
      bs_flag: t.flag,
      trade_code: t.code,
      buy_order_id: t.buy && t.buy.id,
      sell_order_id: t.sell && t.sell.id,
    };
  }

  /** The good line, before it (with probability `faults`) a bad line or a corrected duplicate of the same id. */
  private emit(line: string, row: () => Record<string, unknown>): void {
    const rnd = this.rnd;
    if (this.faults > 0 && rnd() < this.faults) {
      const good = row();
      if (rnd() < 0.5) {
        // A corrected re-send: the same id first with a wrong volume, then the true row (later wins by id).
        this.lines.push(JSON.stringify({ ...good, volume: (good.volume as number) + 100 }));
      } else {
        const bad = good.kind === 'trade' ? BAD_TRADES : BAD_ORDERS;
        this.lines.push(bad[Math.floor(rnd() * bad.length)](good));
      }
    }
    this.lines.push(line);
  }
}

/** How many resting orders of a queue an aggressor looks at, earliest first. */
const QUEUE_LOOK = 8;

/** The earliest resting order of a queue with at least `shares` left; null when none of the first few has. */
function fitting(q: Queue, shares: number): Order | null {
  while (q.head < q.orders.length && q.orders[q.head].remaining === 0) q.head++;
  if (q.head > 64 && q.head * 2 > q.orders.length) {
    q.orders.splice(0, q.head);
    q.head = 0;
  }
  for (let i = q.head, seen = 0; i < q.orders.length && seen < QUEUE_LOOK; i++) {
    const o = q.orders[i];
    if (o.remaining === 0) continue;
    if (o.remaining >= shares) return o;
    seen++;
  }
  return null;
}

type Row = Record<string, unknown>;

/** Kinds of bad trade/order line the generator injects; each must be quarantined by ingestion. */
const BAD_COMMON: readonly ((g: Row) => string)[] = [(g) => JSON.stringify({ ...g, time: '9:30:00' }), (g) => JSON.stringify({ ...g, price: 'n/a' })];
export const BAD_TRADES: readonly ((g: Row) => string)[] = [
  ...BAD_COMMON,
  (g) => JSON.stringify({ ...g, trade_id: undefined }),
  (g) => JSON.stringify({ ...g, trade_id: (g.trade_id as number) + 0.5 }),
  (g) => JSON.stringify({ ...g, bs_flag: 'X' }),
];
export const BAD_ORDERS: readonly ((g: Row) => string)[] = [
  ...BAD_COMMON,
  (g) => JSON.stringify({ ...g, order_id: undefined }),
  (g) => JSON.stringify({ ...g, order_id: (g.order_id as number) + 0.5 }),
  (g) => JSON.stringify({ ...g, side: 'X' }),
  (g) => JSON.stringify({ ...g, order_type: 'Z' }),
];
