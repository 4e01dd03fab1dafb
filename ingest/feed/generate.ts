import { formatIndexTime, formatLevel2Time } from '../../shared/timeFormat.js';
import { TickMarket, type TickRowSink } from './tickMarket.js';
import { INDEX_ALWAYS_NULL, SCHEMAS } from '../../shared/schema.js';
import { AUCTION_END, AUCTION_START, SESSIONS } from './tradingHours.js';

/**
 * Deterministic synthetic market feed: realistic Level-2 and index snapshot days for a seed.
 * Pure (yields JSON Lines text); the CLI decides where the lines go.
 *
 * Shape of a day: snapshots every 3 s with millisecond jitter, call auction 09:15–09:25
 * (only level 1 carries the indicative match; levels 2–10 are null), continuous trading
 * 09:30–11:30 and 13:00–15:00, cumulative volume and amount, prices on the 0.01 grid.
 * Rows are interleaved across symbols in time order, as a live feed would deliver them.
 * With `ticks`, each stock snapshot is preceded by the orders and trades that made it
 * (tickMarket.ts), drawn from their own random stream so the snapshot lines do not change.
 */
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
  [600000, 'SH'], [1, 'SZ'], [300001, 'SZ'], [688001, 'SH'], [2001, 'SZ'], [601000, 'SH'], [830799, 'BJ'],
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


