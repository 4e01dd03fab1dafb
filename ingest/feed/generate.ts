/**
 * Deterministic synthetic market feed: realistic Level-2 and index snapshot days for a seed.
 * Pure (yields JSON Lines text); the CLI decides where the lines go.
 *
 * Shape of a day: snapshots every 3 s with millisecond jitter, call auction 09:15–09:25
 * (only level 1 carries the indicative match; levels 2–10 are null), continuous trading
 * 09:30–11:30 and 13:00–14:57, closing call auction 14:57–15:00 (frozen: last price, high,
 * low, volume and amount stay, level 1 carries the indicative match; the first snapshot at or
 * after 15:00 carries the match and the close), cumulative volume and amount, prices on the
 * 0.01 grid. Indexes start at 09:25 and stand still during the closing auction too.
 * Rows are interleaved across symbols in time order, as a live feed would deliver them.
 * With `ticks`, each stock snapshot is preceded by the orders and trades that made it
 * (tickMarket.ts), drawn from their own random stream so the snapshot lines do not change.
 */
import { formatIndexTime, formatLevel2Time } from '../../shared/timeFormat.js';
import { asciiBytes, JsonLineBuffer, LINE_KINDS, memberBytes, type LineChunk } from './jsonLineBuffer.js';
import { TickMarket, type TickRowSink } from './tickMarket.js';
import { INDEX_ALWAYS_NULL, SCHEMAS } from '../../shared/schema.js';
import { AUCTION_END, AUCTION_START, CLOSE_AUCTION_START, MARKET_CLOSE, SESSIONS } from './tradingHours.js';

export interface GenerateOptions {
  readonly days: readonly string[];
  readonly stocks: number;
  readonly indexes: number;
  readonly seed: string;
  /** Probability, per good line, of also emitting a bad line or a corrected duplicate. */
  readonly faults: number;
  /**
   * Scale of the tick-by-tick orders and trades of the stocks (1 ≈ 5,000 trades per
   * stock-day, 2 about twice as many); 0 or omitted writes none.
   */
  readonly ticks?: number;
  /** The days that get orders and trades; omitted: every generated day. */
  readonly tickDays?: readonly string[];
}

