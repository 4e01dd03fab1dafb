/**
 * The generator's orders and trades, checked by an independent reader of the feed lines:
 * every rule the sealed trade/order files are held to (sums to each snapshot, ids, the
 * orders behind each trade, auction, cancellations, exchange styles), plus counts, the
 * unchanged snapshot lines, determinism and faults.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { generateFeed, stockCode, type GenerateOptions } from '../../../ingest/feed/generate.js';
import { ms, T_0915, T_0920, T_0925, T_0930, T_1130, T_1300, T_1457, T_1500, check } from './tradingDayReference.js';

const TRADE_KEYS = ['kind', 'symbol', 'tradedate', 'time', 'trade_id', 'price', 'volume', 'amount', 'bs_flag', 'trade_code', 'buy_order_id', 'sell_order_id'];
const ORDER_KEYS = ['kind', 'symbol', 'tradedate', 'time', 'order_id', 'price', 'volume', 'amount', 'side', 'order_type', 'order_no'];

type Obj = Record<string, unknown>;

function timeMs(t: unknown): number {
  check(typeof t === 'string' && /^\d{9}$/.test(t), () => `time ${String(t)}`);
  const s = t as string;
  return ms(+s.slice(0, 2), +s.slice(2, 4), +s.slice(4, 6), +s.slice(6, 9));
}

/**
 * The earliest time an event behind the snapshot at `t` may carry, by the rules of the day:
 * the closing match's snapshot belongs to the closing auction (orders arrive until 15:00).
 */
function phaseStartOf(t: number): number {
  return t < T_0925 ? T_0915 : t < T_0930 ? T_0925 : t < T_1300 ? T_0930 : t < T_1457 ? T_1300 : T_1457;
}
const OPENING_MATCH = '092500000';
const CLOSING_MATCH = '150000000';

const cents = (yuan: number) => Math.round(yuan * 100);
const onCentGrid = (p: number) => Math.round(p * 100) / 100 === p;

interface Entry {
  readonly o: Obj;
  readonly at: number;
  readonly t: number;
}

interface DayFigures {
  trades: number;
  fills: number;
  orders: number;
  auctionTrades: number;
  closingTrades: number;
  cancels: number;
  partialFills: number;
  kinds: Set<string>;
}

/** Groups a feed's level2, trade and order rows by symbol-day, in feed order. */
function bySymbolDay(objs: readonly Obj[]): Map<string, Entry[]> {
  const m = new Map<string, Entry[]>();
  objs.forEach((o, at) => {
    if (o.kind !== 'level2' && o.kind !== 'trade' && o.kind !== 'order') return;
    const k = `${o.symbol}|${o.tradedate}`;
    let a = m.get(k);
    if (!a) m.set(k, (a = []));
    a.push({ o, at, t: timeMs(o.time) });
  });
  return m;
}