/** Slot start times of a day: auction every 3 s up to 09:25:00, then both sessions. */
function daySlots(): number[] {
  const slots: number[] = [];
  for (let t = AUCTION_START; t <= AUCTION_END; t += 3000) slots.push(t);
  for (const [a, b] of SESSIONS) for (let t = a; t < b; t += 3000) slots.push(t);
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
  priceCents: number;
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

/**
 * One stock snapshot's values, filled in place (one object reused for every row). A line is
 * written from it directly (stockLine); the member object (stockObject) is built only for a
 * fault, which edits a good row. Both give exactly what JSON.stringify of that object gives:
 * writing the line by hand is ~3× faster than building 50 members and stringifying them, and
 * the generator is most of a first `npm start`.
 */
interface StockSnap {
  symbol: string;
  date: string;
  time: string;
  timeMs: number;
  auction: boolean;
  open: number | null;
  high: number | null;
  low: number | null;
  close: number | null;
  preClose: number;
  volume: number;
  amount: number;
  /** Per level 1..10 (index 0..9); an auction row has level 1 only. */
  readonly bid: (number | null)[];
  readonly ask: (number | null)[];
  readonly bidVol: (number | null)[];
  readonly askVol: (number | null)[];
}

function newStockSnap(): StockSnap {
  const levels = () => new Array<number | null>(10).fill(null);
  return {
    symbol: '', date: '', time: '', timeMs: 0, auction: false, open: null, high: null, low: null, close: null, preClose: 0, volume: 0, amount: 0,
    bid: levels(), ask: levels(), bidVol: levels(), askVol: levels(),
  };
}

function stockSnap(s: StockState, date: string, timeMs: number, rnd: () => number, out: StockSnap): StockSnap {
  out.symbol = s.symbol;
  out.date = date;
  out.time = formatLevel2Time(timeMs);
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
  if (rnd() < 0.6) {
    const step = Math.round((rnd() - 0.5) * 6);
    s.priceCents = Math.min(limitUp, Math.max(limitDown, s.priceCents + step));
  }
  const traded = 100 * Math.floor(rnd() * 60);
  s.volume += traded;
  s.amount = round2(s.amount + (traded * s.priceCents) / 100);
  s.highCents = Math.max(s.highCents, s.priceCents);
  s.lowCents = Math.min(s.lowCents, s.priceCents);
  out.open = cents(s.open);
  out.high = cents(s.highCents);
  out.low = cents(s.lowCents);
  out.close = cents(s.priceCents);
  out.preClose = cents(s.preCloseCents);
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

/** A number or null as JSON writes it (String(n) is JSON's form for every finite number). */
const num = (n: number | null) => (n === null ? 'null' : n % 1 !== 0 && n < 10_000 ? priceText(n) : String(n));

/**
 * Prices repeat all day (a 0.01 grid): their texts are made once and kept by cent. A cached
 * text is only used when the value is exactly that cent's double, so it is always String(n).
 * String() of a fraction was the generator's largest single cost (15% of `generate`).
 */
const PRICE_TEXT: string[] = [];
function priceText(n: number): string {
  const c = Math.round(n * 100);
  if (c <= 0 || c / 100 !== n) return String(n);
  return (PRICE_TEXT[c] ??= String(n));
}

/** Parts of a line, reused: join builds one flat string (`+=` would build a rope to flatten later). */
const parts: string[] = [];

function stockLine(r: StockSnap): string {
  parts.length = 0;
  parts.push(
    '{"kind":"level2","symbol":"', r.symbol, '","tradedate":"', r.date, '","time":"', r.time,
    '","open":', num(r.open), ',"high":', num(r.high), ',"low":', num(r.low), ',"close":', num(r.close),
    ',"pre_close":', num(r.preClose), ',"volume":', num(r.volume), ',"amount":', num(r.amount),
  );
  const levels = r.auction ? 1 : 10;
  for (let i = 0; i < levels; i++) {
    parts.push(BID[i], num(r.bid[i]), ASK[i], num(r.ask[i]), BID_VOL[i], num(r.bidVol[i]), ASK_VOL[i], num(r.askVol[i]));
  }
  parts.push('}');
  return parts.join('');
}

const BID = Array.from({ length: 10 }, (_, i) => `,"bid${i + 1}":`);
const ASK = Array.from({ length: 10 }, (_, i) => `,"ask${i + 1}":`);
const BID_VOL = Array.from({ length: 10 }, (_, i) => `,"bid_vol${i + 1}":`);
const ASK_VOL = Array.from({ length: 10 }, (_, i) => `,"ask_vol${i + 1}":`);

function stockObject(r: StockSnap): Record<string, unknown> {
  const row: Record<string, unknown> = {
    kind: 'level2', symbol: r.symbol, tradedate: r.date, time: r.time,
    open: r.open, high: r.high, low: r.low, close: r.close, pre_close: r.preClose, volume: r.volume, amount: r.amount,
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

function indexRow(s: IndexState, date: string, timeMs: number, rnd: () => number): Record<string, unknown> {
  if (s.open === null) {
    s.open = s.level;
    s.high = s.level;
    s.low = s.level;
  }
  s.level = round4(s.level * (1 + (rnd() - 0.5) * 0.0006));
  s.high = Math.max(s.high, s.level);
  s.low = Math.min(s.low, s.level);
  const trades = Math.floor(rnd() * 3000);
  s.trades += trades;
  s.vol += trades * 100 * (1 + Math.floor(rnd() * 20));
  s.amount = round2(s.amount + trades * 1000 * (1 + rnd() * 30));
  const row: Record<string, unknown> = {
    kind: 'index', tradedate: date, symbol: s.symbol, time: formatIndexTime(date, timeMs),
    open: s.open, high: s.high, low: s.low, close: s.level,
    // The feed carries these; the service must report them as null all the same.
    pre_close: s.preClose, pct_chg: round4(((s.level - s.preClose) / s.preClose) * 100),
    vol: s.vol, amount: s.amount,
    transaction_num: rnd() < 0.002 ? null : s.trades,
  };
  for (let l = 1; l <= 5; l++) {
    row[IDX_LEVEL_KEYS[l - 1][0]] = round4(s.level - 0.01 * l);
    row[IDX_LEVEL_KEYS[l - 1][1]] = round4(s.level + 0.01 * l);
    row[IDX_LEVEL_KEYS[l - 1][2]] = 100 * (1 + Math.floor(rnd() * 900));
    row[IDX_LEVEL_KEYS[l - 1][3]] = 100 * (1 + Math.floor(rnd() * 900));
  }
  return row;
}

/** Member names of the five index book levels, in the order indexRow adds them. */
const IDX_LEVEL_KEYS = Array.from({ length: 5 }, (_, i) => [`bid${i + 1}`, `ask${i + 1}`, `bid_vol${i + 1}`, `ask_vol${i + 1}`] as const);
/**
 * An index row's line, written by hand: exactly JSON.stringify(row), several times faster.
 * The members and their order are the row's own (read once from the first row: every index
 * row has the same members in the same order); its strings need no escaping.
 */
let indexMembers: { readonly prefix: string; readonly name: string; readonly text: boolean }[] | null = null;
function indexLine(row: Record<string, unknown>): string {
  indexMembers ??= Object.keys(row).map((name) => ({ prefix: `,"${name}":`, name, text: typeof row[name] === 'string' }));
  parts.length = 0;
  parts.push('{"kind":"index"');
  for (let i = 1; i < indexMembers.length; i++) {
    const m = indexMembers[i];
    const v = row[m.name];
    parts.push(m.prefix, m.text ? `"${v as string}"` : num(v as number | null));
  }
  parts.push('}');
  return parts.join('');
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
  index(row: Record<string, unknown>, timeMs: number, rnd: () => number): void;
  /** Before a stock's snapshot: its tick market's events since the last one. */
  ticks(market: TickMarket, timeMs: number, priceCents: number, traded: number): void;
}

/** The market, day by day and slot by slot; yields after each slot so a caller can drain what it emitted. */
function* simulateMarket(opts: GenerateOptions, out: MarketEvents, tickRows?: TickRowSink): Generator<void> {
  const rnd = seededRandom(opts.seed);
  const stocks: StockState[] = Array.from({ length: opts.stocks }, (_, i) => {
    const p = Math.round((3 + rnd() * 97) * 100);
    return { symbol: stockCode(i), preCloseCents: p, priceCents: p, open: null, highCents: p, lowCents: p, volume: 0, amount: 0 };
  });
  const indexes: IndexState[] = Array.from({ length: opts.indexes }, (_, i) => {
    const l = round4(800 + rnd() * 12_000);
    return { symbol: indexCode(i), preClose: l, level: l, open: null, high: l, low: l, vol: 0, amount: 0, trades: 0 };
  });
  const indexSlotStart = SLOTS.findIndex((t) => t >= AUCTION_END);
  const snap = newStockSnap();
  for (const date of opts.days) {
    for (const s of stocks) Object.assign(s, { open: null, volume: 0, amount: 0 });
    for (const s of indexes) Object.assign(s, { open: null, vol: 0, amount: 0, trades: 0 });
    const markets = tickMarkets(opts, date, stocks, tickRows);
    for (let k = 0; k < SLOTS.length; k++) {
      for (let i = 0; i < stocks.length; i++) {
        const s = stocks[i];
        const volumeBefore = s.volume;
        const timeMs = SLOTS[k] + Math.floor(rnd() * 1000);
        const r = stockSnap(s, date, timeMs, rnd, snap);
        // The market gets what the snapshot traded since the last one, at its price (its close).
        if (markets) out.ticks(markets[i], timeMs, s.priceCents, s.volume - volumeBefore);
        out.stock(r, rnd);
      }
      if (k >= indexSlotStart) {
        for (const s of indexes) {
          const timeMs = SLOTS[k] + Math.floor(rnd() * 1000);
          out.index(indexRow(s, date, timeMs, rnd), timeMs, rnd);
        }
      }
      yield;
    }
    for (const s of stocks) s.preCloseCents = s.priceCents;
    for (const s of indexes) s.preClose = s.level;
  }
}

/** The market as JSON Lines (the feed `tickvault generate` writes). */
export function* generateFeed(opts: GenerateOptions): Generator<string> {
  const lines: string[] = [];
  const out: MarketEvents = {
    stock: (r, rnd) => pushWithFaults(lines, stockLine(r), () => stockObject(r), opts.faults, rnd),
    index: (row, _timeMs, rnd) => pushWithFaults(lines, indexLine(row), () => row, opts.faults, rnd),
    ticks: (market, timeMs, priceCents, traded) => {
      for (const l of market.linesUpTo(timeMs, priceCents, traded)) lines.push(l);
    },
  };
  for (const _ of simulateMarket(opts, out)) {
    yield* lines;
    lines.length = 0;
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
  const ixFields = SCHEMAS.index.valueFields.map((f) => (INDEX_ALWAYS_NULL.includes(f.name) ? null : f.name));
  const out: MarketEvents = {
    stock: (r) => sink.level2(r.symbol, r.date, r.timeMs, stockValues(r, l2)),
    index: (row, timeMs) => {
      for (let i = 0; i < ixFields.length; i++) {
        const name = ixFields[i];
        const v = name === null ? null : row[name];
        ix[i] = v === null || v === undefined ? NaN : (v as number);
      }
      sink.index(row.symbol as string, row.tradedate as string, timeMs, ix);
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
  return stocks.map((s) => new TickMarket({
    symbol: s.symbol, date, preCloseCents: s.preCloseCents, scale, faults: opts.faults,
    rnd: seededRandom(`${opts.seed}|ticks|${s.symbol}|${date}`), rows,
  }));
}

/** Adds a good line, before it (with probability `faults`) a bad line or a wrong duplicate made from its row. */
function pushWithFaults(lines: string[], line: string, row: () => Record<string, unknown>, faults: number, rnd: () => number): void {
  if (faults > 0 && rnd() < faults) {
    const good = row();
    if (rnd() < 0.5) {
      // A corrected re-send: the same key first with a wrong close, then the true row (later wins).
      lines.push(JSON.stringify({ ...good, close: 0.01 }));
    } else {
      lines.push(BAD_LINES[Math.floor(rnd() * BAD_LINES.length)](good));
    }
  }
  lines.push(line);
}