/** mulberry32 seeded from a string hash: small, fast and stable across Node versions. */
export function seededRandom(seed: string): () => number {
  let h = 1779033703 ^ seed.length;
  for (let i = 0; i < seed.length; i++) {
    h = Math.imul(h ^ seed.charCodeAt(i), 3432918353);
    h = (h << 13) | (h >>> 19);
  }
  let a = h >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STOCK_BLOCKS: readonly [number, string][] = [
  [600000, 'SH'],
  [1, 'SZ'],
  [300001, 'SZ'],
  [688001, 'SH'],
  [2001, 'SZ'],
  [601000, 'SH'],
  [830799, 'BJ'],
];
const INDEX_BASES: readonly number[] = [1, 300, 399001, 905, 399006, 16, 852, 399300];

/** The i-th generated stock code, canonical form, spread over SH, SZ and BJ code blocks. */
export function stockCode(i: number): string {
  const [base, ex] = STOCK_BLOCKS[i % STOCK_BLOCKS.length];
  const code = base + Math.floor(i / STOCK_BLOCKS.length);
  return `${String(code).padStart(6, '0')}.${ex}`;
}

export function indexCode(i: number): string {
  const base = INDEX_BASES[i % INDEX_BASES.length];
  return String(base + Math.floor(i / INDEX_BASES.length) * 10).padStart(6, '0');
}

/** Slot start times of a day: auction every 3 s up to 09:25:00, both sessions, then the closing auction up to 15:00:00. */
function daySlots(): number[] {
  const slots: number[] = [];
  for (let t = AUCTION_START; t <= AUCTION_END; t += 3000) slots.push(t);
  for (const [a, b] of SESSIONS) for (let t = a; t < b; t += 3000) slots.push(t);
  for (let t = CLOSE_AUCTION_START; t <= MARKET_CLOSE; t += 3000) slots.push(t);
  return slots;
}
const SLOTS = daySlots();

/** The seed `generate` and the demo use unless told otherwise. */
export const DEFAULT_SEED = 'tickvault';

/**
 * About how many good rows (lines) a market makes, for progress totals: a snapshot per slot
 * and symbol (indexes skip the auction), and per stock-day with ticks ~14,000 order and trade
 * rows at scale 1, ~24,000 at 2 (measured).
 */
export function expectedRows(opts: Pick<GenerateOptions, 'days' | 'stocks' | 'indexes' | 'ticks' | 'tickDays'>): number {
  const ticks = opts.ticks ?? 0;
  const tickDays = ticks > 0 ? (opts.tickDays ?? opts.days).length : 0;
  return opts.days.length * (opts.stocks + opts.indexes) * SLOTS.length + tickDays * opts.stocks * (4_000 + 10_000 * Math.max(1, ticks));
}

interface StockState {
  symbol: string;
  preCloseCents: number;
  /** The last price (in the opening auction: the indicative match price). */
  priceCents: number;
  /** The closing auction's indicative match price; -1 before it starts. */
  matchCents: number;
  open: number | null;
  highCents: number;
  lowCents: number;
  volume: number;
  amount: number;
}

interface IndexState {
  symbol: string;
  preClose: number;
  level: number;
  open: number | null;
  high: number;
  low: number;
  vol: number;
  amount: number;
  trades: number;
}

const cents = (c: number) => Math.round(c) / 100;
const round2 = (x: number) => Math.round(x * 100) / 100;
const round4 = (x: number) => Math.round(x * 10_000) / 10_000;
/** The closing match trades 1–400 lots: several snapshots' worth of continuous trading. */
const CLOSE_MATCH_LOTS = 400;

/**
 * One stock snapshot's values, filled in place (one object reused for every row). A line is
 * written from it straight into bytes (writeStockLine); the member object (stockObject) is
 * built only for a fault, which edits a good row. Both give exactly what JSON.stringify of
 * that object gives: building 50 members and stringifying them is several times slower.
 */
interface StockSnap {
  symbol: string;
  date: string;
  timeMs: number;
  auction: boolean;
  open: number | null;
  high: number | null;
  low: number | null;
  close: number | null;
  preClose: number;
  volume: number;
  amount: number;
  /** Per level 1..10 (index 0..9); an auction row (opening or closing) has level 1 only. */
  readonly bid: (number | null)[];
  readonly ask: (number | null)[];
  readonly bidVol: (number | null)[];
  readonly askVol: (number | null)[];
}

function newStockSnap(): StockSnap {
  const levels = () => new Array<number | null>(10).fill(null);
  return {
    symbol: '',
    date: '',
    timeMs: 0,
    auction: false,
    open: null,
    high: null,
    low: null,
    close: null,
    preClose: 0,
    volume: 0,
    amount: 0,
    bid: levels(),
    ask: levels(),
    bidVol: levels(),
    askVol: levels(),
  };
}

function stockSnap(s: StockState, date: string, timeMs: number, rnd: () => number, out: StockSnap): StockSnap {
  out.symbol = s.symbol;
  out.date = date;
  out.timeMs = timeMs;
  const auction = timeMs < AUCTION_END;
  out.auction = auction;
  const limitUp = Math.round(s.preCloseCents * 1.1);
  const limitDown = Math.round(s.preCloseCents * 0.9);
  if (auction) {
    // Indicative match drifts around the previous close; only level 1 is meaningful.
    s.priceCents = Math.min(limitUp, Math.max(limitDown, s.priceCents + Math.round((rnd() - 0.5) * 6)));
    const matched = 100 * Math.floor(rnd() * 2000);
    out.open = out.high = out.low = out.close = null;
    out.preClose = cents(s.preCloseCents);
    out.volume = 0;
    out.amount = 0;
    out.bid[0] = cents(s.priceCents);
    out.ask[0] = cents(s.priceCents);
    out.bidVol[0] = matched;
    out.askVol[0] = matched + 100 * Math.floor(rnd() * 50);
    return out;
  }
  if (s.open === null) {
    s.open = s.priceCents;
    s.highCents = s.priceCents;
    s.lowCents = s.priceCents;
  }
  out.preClose = cents(s.preCloseCents);
  if (timeMs >= CLOSE_AUCTION_START && timeMs < MARKET_CLOSE) {
    // Closing call auction: nothing trades, so the last price, high, low, volume and amount
    // stay; level 1 carries the indicative match, drifting from the last price.
    s.matchCents = Math.min(limitUp, Math.max(limitDown, (s.matchCents < 0 ? s.priceCents : s.matchCents) + Math.round((rnd() - 0.5) * 6)));
    const matched = 100 * Math.floor(rnd() * 2000);
    out.auction = true;
    out.open = cents(s.open);
    out.high = cents(s.highCents);
    out.low = cents(s.lowCents);
    out.close = cents(s.priceCents);
    out.volume = s.volume;
    out.amount = s.amount;
    out.bid[0] = cents(s.matchCents);
    out.ask[0] = cents(s.matchCents);
    out.bidVol[0] = matched;
    out.askVol[0] = matched + 100 * Math.floor(rnd() * 50);
    return out;
  }
  let traded: number;
  if (timeMs >= MARKET_CLOSE) {
    // The closing match: the last indicative price is the close.
    if (s.matchCents >= 0) s.priceCents = s.matchCents;
    traded = 100 * (1 + Math.floor(rnd() * CLOSE_MATCH_LOTS));
  } else {
    if (rnd() < 0.6) {
      const step = Math.round((rnd() - 0.5) * 6);
      s.priceCents = Math.min(limitUp, Math.max(limitDown, s.priceCents + step));
    }
    traded = 100 * Math.floor(rnd() * 60);
  }
  s.volume += traded;
  s.amount = round2(s.amount + (traded * s.priceCents) / 100);
  s.highCents = Math.max(s.highCents, s.priceCents);
  s.lowCents = Math.min(s.lowCents, s.priceCents);
  out.open = cents(s.open);
  out.high = cents(s.highCents);
  out.low = cents(s.lowCents);
  out.close = cents(s.priceCents);
  out.volume = s.volume;
  out.amount = s.amount;
  const bid1 = s.priceCents - (rnd() < 0.5 ? 1 : 0);
  for (let l = 1; l <= 10; l++) {
    const b = bid1 - (l - 1);
    const a = bid1 + l;
    out.bid[l - 1] = b >= limitDown ? cents(b) : null;
    out.ask[l - 1] = a <= limitUp ? cents(a) : null;
    out.bidVol[l - 1] = b >= limitDown ? 100 * (1 + Math.floor(rnd() * 500)) : null;
    out.askVol[l - 1] = a <= limitUp ? 100 * (1 + Math.floor(rnd() * 500)) : null;
  }
  return out;
}

/** A line's room: more than any snapshot line needs (about 1 KB at most). */
const MAX_SNAPSHOT_LINE = 4096;

const L2_HEAD = asciiBytes('{"kind":"level2","symbol":"');
const TRADEDATE = asciiBytes('","tradedate":"');
const TIME = asciiBytes('","time":"');
const [OPEN, HIGH, LOW, CLOSE, PRE_CLOSE, VOLUME, AMOUNT] = ['open', 'high', 'low', 'close', 'pre_close', 'volume', 'amount'].map(memberBytes);
const BID = Array.from({ length: 10 }, (_, i) => memberBytes(`bid${i + 1}`));
const ASK = Array.from({ length: 10 }, (_, i) => memberBytes(`ask${i + 1}`));
const BID_VOL = Array.from({ length: 10 }, (_, i) => memberBytes(`bid_vol${i + 1}`));
const ASK_VOL = Array.from({ length: 10 }, (_, i) => memberBytes(`ask_vol${i + 1}`));
const KIND_LEVEL2 = LINE_KINDS.indexOf('level2');
const KIND_INDEX = LINE_KINDS.indexOf('index');

/** A snapshot's line: exactly JSON.stringify(stockObject(r)), members in that order. */
function writeStockLine(b: JsonLineBuffer, r: StockSnap): void {
  b.room(MAX_SNAPSHOT_LINE);
  b.bytes(L2_HEAD);
  b.ascii(r.symbol);
  b.bytes(TRADEDATE);
  b.ascii(r.date);
  b.bytes(TIME);
  b.level2Time(r.timeMs);
  b.ascii('"');
  b.member(OPEN, r.open);
  b.member(HIGH, r.high);
  b.member(LOW, r.low);
  b.member(CLOSE, r.close);
  b.member(PRE_CLOSE, r.preClose);
  b.member(VOLUME, r.volume);
  b.member(AMOUNT, r.amount);
  const levels = r.auction ? 1 : 10;
  for (let i = 0; i < levels; i++) {
    b.member(BID[i], r.bid[i]);
    b.member(ASK[i], r.ask[i]);
    b.member(BID_VOL[i], r.bidVol[i]);
    b.member(ASK_VOL[i], r.askVol[i]);
  }
  b.ascii('}');
  b.endLine(KIND_LEVEL2);
}

function stockObject(r: StockSnap): Record<string, unknown> {
  const row: Record<string, unknown> = {
    kind: 'level2',
    symbol: r.symbol,
    tradedate: r.date,
    time: formatLevel2Time(r.timeMs),
    open: r.open,
    high: r.high,
    low: r.low,
    close: r.close,
    pre_close: r.preClose,
    volume: r.volume,
    amount: r.amount,
  };
  if (r.auction) {
    Object.assign(row, { bid1: r.bid[0], ask1: r.ask[0], bid_vol1: r.bidVol[0], ask_vol1: r.askVol[0] });
    return row;
  }
  for (let l = 1; l <= 10; l++) {
    row[`bid${l}`] = r.bid[l - 1];
    row[`ask${l}`] = r.ask[l - 1];
    row[`bid_vol${l}`] = r.bidVol[l - 1];
    row[`ask_vol${l}`] = r.askVol[l - 1];
  }
  return row;
}

/** One index snapshot's values, filled in place like StockSnap; its member object only on demand (indexObject). */
interface IndexSnap {
  symbol: string;
  date: string;
  timeMs: number;
  open: number;
  high: number;
  low: number;
  close: number;
  preClose: number;
  pctChg: number;
  vol: number;
  amount: number;
  transactionNum: number | null;
  /** Per level 1..5 (index 0..4). */
  readonly bid: number[];
  readonly ask: number[];
  readonly bidVol: number[];
  readonly askVol: number[];
}

function newIndexSnap(): IndexSnap {
  const levels = () => new Array<number>(5).fill(0);
  return {
    symbol: '',
    date: '',
    timeMs: 0,
    open: 0,
    high: 0,
    low: 0,
    close: 0,
    preClose: 0,
    pctChg: 0,
    vol: 0,
    amount: 0,
    transactionNum: null,
    bid: levels(),
    ask: levels(),
    bidVol: levels(),
    askVol: levels(),
  };
}

function indexSnap(s: IndexState, date: string, timeMs: number, rnd: () => number, out: IndexSnap): IndexSnap {
  if (s.open === null) {
    s.open = s.level;
    s.high = s.level;
    s.low = s.level;
  }
  // In the closing auction no constituent trades: the index stands still until the match.
  if (timeMs < CLOSE_AUCTION_START || timeMs >= MARKET_CLOSE) {
    s.level = round4(s.level * (1 + (rnd() - 0.5) * 0.0006));
    s.high = Math.max(s.high, s.level);
    s.low = Math.min(s.low, s.level);
    const trades = Math.floor(rnd() * 3000);
    s.trades += trades;
    s.vol += trades * 100 * (1 + Math.floor(rnd() * 20));
    s.amount = round2(s.amount + trades * 1000 * (1 + rnd() * 30));
  }
  out.symbol = s.symbol;
  out.date = date;
  out.timeMs = timeMs;
  out.open = s.open;
  out.high = s.high;
  out.low = s.low;
  out.close = s.level;
  // The feed carries these; the service must report them as null all the same.
  out.preClose = s.preClose;
  out.pctChg = round4(((s.level - s.preClose) / s.preClose) * 100);
  out.vol = s.vol;
  out.amount = s.amount;
  out.transactionNum = rnd() < 0.002 ? null : s.trades;
  for (let l = 0; l < 5; l++) {
    out.bid[l] = round4(s.level - 0.01 * (l + 1));
    out.ask[l] = round4(s.level + 0.01 * (l + 1));
    out.bidVol[l] = 100 * (1 + Math.floor(rnd() * 900));
    out.askVol[l] = 100 * (1 + Math.floor(rnd() * 900));
  }
  return out;
}

/**
 * An index snapshot's value members in feed order, each with how to read it: the one list the
 * line, the member object and the staged row values are all made from.
 */
const INDEX_MEMBERS: readonly { readonly name: string; readonly bytes: Uint8Array; readonly get: (r: IndexSnap) => number | null }[] = (
  [
    ['open', (r) => r.open],
    ['high', (r) => r.high],
    ['low', (r) => r.low],
    ['close', (r) => r.close],
    ['pre_close', (r) => r.preClose],
    ['pct_chg', (r) => r.pctChg],
    ['vol', (r) => r.vol],
    ['amount', (r) => r.amount],
    ['transaction_num', (r) => r.transactionNum],
    ...Array.from(
      { length: 5 },
      (_, l) =>
        [
          [`bid${l + 1}`, (r) => r.bid[l]],
          [`ask${l + 1}`, (r) => r.ask[l]],
          [`bid_vol${l + 1}`, (r) => r.bidVol[l]],
          [`ask_vol${l + 1}`, (r) => r.askVol[l]],
        ] as [string, (r: IndexSnap) => number | null][],
    ).flat(),
  ] as [string, (r: IndexSnap) => number | null][]
).map(([name, get]) => ({ name, bytes: memberBytes(name), get }));

function indexObject(r: IndexSnap): Record<string, unknown> {
  const row: Record<string, unknown> = { kind: 'index', tradedate: r.date, symbol: r.symbol, time: formatIndexTime(r.date, r.timeMs) };
  for (const m of INDEX_MEMBERS) row[m.name] = m.get(r);
  return row;
}

const IDX_HEAD = asciiBytes('{"kind":"index","tradedate":"');
const SYMBOL = asciiBytes('","symbol":"');

/** An index snapshot's line: exactly JSON.stringify(indexObject(r)), members in that order. */
function writeIndexLine(b: JsonLineBuffer, r: IndexSnap): void {
  b.room(MAX_SNAPSHOT_LINE);
  b.bytes(IDX_HEAD);
  b.ascii(r.date);
  b.bytes(SYMBOL);
  b.ascii(r.symbol);
  b.bytes(TIME);
  b.dashedDate(r.date);
  b.ascii(' ');
  b.clockTime(r.timeMs);
  b.ascii('"');
  for (const m of INDEX_MEMBERS) b.member(m.bytes, m.get(r));
  b.ascii('}');
  b.endLine(KIND_INDEX);
}

/** Kinds of bad line the generator injects; each must be quarantined by ingestion. */
const BAD_LINES: readonly ((good: Record<string, unknown>) => string)[] = [
  () => '{"kind":"level2","symbol":"600000.SH", truncated',
  (g) => JSON.stringify({ ...g, symbol: undefined }),
  (g) => JSON.stringify({ ...g, symbol: 'ABC123' }),
  (g) => JSON.stringify({ ...g, time: '25:61:00' }),
  (g) => JSON.stringify({ ...g, tradedate: '20251340' }),
  (g) => JSON.stringify({ ...g, close: 'n/a' }),
  (g) => JSON.stringify({ ...g, kind: 'futures' }),
  (g) => (g.kind === 'index' ? JSON.stringify({ ...g, time: '1999-01-01 10:00:00.000' }) : JSON.stringify({ ...g, bid1: [1] })),
];

/**
 * What the simulation hands out, in feed order. The snapshot object is reused between calls;
 * `rnd` is the snapshot stream (faults draw from it, at this point of the sequence, so a feed
 * with faults keeps the same good lines).
 */
interface MarketEvents {
  stock(r: StockSnap, rnd: () => number): void;
  index(r: IndexSnap, rnd: () => number): void;
  /** Before a stock's snapshot: its tick market's events since the last one. */
  ticks(market: TickMarket, timeMs: number, priceCents: number, traded: number): void;
}

/** The market, day by day and slot by slot; yields after each slot so a caller can drain what it emitted. */
function* simulateMarket(opts: GenerateOptions, out: MarketEvents, tickRows?: TickRowSink): Generator<void> {
  const rnd = seededRandom(opts.seed);
  const stocks: StockState[] = Array.from({ length: opts.stocks }, (_, i) => {
    const p = Math.round((3 + rnd() * 97) * 100);
    return { symbol: stockCode(i), preCloseCents: p, priceCents: p, matchCents: -1, open: null, highCents: p, lowCents: p, volume: 0, amount: 0 };
  });
  const indexes: IndexState[] = Array.from({ length: opts.indexes }, (_, i) => {
    const l = round4(800 + rnd() * 12_000);
    return { symbol: indexCode(i), preClose: l, level: l, open: null, high: l, low: l, vol: 0, amount: 0, trades: 0 };
  });
  const indexSlotStart = SLOTS.findIndex((t) => t >= AUCTION_END);
  const snap = newStockSnap();
  const isnap = newIndexSnap();
  for (const date of opts.days) {
    for (const s of stocks) Object.assign(s, { open: null, matchCents: -1, volume: 0, amount: 0 });
    for (const s of indexes) Object.assign(s, { open: null, vol: 0, amount: 0, trades: 0 });
    const markets = tickMarkets(opts, date, stocks, tickRows);
    for (let k = 0; k < SLOTS.length; k++) {
      for (let i = 0; i < stocks.length; i++) {
        const s = stocks[i];
        const volumeBefore = s.volume;
        const timeMs = SLOTS[k] + Math.floor(rnd() * 1000);
        const r = stockSnap(s, date, timeMs, rnd, snap);
        // The market gets what the snapshot traded since the last one, at its price (its close;
        // in the closing auction the indicative match price, which the match makes the close).
        if (markets) out.ticks(markets[i], timeMs, s.matchCents >= 0 ? s.matchCents : s.priceCents, s.volume - volumeBefore);
        out.stock(r, rnd);
      }
      if (k >= indexSlotStart) {
        for (const s of indexes) {
          const timeMs = SLOTS[k] + Math.floor(rnd() * 1000);
          out.index(indexSnap(s, date, timeMs, rnd, isnap), rnd);
        }
      }
      yield;
    }
    for (const s of stocks) s.preCloseCents = s.priceCents;
    for (const s of indexes) s.preClose = s.level;
  }
}

/**
 * The market as JSON Lines (the feed `tickvault generate` writes), in chunks of about
 * `chunkBytes` (never splitting a line): written straight into bytes, no string per line.
 * Each chunk's buffer is the caller's to keep.
 */
export function* generateFeedChunks(opts: GenerateOptions, chunkBytes?: number): Generator<LineChunk> {
  const b = new JsonLineBuffer(chunkBytes);
  const out: MarketEvents = {
    stock: (r, rnd) => {
      writeFault(b, () => stockObject(r), opts.faults, rnd);
      writeStockLine(b, r);
    },
    index: (r, rnd) => {
      writeFault(b, () => indexObject(r), opts.faults, rnd);
      writeIndexLine(b, r);
    },
    ticks: (market, timeMs, priceCents, traded) => {
      for (const l of market.linesUpTo(timeMs, priceCents, traded)) b.line(l);
    },
  };
  for (const _ of simulateMarket(opts, out)) yield* b.take();
  yield* b.take(true);
}

/** The market as JSON Lines, a string each (tests, the Kafka bench); the same text as generateFeedChunks. */
export function* generateFeed(opts: GenerateOptions): Generator<string> {
  for (const chunk of generateFeedChunks(opts)) {
    const text = chunk.bytes.toString('latin1');
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      yield text.slice(start, nl);
      start = nl + 1;
    }
  }
}