/** Checks every rule on one symbol-day's rows; returns its figures. */
function checkSymbolDay(key: string, rows: readonly Entry[]): DayFigures {
  const symbol = key.split('|')[0];
  const shenzhen = symbol.endsWith('.SZ');
  const snaps = rows.filter((e) => e.o.kind === 'level2');
  const trades = rows.filter((e) => e.o.kind === 'trade');
  const orders = rows.filter((e) => e.o.kind === 'order');
  const fig: DayFigures = {
    trades: trades.length,
    fills: 0,
    orders: orders.length,
    auctionTrades: 0,
    closingTrades: 0,
    cancels: 0,
    partialFills: 0,
    kinds: new Set(),
  };

  // Members, in order, and field values.
  for (const { o } of trades) {
    check(Object.keys(o).join() === TRADE_KEYS.join(), () => `${key}: trade members ${Object.keys(o).join()}`);
    check(
      Number.isInteger(o.trade_id) && Number.isInteger(o.volume) && (o.volume as number) > 0 && (o.volume as number) % 100 === 0,
      () => `${key}: trade ${JSON.stringify(o)}`,
    );
    if (o.trade_code === 'F') {
      const p = o.price as number;
      check(typeof p === 'number' && p > 0 && onCentGrid(p), () => `${key}: trade price ${JSON.stringify(o)}`);
      check(o.amount === Math.round((o.volume as number) * cents(p)) / 100, () => `${key}: trade amount ${JSON.stringify(o)}`);
      check(o.bs_flag === 'B' || o.bs_flag === 'S' || o.bs_flag === 'N', () => `${key}: bs_flag ${JSON.stringify(o)}`);
      check((o.bs_flag === 'N') === (o.time === OPENING_MATCH || o.time === CLOSING_MATCH), () => `${key}: N iff an auction match ${JSON.stringify(o)}`);
      check(Number.isInteger(o.buy_order_id) && Number.isInteger(o.sell_order_id), () => `${key}: trade ids ${JSON.stringify(o)}`);
    } else {
      check(o.trade_code === 'C' && shenzhen, () => `${key}: trade_code ${JSON.stringify(o)}`);
      check(o.price === 0 && o.amount === 0 && o.bs_flag === null, () => `${key}: cancellation record ${JSON.stringify(o)}`);
      check((o.buy_order_id === null) !== (o.sell_order_id === null), () => `${key}: one order in a cancellation ${JSON.stringify(o)}`);
    }
  }
  for (const { o } of orders) {
    check(Object.keys(o).join() === ORDER_KEYS.join(), () => `${key}: order members ${Object.keys(o).join()}`);
    const type = o.order_type as string;
    fig.kinds.add(type);
    check(
      Number.isInteger(o.order_id) && Number.isInteger(o.volume) && (o.volume as number) > 0 && (o.volume as number) % 100 === 0,
      () => `${key}: order ${JSON.stringify(o)}`,
    );
    check(o.side === 'B' || o.side === 'S', () => `${key}: side ${JSON.stringify(o)}`);
    check((shenzhen ? ['L', 'M', 'U'] : ['L', 'M', 'D']).includes(type), () => `${key}: order_type ${JSON.stringify(o)}`);
    if (type === 'L') check(typeof o.price === 'number' && o.price > 0 && onCentGrid(o.price), () => `${key}: limit price ${JSON.stringify(o)}`);
    if (type === 'M' || type === 'U') check(o.price === null, () => `${key}: ${type} has no price ${JSON.stringify(o)}`);
    const amount = !shenzhen && type === 'L' ? Math.round((o.volume as number) * cents(o.price as number)) / 100 : null;
    check(o.amount === amount, () => `${key}: order amount ${JSON.stringify(o)}`);
    if (shenzhen) check(o.order_no === null, () => `${key}: SZ order_no ${JSON.stringify(o)}`);
    else check(Number.isInteger(o.order_no) && o.order_no !== o.order_id, () => `${key}: order_no ${JSON.stringify(o)}`);
  }

  // Ids: unique, from 1, rising with time along the feed.
  for (const [list, id] of [
    [trades, 'trade_id'],
    [orders, 'order_id'],
  ] as const) {
    list.forEach((e, i) => {
      if (i === 0) return check(e.o[id] === 1, () => `${key}: first ${id} ${String(e.o[id])}`);
      const prev = list[i - 1];
      check((e.o[id] as number) > (prev.o[id] as number) && e.t >= prev.t, () => `${key}: ${id} ${String(e.o[id])} after ${String(prev.o[id])}`);
    });
  }

  // Each snapshot's trades and orders come right before it, inside its window (after the
  // previous snapshot, not before its phase), all F trades at its close.
  let prevSnap = -1;
  let window: Entry[] = [];
  for (const e of rows) {
    if (e.o.kind !== 'level2') {
      window.push(e);
      continue;
    }
    const lo = Math.max(prevSnap + 1, phaseStartOf(e.t));
    for (const w of window) {
      check(w.t >= lo && w.t <= e.t, () => `${key}: ${JSON.stringify(w.o)} outside the window of the snapshot at ${e.o.time}`);
      if (w.o.trade_code === 'F') check(w.o.price === e.o.close, () => `${key}: trade ${JSON.stringify(w.o)} not at the close ${e.o.close}`);
    }
    window = [];
    prevSnap = e.t;
  }
  check(window.length === 0, () => `${key}: ${window.length} rows after the last snapshot`);
  for (const e of [...trades, ...orders]) {
    const inPhase =
      (e.t >= T_0915 && e.t < T_0925) ||
      e.o.time === OPENING_MATCH ||
      (e.t >= T_0930 && e.t < T_1130) ||
      (e.t >= T_1300 && e.t < T_1500) ||
      e.o.time === CLOSING_MATCH;
    check(inPhase, () => `${key}: ${JSON.stringify(e.o)} outside the trading phases`);
  }

  // Trades up to each snapshot sum to its cumulative volume and amount (counted by time).
  const fills = trades.filter((e) => e.o.trade_code === 'F').sort((a, b) => a.t - b.t);
  fig.fills = fills.length;
  let i = 0;
  let volume = 0;
  let amountCents = 0;
  for (const s of snaps) {
    for (; i < fills.length && fills[i].t <= s.t; i++) {
      volume += fills[i].o.volume as number;
      amountCents += cents(fills[i].o.amount as number);
    }
    check(volume === s.o.volume, () => `${key} ${s.o.time}: trades sum to ${volume}, snapshot volume ${s.o.volume}`);
    check(
      Math.abs(amountCents - cents(s.o.amount as number)) <= 1,
      () => `${key} ${s.o.time}: trades sum to ${amountCents / 100}, snapshot amount ${s.o.amount}`,
    );
  }
  assert.is(i, fills.length, `${key}: trades after the last snapshot`);

  // The call auction's match: N trades at 09:25:00.000 sum to the first continuous snapshot's volume.
  const auction = fills.filter((e) => e.o.bs_flag === 'N' && e.t < T_0930);
  fig.auctionTrades = auction.length;
  const opening = snaps.find((s) => s.t >= T_0925)!;
  assert.is(
    auction.reduce((a, e) => a + (e.o.volume as number), 0),
    opening.o.volume,
    `${key}: auction match`,
  );

  // The closing call auction: no fill in [14:57:00.000, 15:00:00.000); every fill at or after
  // 15:00 is at 15:00:00.000, at one price, the close of the first snapshot at or after 15:00,
  // whose volume and amount are all the day's fills; the snapshots between 14:57 and 15:00
  // keep the last continuous snapshot's volume, amount, close, high and low.
  for (const e of fills) check(e.t < T_1457 || e.t >= T_1500, () => `${key}: a fill in the closing auction ${JSON.stringify(e.o)}`);
  const closing = fills.filter((e) => e.t >= T_1500);
  fig.closingTrades = closing.length;
  assert.ok(closing.length > 0, `${key}: no closing match`);
  const closeSnap = snaps.find((s) => s.t >= T_1500);
  assert.ok(closeSnap, `${key}: no snapshot at or after 15:00`);
  for (const e of closing) {
    check(e.o.time === CLOSING_MATCH && e.o.bs_flag === 'N', () => `${key}: closing fill ${JSON.stringify(e.o)} not N at 15:00:00.000`);
    check(e.o.price === closeSnap!.o.close, () => `${key}: closing fill ${JSON.stringify(e.o)} not at the close ${closeSnap!.o.close}`);
  }
  assert.is(
    fills.reduce((a, e) => a + (e.o.volume as number), 0),
    closeSnap!.o.volume,
    `${key}: the closing snapshot's volume is every fill's`,
  );
  const lastContinuous = snaps.filter((s) => s.t < T_1457).pop()!;
  const frozen = snaps.filter((s) => s.t >= T_1457 && s.t < T_1500);
  assert.ok(frozen.length >= 55, `${key}: ${frozen.length} closing-auction snapshots`);
  for (const s of frozen) {
    for (const f of ['volume', 'amount', 'close', 'high', 'low', 'open']) {
      check(
        s.o[f] === lastContinuous.o[f],
        () => `${key} ${s.o.time}: ${f} ${String(s.o[f])} moved from ${String(lastContinuous.o[f])} in the closing auction`,
      );
    }
  }
  const closingFillVolume = closing.reduce((a, e) => a + (e.o.volume as number), 0);
  assert.is(closingFillVolume, (closeSnap!.o.volume as number) - (lastContinuous.o.volume as number), `${key}: closing match`);

  // The orders behind each trade; fills and cancellations within each order's volume; a
  // cancelled remainder never trades. Walked in feed order, which the checks above tie to time.
  const byId = new Map<number, Entry>();
  const byNo = new Map<number, Entry>();
  const filled = new Map<number, number>();
  const cancelled = new Map<number, number>();
  const rest = (ord: Entry) => (ord.o.volume as number) - (filled.get(ord.o.order_id as number) ?? 0) - (cancelled.get(ord.o.order_id as number) ?? 0);
  for (const e of rows) {
    const o = e.o;
    if (o.kind === 'order') {
      if (o.order_type === 'D') {
        const orig = byNo.get(o.order_no as number);
        check(orig !== undefined, () => `${key}: deletion of an unknown order_no ${JSON.stringify(o)}`);
        check(orig!.o.side === o.side && orig!.o.price === o.price, () => `${key}: deletion ${JSON.stringify(o)} of ${JSON.stringify(orig!.o)}`);
        check(
          !cancelled.has(orig!.o.order_id as number) && rest(orig!) === o.volume,
          () => `${key}: deletion ${JSON.stringify(o)} is not the remainder ${rest(orig!)}`,
        );
        cancelled.set(orig!.o.order_id as number, o.volume as number);
        fig.cancels++;
      } else {
        check(!byId.has(o.order_id as number), () => `${key}: order_id ${String(o.order_id)} twice`);
        if (!shenzhen) {
          check(!byNo.has(o.order_no as number), () => `${key}: order_no ${String(o.order_no)} twice`);
          byNo.set(o.order_no as number, e);
        }
      }
      byId.set(o.order_id as number, e);
      continue;
    }
    if (o.kind !== 'trade') continue;
    if (o.trade_code === 'C') {
      const id = (o.buy_order_id ?? o.sell_order_id) as number;
      const ord = byId.get(id);
      check(ord !== undefined && ord.o.side === (o.buy_order_id !== null ? 'B' : 'S'), () => `${key}: cancellation ${JSON.stringify(o)} of a wrong order`);
      check(!cancelled.has(id) && rest(ord!) === o.volume, () => `${key}: cancellation ${JSON.stringify(o)} is not the remainder ${rest(ord!)}`);
      cancelled.set(id, o.volume as number);
      fig.cancels++;
      continue;
    }
    if (e.o.trade_code !== 'F') continue;
    for (const side of ['B', 'S'] as const) {
      const id = o[side === 'B' ? 'buy_order_id' : 'sell_order_id'] as number;
      const ord = byId.get(id);
      check(
        ord !== undefined && ord.o.side === side && ord.o.order_type !== 'D' && ord.t <= e.t,
        () => `${key}: trade ${JSON.stringify(o)} names ${side} order ${id}: ${JSON.stringify(ord?.o)}`,
      );
      check(!cancelled.has(id), () => `${key}: trade ${JSON.stringify(o)} after the cancellation of order ${id}`);
      check(rest(ord!) >= (o.volume as number), () => `${key}: order ${id} overfilled by ${JSON.stringify(o)}`);
      if (rest(ord!) > (o.volume as number) || (filled.get(id) ?? 0) > 0) fig.partialFills++;
      filled.set(id, (filled.get(id) ?? 0) + (o.volume as number));
      if (o.bs_flag === side) check(ord!.t === e.t, () => `${key}: aggressor ${JSON.stringify(ord!.o)} not placed at its trade ${JSON.stringify(o)}`);
      if (o.bs_flag === 'N' && o.time === OPENING_MATCH)
        check(ord!.t >= T_0915 && ord!.t < T_0925, () => `${key}: auction order ${JSON.stringify(ord!.o)} outside the auction`);
      if (o.bs_flag === 'N' && o.time === CLOSING_MATCH)
        check(ord!.t < T_1500, () => `${key}: closing auction order ${JSON.stringify(ord!.o)} placed at or after the match`);
    }
  }
  for (const e of orders) {
    if (e.o.order_type === 'D') continue;
    const id = e.o.order_id as number;
    check(rest(e) >= 0, () => `${key}: order ${id} filled ${filled.get(id)} + cancelled ${cancelled.get(id)} > ${String(e.o.volume)}`);
  }
  // Auction orders are cancelled only before 09:20; nothing is cancelled in the closing auction.
  // Orders keep arriving in the closing auction, limit orders only (no market orders there).
  let closingOrders = 0;
  for (const e of rows) {
    if ((e.o.order_type === 'D' || e.o.trade_code === 'C') && e.t < T_0925) check(e.t < T_0920, () => `${key}: auction cancellation at ${e.o.time}`);
    if ((e.o.order_type === 'D' || e.o.trade_code === 'C') && e.t >= T_1457) check(false, () => `${key}: closing-auction cancellation ${JSON.stringify(e.o)}`);
    if (e.o.kind === 'order' && e.t >= T_1457) {
      check(e.t < T_1500 && e.o.order_type === 'L', () => `${key}: closing-auction order ${JSON.stringify(e.o)}`);
      closingOrders++;
    }
  }
  assert.ok(closingOrders > 10, `${key}: ${closingOrders} orders in the closing auction`);
  return fig;
}

function checkFeed(objs: readonly Obj[]): Map<string, DayFigures> {
  const figures = new Map<string, DayFigures>();
  for (const [key, rows] of bySymbolDay(objs)) figures.set(key, checkSymbolDay(key, rows));
  return figures;
}

const sha = (ls: Iterable<string>) => {
  const h = createHash('sha256');
  for (const l of ls) h.update(l + '\n');
  return h.digest('hex');
};
const snapshotLines = (ls: readonly string[]) => ls.filter((l) => l.startsWith('{"kind":"level2"') || l.startsWith('{"kind":"index"'));
const isTick = (l: string) => l.startsWith('{"kind":"trade"') || l.startsWith('{"kind":"order"');

const DAYS = ['20250102', '20250103'];
// Seven stocks: stockCode covers .SH, .SZ and (the seventh) .BJ.
const OPTS: GenerateOptions = { days: DAYS, stocks: 7, indexes: 1, seed: 'tick-test', faults: 0, ticks: 1 };
const lines = [...generateFeed(OPTS)];
const objs = lines.map((l) => JSON.parse(l) as Obj);
/** Filled by the first test, which runs every check; the others read the figures. */
let figures = new Map<string, DayFigures>();

// ---------------------------------------------------------------------------------------------
const rules = suite('tick market: the rules, checked on the generated lines');