/**
 * Where generated rows go when no text is made (generateRows): each row's values in its
 * dataset's schema order (codes as character codes, NaN = null), arrays reused between calls.
 */
export interface MarketRowSink extends TickRowSink {
  level2(symbol: string, date: string, timeMs: number, values: Float64Array): void;
  index(symbol: string, date: string, timeMs: number, values: Float64Array): void;
  /** After each slot of snapshots (every stock and index once): a point to hand rows on. */
  slotDone?(): void;
}

/**
 * The same market as generateFeed, as rows: the values a replay of the feed would stage,
 * without writing or parsing the text (the demo generates straight into staging this way).
 * No faults: bad lines exist only as text.
 */
export function generateRows(opts: GenerateOptions, sink: MarketRowSink): void {
  if (opts.faults > 0) throw new RangeError('generateRows makes no faults; generate a feed for them');
  const l2 = new Float64Array(SCHEMAS.level2.valueFields.length);
  const ix = new Float64Array(SCHEMAS.index.valueFields.length);
  const memberOf = new Map(INDEX_MEMBERS.map((m) => [m.name, m.get]));
  const ixValues = SCHEMAS.index.valueFields.map((f) => {
    if (INDEX_ALWAYS_NULL.includes(f.name)) return null;
    const get = memberOf.get(f.name);
    if (!get) throw new Error(`the index schema's value ${f.name} is not generated`);
    return get;
  });
  const out: MarketEvents = {
    stock: (r) => sink.level2(r.symbol, r.date, r.timeMs, stockValues(r, l2)),
    index: (r) => {
      for (let i = 0; i < ixValues.length; i++) {
        const get = ixValues[i];
        const v = get === null ? null : get(r);
        ix[i] = v === null ? NaN : v;
      }
      sink.index(r.symbol, r.date, r.timeMs, ix);
    },
    ticks: (market, timeMs, priceCents, traded) => void market.linesUpTo(timeMs, priceCents, traded),
  };
  for (const _ of simulateMarket(opts, out, sink)) sink.slotDone?.();
}