rules('every rule holds on every stock-day; each has trades and orders, on .SH, .SZ and .BJ', () => {
  figures = checkFeed(objs);
  assert.is(stockCode(6).slice(7), 'BJ', 'the seventh stock is the .BJ one');
  assert.is(figures.size, DAYS.length * OPTS.stocks);
  const exchanges = new Set([...figures.keys()].map((k) => k.slice(7, 9)));
  assert.equal([...exchanges].sort(), ['BJ', 'SH', 'SZ']);
  for (const [key, f] of figures) assert.ok(f.trades > 0 && f.orders > 0, key);
});

rules('per stock-day: a few thousand trades, 1.5–2× as many orders; auction matches, partial fills and cancellations all occur', () => {
  let auction = 0;
  let closing = 0;
  for (const [key, f] of figures) {
    assert.ok(f.trades >= 3000 && f.trades <= 7000, `${key}: ${f.trades} trades`);
    assert.ok(f.orders >= 1.4 * f.trades && f.orders <= 2.2 * f.trades, `${key}: ${f.orders} orders for ${f.trades} trades`);
    assert.ok(f.cancels > 100, `${key}: ${f.cancels} cancellations`);
    assert.ok(f.partialFills > 100, `${key}: ${f.partialFills} partial fills`);
    const want = key.includes('.SZ') ? ['L', 'M', 'U'] : ['D', 'L', 'M'];
    assert.equal([...f.kinds].sort(), want, key);
    auction += f.auctionTrades;
    closing += f.closingTrades;
  }
  assert.ok(auction > 0, 'some auction trades');
  assert.ok(closing > figures.size, `${closing} closing-auction trades`);
});

rules('hand-written lines are what JSON.stringify gives for the same object', () => {
  let n = 0;
  for (let i = 0; i < lines.length; i++) {
    if (!isTick(lines[i])) continue;
    check(JSON.stringify(objs[i]) === lines[i], () => `line ${i}: ${lines[i]}`);
    n++;
  }
  assert.ok(n > 100_000, `${n} tick lines`);
});

rules('the snapshot lines are byte for byte those without ticks', () => {
  const without = [...generateFeed({ ...OPTS, ticks: 0 })];
  assert.ok(without.every((l) => !isTick(l)));
  const mine = snapshotLines(lines);
  assert.is(mine.length, without.length);
  assert.is(sha(mine), sha(without));
  // Omitting ticks is the same as 0.
  const { ticks: _, ...noTicks } = OPTS;
  assert.is(sha(generateFeed(noTicks)), sha(without));
});

// ---------------------------------------------------------------------------------------------
const opts = suite('tick market: options');

const ONE: GenerateOptions = { days: ['20250102'], stocks: 2, indexes: 0, seed: 'tick-opts', faults: 0, ticks: 1 };

opts('same options, same bytes; another seed, other ticks', () => {
  const a = sha(generateFeed(ONE));
  assert.is(sha(generateFeed(ONE)), a);
  assert.is.not(sha(generateFeed({ ...ONE, seed: 'tick-opts-2' })), a);
});