/** A snapshot's values in level-2 schema order, as its line carries them (an auction row has level 1 only). */
function stockValues(r: StockSnap, v: Float64Array): Float64Array {
  const n = (x: number | null) => (x === null ? NaN : x);
  v[0] = n(r.open);
  v[1] = n(r.high);
  v[2] = n(r.low);
  v[3] = n(r.close);
  v[4] = r.preClose;
  v[5] = r.volume;
  v[6] = r.amount;
  const levels = r.auction ? 1 : 10;
  for (let l = 0; l < 10; l++) {
    const on = l < levels;
    v[7 + l] = on ? n(r.bid[l]) : NaN;
    v[17 + l] = on ? n(r.ask[l]) : NaN;
    v[27 + l] = on ? n(r.bidVol[l]) : NaN;
    v[37 + l] = on ? n(r.askVol[l]) : NaN;
  }
  return v;
}

/** Each stock's tick market for the day, or null when the day gets no orders and trades. */
function tickMarkets(opts: GenerateOptions, date: string, stocks: readonly StockState[], rows?: TickRowSink): TickMarket[] | null {
  const scale = opts.ticks ?? 0;
  if (scale <= 0 || (opts.tickDays !== undefined && !opts.tickDays.includes(date))) return null;
  return stocks.map(
    (s) =>
      new TickMarket({
        symbol: s.symbol,
        date,
        preCloseCents: s.preCloseCents,
        scale,
        faults: opts.faults,
        rnd: seededRandom(`${opts.seed}|ticks|${s.symbol}|${date}`),
        rows,
      }),
  );
}

/** With probability `faults`, a bad line or a wrong duplicate made from the good row, written before it. */
function writeFault(b: JsonLineBuffer, row: () => Record<string, unknown>, faults: number, rnd: () => number): void {
  if (faults <= 0 || rnd() >= faults) return;
  const good = row();
  if (rnd() < 0.5) {
    // A corrected re-send: the same key first with a wrong close, then the true row (later wins).
    b.line(JSON.stringify({ ...good, close: 0.01 }));
  } else {
    b.line(BAD_LINES[Math.floor(rnd() * BAD_LINES.length)](good));
  }
}