opts('ticks 2 makes about twice the trades of ticks 1, still by the rules', () => {
  const count = (o: GenerateOptions) => {
    const f = checkFeed([...generateFeed(o)].map((l) => JSON.parse(l) as Obj));
    return [...f.values()].reduce((a, x) => a + x.trades, 0);
  };
  const one = count(ONE);
  const two = count({ ...ONE, ticks: 2 });
  assert.ok(two > 1.6 * one && two < 2.3 * one, `${two} trades at 2 vs ${one} at 1`);
});

opts('tickDays: only those days get trades and orders, and they are the same as when every day gets them', () => {
  const all = [...generateFeed({ ...ONE, days: DAYS })];
  const last = [...generateFeed({ ...ONE, days: DAYS, tickDays: [DAYS[1]] })];
  const dayOf = (l: string) => (JSON.parse(l) as Obj).tradedate;
  assert.ok(last.filter(isTick).every((l) => dayOf(l) === DAYS[1]));
  assert.equal(
    last.filter(isTick),
    all.filter((l) => isTick(l) && dayOf(l) === DAYS[1]),
  );
  assert.equal(snapshotLines(last), snapshotLines(all));
});

// ---------------------------------------------------------------------------------------------
const faults = suite('tick market: faults');

faults('bad lines of each kind, and corrected duplicates that the later line fixes', () => {
  // One SH, one SZ and the BJ stock need 7 stocks; one day is enough.
  const faulty = [...generateFeed({ ...ONE, stocks: 7, faults: 0.02 })];
  const seen = new Set<string>();
  const good: Obj[] = [];
  const latest = new Map<string, number>();
  let duplicates = 0;
  for (const l of faulty) {
    let o: Obj;
    try {
      o = JSON.parse(l) as Obj;
    } catch {
      seen.add('not JSON');
      continue;
    }
    if (o.kind !== 'trade' && o.kind !== 'order') {
      // The snapshots' own faults: keep the valid ones, later wins by time.
      if (o.kind !== 'level2' || !/^\d{6}\.(SH|SZ|BJ)$/.test(String(o.symbol)) || o.tradedate !== ONE.days[0] || !/^\d{9}$/.test(String(o.time))) continue;
      const k = `level2|${o.symbol}|${o.time}`;
      const prev = latest.get(k);
      if (prev === undefined) latest.set(k, good.push(o) - 1);
      else good[prev] = o;
      continue;
    }
    const idKey = o.kind === 'trade' ? 'trade_id' : 'order_id';
    const bad = !(idKey in o)
      ? `${o.kind}: missing ${idKey}`
      : !Number.isInteger(o[idKey])
        ? `${o.kind}: non-integer ${idKey}`
        : !/^\d{9}$/.test(String(o.time))
          ? `${o.kind}: bad time`
          : o.price !== null && typeof o.price !== 'number'
            ? `${o.kind}: price not a number`
            : o.kind === 'trade' && ![null, 'B', 'S', 'N'].includes(o.bs_flag as string)
              ? 'trade: bad bs_flag'
              : o.kind === 'order' && o.side !== 'B' && o.side !== 'S'
                ? 'order: bad side'
                : o.kind === 'order' && !['L', 'M', 'U', 'D'].includes(o.order_type as string)
                  ? 'order: bad order_type'
                  : null;
    if (bad) {
      seen.add(bad);
      continue;
    }
    // Later wins by id: a repeated id replaces the earlier row in place.
    const k = `${o.kind}|${o.symbol}|${o.tradedate}|${String(o[idKey])}`;
    const prev = latest.get(k);
    if (prev !== undefined) {
      duplicates++;
      assert.is(good[prev].volume, (o.volume as number) + 100, 'the first of a pair carries a wrong volume');
      assert.equal({ ...good[prev], volume: o.volume }, o, 'a duplicate differs only in its wrong volume');
      good[prev] = o;
    } else {
      latest.set(k, good.length);
      good.push(o);
    }
  }
  for (const kind of [
    'trade: missing trade_id',
    'trade: non-integer trade_id',
    'trade: bad time',
    'trade: price not a number',
    'trade: bad bs_flag',
    'order: missing order_id',
    'order: non-integer order_id',
    'order: bad time',
    'order: price not a number',
    'order: bad side',
    'order: bad order_type',
  ]) {
    assert.ok(seen.has(kind), `no bad line of the kind "${kind}" among ${[...seen].join(', ')}`);
  }
  assert.ok(duplicates > 100, `${duplicates} corrected duplicates`);
  // What the later-wins rule keeps is a coherent market again.
  const f = checkFeed(good);
  assert.is(f.size, 7);
});

rules.run();
opts.run();
faults.run();
