import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { generateFeed, generateFeedChunks, indexCode, seededRandom, stockCode, type GenerateOptions } from '../../../ingest/feed/generate.js';
import { generationDays } from '../../../cli/generateCommand.js';
import { ms, T_0915, T_0925, T_0930, T_1130, T_1300, T_1457, T_1500, check } from './tradingDayReference.js';

const lv = (p: string, from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `${p}${from + i}`);
const L2_PRICES = ['open', 'high', 'low', 'close', 'pre_close', ...lv('bid', 1, 10), ...lv('ask', 1, 10)];
const L2_VOLS = ['volume', ...lv('bid_vol', 1, 10), ...lv('ask_vol', 1, 10)];
const L2_DEEP = [...lv('bid', 2, 10), ...lv('ask', 2, 10), ...lv('bid_vol', 2, 10), ...lv('ask_vol', 2, 10)];
const L2_BIDS = lv('bid', 1, 10);
const L2_ASKS = lv('ask', 1, 10);
const IDX_BOOK = [...lv('bid', 1, 5), ...lv('ask', 1, 5), ...lv('bid_vol', 1, 5), ...lv('ask_vol', 1, 5)];

type Obj = Record<string, unknown>;

/** HHMMSSmmm → ms, parsed here by hand. */
function l2Ms(t: string): number {
  check(/^\d{9}$/.test(t), () => `level-2 time ${t}`);
  return ms(+t.slice(0, 2), +t.slice(2, 4), +t.slice(4, 6), +t.slice(6, 9));
}

/** YYYY-MM-DD HH:mm:ss.SSS → [YYYYMMDD, ms]. */
function idxTime(t: string): [string, number] {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})\.(\d{3})$/.exec(t);
  assert.ok(m, `index time ${t}`);
  return [m![1] + m![2] + m![3], ms(+m![4], +m![5], +m![6], +m![7])];
}

/** The day's last snapshot carries the closing match: in the second after 15:00:00.000 (its slot's jitter). */
const T_CLOSE_SNAPSHOT_END = ms(15, 0, 1);
const inSessions = (t: number) => (t >= T_0915 && t <= T_1130) || (t >= T_1300 && t < T_CLOSE_SNAPSHOT_END);
const inClosingAuction = (t: number) => t >= T_1457 && t < T_1500;
/**
 * Snapshots of a stock-day, counted here from the day's shape: every 3 s from 09:15:00 to
 * 09:25:00 inclusive, 09:30–11:30 and 13:00–14:57 (end exclusive), 14:57:00 to 15:00:00
 * inclusive; indexes skip the opening auction's rows before 09:25.
 */
const STOCK_ROWS_PER_DAY = 600 / 3 + 1 + 7200 / 3 + (7200 - 180) / 3 + 180 / 3 + 1;
const INDEX_ROWS_PER_DAY = STOCK_ROWS_PER_DAY - 600 / 3;
const onCentGrid = (p: number) => Math.round(p * 100) / 100 === p;

const DAYS = ['20250102', '20250103'];
const OPTS: GenerateOptions = { days: DAYS, stocks: 4, indexes: 2, seed: 'unit-test', faults: 0 };

const lines = [...generateFeed(OPTS)];
const objs = lines.map((l) => JSON.parse(l) as Obj);

function groupBy(kind: string): Map<string, Obj[]> {
  const m = new Map<string, Obj[]>();
  for (const o of objs) {
    if (o.kind !== kind) continue;
    const k = `${o.tradedate}|${o.symbol}`;
    let a = m.get(k);
    if (!a) m.set(k, (a = []));
    a.push(o);
  }
  return m;
}
const stockDays = groupBy('level2');
const indexDays = groupBy('index');

const sha = (ls: Iterable<string>) => {
  const h = createHash('sha256');
  for (const l of ls) h.update(l + '\n');
  return h.digest('hex');
};

// ---------------------------------------------------------------------------------------------
const det = suite('generateFeed: determinism');

const SMALL: GenerateOptions = { days: ['20250102'], stocks: 2, indexes: 1, seed: 'det', faults: 0 };

det('same seed, same lines (also with faults)', () => {
  const a = [...generateFeed(SMALL)];
  assert.is(sha(generateFeed(SMALL)), sha(a));
  const f = { ...SMALL, faults: 0.02 };
  assert.is(sha(generateFeed(f)), sha(generateFeed(f)));
  // a prefix of the days is a prefix of the feed: the first day does not depend on later ones
  const two = [...generateFeed({ ...SMALL, days: ['20250102', '20250103'] })];
  assert.equal(two.slice(0, a.length), a);
});

det('a different seed gives different lines', () => {
  const a = [...generateFeed(SMALL)];
  const other = [...generateFeed({ ...SMALL, seed: 'det-2' })];
  assert.is.not(sha(other), sha(a));
  // …but the same shape: same line count
  assert.is(other.length, a.length);
});

det('seededRandom is a stable stream in [0, 1)', () => {
  const a = seededRandom('abc');
  const b = seededRandom('abc');
  const c = seededRandom('abd');
  const xs = Array.from({ length: 1000 }, () => a());
  assert.equal(
    Array.from({ length: 1000 }, () => b()),
    xs,
  );
  assert.not.equal(
    Array.from({ length: 1000 }, () => c()),
    xs,
  );
  for (const x of xs) assert.ok(x >= 0 && x < 1);
  const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
  assert.ok(mean > 0.45 && mean < 0.55, `mean ${mean}`);
});

// ---------------------------------------------------------------------------------------------
const text = suite('generateFeed: the text of its lines');

text('every JSON line is exactly JSON.stringify of what it parses to (numbers in String(n) form, member order kept)', () => {
  const feed = [...generateFeed({ days: DAYS, stocks: 9, indexes: 4, seed: 'text-form', faults: 0.01, ticks: 1 })];
  let checked = 0;
  for (const l of feed) {
    let o: unknown;
    try {
      o = JSON.parse(l);
    } catch {
      continue; // an injected bad line
    }
    if (JSON.stringify(o) !== l) assert.is(l, JSON.stringify(o));
    checked++;
  }
  assert.ok(checked > feed.length * 0.99 && checked > 200_000, `${checked} of ${feed.length} lines`);
});

text('the chunks are the same lines, whole, and count them per kind by their start', () => {
  const o: GenerateOptions = { days: DAYS, stocks: 5, indexes: 3, seed: 'chunks', faults: 0.02, ticks: 1 };
  const chunks = [...generateFeedChunks(o, 64 << 10)];
  assert.ok(chunks.length > 100, `${chunks.length} chunks`);
  const joined = Buffer.concat(chunks.map((c) => c.bytes)).toString('latin1');
  const lines = [...generateFeed(o)];
  assert.is(joined, lines.join('\n') + '\n');
  const want = ['level2', 'index', 'trade', 'order'].map((k) => lines.filter((l) => l.startsWith(`{"kind":"${k}"`)).length);
  const got = [0, 1, 2, 3].map((k) => chunks.reduce((n, c) => n + c.perKind[k], 0));
  assert.equal(got, want);
  assert.is(
    chunks.reduce((n, c) => n + c.lines, 0),
    lines.length,
  );
});

/**
 * The SHA-256 of feeds as `tickvault generate` writes them: a seed keeps giving the same feed
 * across builds, so a feed regenerated today replays into the same lake as one kept from then.
 * Renewed at 1c29501 (the closing call auction, issue 49): the first day's lines before 14:57
 * of golden-a (without faults) and golden-b were checked then to be those the build before
 * (whose hashes had held since b036224) wrote, less golden-a's 11 orders and trades of
 * 14:56:57–14:57 that the first closing-auction snapshot no longer carries.
 */
text('the same feed as earlier builds wrote for these seeds', () => {
  const cases: [GenerateOptions, string][] = [
    [
      { days: ['20250102', '20250103'], stocks: 7, indexes: 3, ticks: 1, faults: 0.02, seed: 'golden-a' },
      'c8a2298174811d5fc9b83df13b70d9ffe38983b45ad416347ebb37c4d92da618',
    ],
    [
      { days: ['20250102'], stocks: 30, indexes: 10, ticks: 0, faults: 0, seed: 'golden-b' },
      '5f27c9352bf678dba0d2315c848df9e96cec5523f9b1afbf06b39ae63fce4ba8',
    ],
    [
      { days: ['20250102', '20250103', '20250106'], stocks: 5, indexes: 2, ticks: 2, faults: 0, seed: 'tickvault' },
      '9ca3f53bf7f268ef4e716e33d15a4e6a06dfe62059cac11c508181c38a8b7d4d',
    ],
  ];
  for (const [o, want] of cases) {
    const h = createHash('sha256');
    for (const c of generateFeedChunks(o)) h.update(c.bytes);
    assert.is(h.digest('hex'), want, o.seed);
  }
});

// ---------------------------------------------------------------------------------------------
const codes = suite('stockCode / indexCode');

codes('stock codes are canonical and their exchange matches the code', () => {
  assert.is(stockCode(0), '600000.SH');
  assert.is(stockCode(1), '000001.SZ');
  const seen = new Set<string>();
  for (let i = 0; i < 200; i++) {
    const s = stockCode(i);
    assert.match(s, /^\d{6}\.(SH|SZ|BJ)$/);
    const d = s[0];
    const ex = s.slice(7);
    const want = s.startsWith('92') || d === '4' || d === '8' ? 'BJ' : d === '6' || d === '9' ? 'SH' : 'SZ';
    assert.is(ex, want, s);
    assert.not.ok(seen.has(s), `duplicate ${s}`);
    seen.add(s);
  }
  assert.ok(
    [...seen].some((s) => s.endsWith('.BJ')),
    'BJ codes appear',
  );
});

codes('index codes are six digits and distinct', () => {
  assert.is(indexCode(0), '000001');
  assert.is(indexCode(1), '000300');
  assert.is(indexCode(2), '399001');
  const seen = new Set<string>();
  for (let i = 0; i < 200; i++) {
    const s = indexCode(i);
    assert.match(s, /^\d{6}$/);
    assert.not.ok(seen.has(s), `duplicate ${s}`);
    seen.add(s);
  }
});

// ---------------------------------------------------------------------------------------------
const shape = suite('generateFeed: shape of a level-2 stock-day');

/** Times (ms) of each stock-day's rows, parsed once. */
const stockTimes = new Map([...stockDays].map(([k, rows]) => [k, rows.map((r) => l2Ms(r.time as string))]));

shape('every line is a JSON object of a known kind for a requested day', () => {
  for (const o of objs) {
    check(o.kind === 'level2' || o.kind === 'index', () => `kind ${String(o.kind)}`);
    check(DAYS.includes(o.tradedate as string), () => `tradedate ${String(o.tradedate)}`);
  }
  assert.is(stockDays.size, DAYS.length * OPTS.stocks);
  assert.is(indexDays.size, DAYS.length * OPTS.indexes);
  for (let i = 0; i < OPTS.stocks; i++) for (const d of DAYS) assert.ok(stockDays.has(`${d}|${stockCode(i)}`));
  for (let i = 0; i < OPTS.indexes; i++) for (const d of DAYS) assert.ok(indexDays.has(`${d}|${indexCode(i)}`));
});

shape('~4,800–5,100 rows per stock-day, strictly increasing times at ~3 s steps with ms jitter', () => {
  const segment = (t: number) => (t < ms(9, 26) ? 0 : t < T_1300 ? 1 : 2);
  for (const [key, times] of stockTimes) {
    assert.ok(times.length >= 4800 && times.length <= 5100, `${key}: ${times.length} rows`);
    for (let i = 1; i < times.length; i++) {
      check(times[i] > times[i - 1], () => `${key}: time goes back at row ${i}`);
      if (segment(times[i]) === segment(times[i - 1])) {
        const gap = times[i] - times[i - 1];
        check(gap > 2000 && gap < 4000, () => `${key}: gap ${gap} ms at row ${i}`);
      }
    }
    const msParts = new Set(times.map((t) => t % 1000));
    assert.ok(msParts.size > 500, `${key}: only ${msParts.size} distinct millisecond parts`);
  }
});

shape('rows only inside 09:15–11:30 and 13:00–15:00, and both sessions are covered', () => {
  for (const [key, times] of stockTimes) {
    for (const t of times) check(inSessions(t), () => `${key}: time ${t} outside the sessions`);
    assert.ok(times[0] < ms(9, 15, 3), `${key}: starts at 09:15`);
    assert.ok(
      times.some((t) => t >= ms(11, 29, 50)),
      `${key}: reaches 11:30`,
    );
    assert.ok(
      times.some((t) => t >= T_1300 && t < ms(13, 0, 5)),
      `${key}: restarts at 13:00`,
    );
    assert.ok(times[times.length - 1] >= T_1500, `${key}: reaches 15:00`);
  }
});

shape('call-auction rows before 09:25: level 1 carries the match, levels 2–10 are null', () => {
  for (const [key, rows] of stockDays) {
    const times = stockTimes.get(key)!;
    const auction = rows.filter((_, i) => times[i] < T_0925);
    assert.ok(auction.length >= 190 && auction.length <= 210, `${key}: ${auction.length} auction rows`);
    for (const r of auction) {
      for (const f of ['bid1', 'ask1', 'bid_vol1', 'ask_vol1']) check(typeof r[f] === 'number', () => `${key} ${r.time} ${f}`);
      for (const f of L2_DEEP) check(r[f] === undefined || r[f] === null, () => `${key} ${r.time} ${f} = ${String(r[f])}`);
    }
  }
});

shape('rows from 09:25 on: open/high/low/close set, low <= close <= high; outside the closing auction the book sorted and not crossed', () => {
  for (const [key, rows] of stockDays) {
    const times = stockTimes.get(key)!;
    rows.forEach((r, i) => {
      if (times[i] < T_0925) return;
      for (const f of ['open', 'high', 'low', 'close', 'pre_close', 'volume', 'amount']) {
        check(typeof r[f] === 'number', () => `${key} ${r.time} ${f}`);
      }
      const [lo, hi, c, o] = [r.low, r.high, r.close, r.open] as number[];
      check(lo <= c && c <= hi && lo <= o && o <= hi, () => `${key} ${r.time}: low/open/close/high ${lo}/${o}/${c}/${hi}`);
      if (inClosingAuction(times[i])) return;
      const bids = L2_BIDS.map((f) => r[f]).filter((v): v is number => typeof v === 'number');
      const asks = L2_ASKS.map((f) => r[f]).filter((v): v is number => typeof v === 'number');
      for (let j = 1; j < bids.length; j++) check(bids[j] < bids[j - 1], () => `${key} ${r.time}: bids descend`);
      for (let j = 1; j < asks.length; j++) check(asks[j] > asks[j - 1], () => `${key} ${r.time}: asks ascend`);
      if (bids.length && asks.length) check(bids[0] < asks[0], () => `${key} ${r.time}: crossed book`);
    });
  }
});

shape('the closing auction 14:57–15:00: frozen rows with level 1 only, then one row carrying the match and the close', () => {
  for (const [key, rows] of stockDays) {
    const times = stockTimes.get(key)!;
    assert.is(rows.length, STOCK_ROWS_PER_DAY, key);
    const lastContinuous = rows[times.findIndex((t) => t >= T_1457) - 1];
    assert.ok(l2Ms(lastContinuous.time as string) < T_1457, key);
    const auction = rows.filter((_, i) => inClosingAuction(times[i]));
    assert.is(auction.length, 180 / 3, `${key}: closing-auction rows`);
    for (const r of auction) {
      // Nothing trades: last price, high, low, volume and amount stay those of 14:57's last continuous row.
      for (const f of ['open', 'high', 'low', 'close', 'pre_close', 'volume', 'amount']) {
        check(r[f] === lastContinuous[f], () => `${key} ${r.time}: ${f} ${String(r[f])}, was ${String(lastContinuous[f])}`);
      }
      // As in the opening auction: level 1 carries the indicative match (one price both sides), levels 2–10 null.
      check(typeof r.bid1 === 'number' && r.bid1 === r.ask1, () => `${key} ${r.time}: indicative bid1 ${r.bid1} ask1 ${r.ask1}`);
      check(Number.isInteger(r.bid_vol1) && (r.ask_vol1 as number) >= (r.bid_vol1 as number), () => `${key} ${r.time}: indicative volumes`);
      for (const f of L2_DEEP) check(r[f] === undefined || r[f] === null, () => `${key} ${r.time} ${f} = ${String(r[f])}`);
    }
    const after = rows.filter((_, i) => times[i] >= T_1500);
    assert.is(after.length, 1, `${key}: one row at or after 15:00`);
    const close = after[0];
    assert.ok(l2Ms(close.time as string) < T_CLOSE_SNAPSHOT_END, `${key}: the close at ${close.time}`);
    assert.ok((close.volume as number) > (lastContinuous.volume as number), `${key}: the closing match trades`);
    assert.ok((close.amount as number) > (lastContinuous.amount as number), `${key}: the closing match's amount`);
    // The match is at the last indicative price, which becomes the close.
    assert.is(close.close, auction[auction.length - 1].bid1, `${key}: close`);
    const matched = (close.volume as number) - (lastContinuous.volume as number);
    const amount = Math.round(((close.amount as number) - (lastContinuous.amount as number)) * 100) / 100;
    assert.ok(
      Math.abs(amount - Math.round(matched * (close.close as number) * 100) / 100) <= 0.011,
      `${key}: match amount ${amount} for ${matched} at ${close.close}`,
    );
    assert.is(close.high, Math.max(lastContinuous.high as number, close.close as number), `${key}: high`);
    assert.is(close.low, Math.min(lastContinuous.low as number, close.close as number), `${key}: low`);
    assert.ok(typeof close.bid10 === 'number' || typeof close.ask10 === 'number', `${key}: the close's book has ten levels again`);
  }
});

shape('cumulative volume and amount never decrease within a stock-day', () => {
  for (const [key, rows] of stockDays) {
    let v = 0;
    let a = 0;
    for (const r of rows) {
      if (typeof r.volume === 'number') {
        check(r.volume >= v, () => `${key} ${r.time}: volume ${r.volume} < ${v}`);
        v = r.volume;
      }
      if (typeof r.amount === 'number') {
        check(r.amount >= a, () => `${key} ${r.time}: amount ${r.amount} < ${a}`);
        a = r.amount;
      }
    }
    assert.ok(v > 0 && a > 0, `${key}: something traded`);
  }
});

shape('prices and amounts on the 0.01 grid; volumes whole numbers', () => {
  for (const [key, rows] of stockDays) {
    for (const r of rows) {
      for (const f of L2_PRICES) {
        const p = r[f];
        if (p === undefined || p === null) continue;
        check(typeof p === 'number' && onCentGrid(p) && p > 0, () => `${key} ${r.time} ${f} = ${String(p)}`);
      }
      if (typeof r.amount === 'number') check(onCentGrid(r.amount), () => `${key} ${r.time} amount ${r.amount}`);
      for (const f of L2_VOLS) {
        const v = r[f];
        if (v === undefined || v === null) continue;
        check(Number.isInteger(v) && (v as number) >= 0, () => `${key} ${r.time} ${f} = ${String(v)}`);
      }
    }
  }
});

shape("the next day's pre_close is the previous day's last close", () => {
  for (let i = 0; i < OPTS.stocks; i++) {
    const d1 = stockDays.get(`${DAYS[0]}|${stockCode(i)}`)!;
    const d2 = stockDays.get(`${DAYS[1]}|${stockCode(i)}`)!;
    const lastClose = [...d1].reverse().find((r) => typeof r.close === 'number')!.close;
    for (const r of d2) check(r.pre_close === lastClose, () => `${stockCode(i)} ${r.time}: pre_close ${r.pre_close} != ${lastClose}`);
    // volume restarts at the new day
    assert.is(d2[0].volume, 0);
  }
});

// ---------------------------------------------------------------------------------------------
const idx = suite('generateFeed: index rows');

idx('times inside the sessions, date equal to tradedate, ~3 s steps', () => {
  for (const [key, rows] of indexDays) {
    assert.ok(rows.length >= 4700 && rows.length <= 5100, `${key}: ${rows.length} rows`);
    let last = -1;
    for (const r of rows) {
      const [date, t] = idxTime(r.time as string);
      check(date === r.tradedate, () => `${key}: date of ${r.time}`);
      check(inSessions(t), () => `${key}: ${r.time} outside the sessions`);
      check(t > last, () => `${key}: time goes back at ${r.time}`);
      if (last >= T_0930 && t < T_1130) check(t - last > 2000 && t - last < 4000, () => `${key}: gap at ${r.time}`);
      last = t;
    }
  }
});

idx('five book levels, transaction_num an integer (or null) that never decreases', () => {
  for (const [key, rows] of indexDays) {
    let lastTx = 0;
    let nonNullTx = 0;
    for (const r of rows) {
      check(/^\d{6}$/.test(r.symbol as string), () => `${key}: symbol ${r.symbol}`);
      for (const f of IDX_BOOK) check(typeof r[f] === 'number', () => `${key} ${r.time} ${f}`);
      for (const f of ['bid6', 'ask6', 'bid_vol6', 'ask_vol6']) check(r[f] === undefined, () => `${key}: no level 6`);
      for (const f of ['open', 'high', 'low', 'close', 'vol', 'amount']) check(typeof r[f] === 'number', () => `${key} ${r.time} ${f}`);
      const tx = r.transaction_num;
      if (tx !== null) {
        check(Number.isSafeInteger(tx) && (tx as number) >= lastTx, () => `${key} ${r.time}: transaction_num ${String(tx)} after ${lastTx}`);
        lastTx = tx as number;
        nonNullTx++;
      }
    }
    assert.ok(nonNullTx > rows.length * 0.95, `${key}: transaction_num mostly present`);
    assert.ok(lastTx > 0);
  }
});

idx('the closing auction: no constituent trades, so the index stands still from 14:57 until its 15:00 row', () => {
  for (const [key, rows] of indexDays) {
    assert.is(rows.length, INDEX_ROWS_PER_DAY, key);
    const times = rows.map((r) => idxTime(r.time as string)[1]);
    const lastContinuous = rows[times.findIndex((t) => t >= T_1457) - 1];
    const frozen = rows.filter((_, i) => inClosingAuction(times[i]));
    assert.is(frozen.length, 180 / 3, key);
    for (const r of frozen) {
      for (const f of ['open', 'high', 'low', 'close', 'vol', 'amount']) {
        check(r[f] === lastContinuous[f], () => `${key} ${r.time}: ${f} ${String(r[f])}, was ${String(lastContinuous[f])}`);
      }
    }
    const last = rows[rows.length - 1];
    assert.ok(times[times.length - 1] >= T_1500, `${key}: a row at 15:00`);
    assert.ok((last.vol as number) > (lastContinuous.vol as number), `${key}: the close moves the index again`);
  }
});

idx('cumulative vol and amount never decrease; low <= close <= high', () => {
  for (const [key, rows] of indexDays) {
    let v = 0;
    let a = 0;
    for (const r of rows) {
      const [lo, hi, c] = [r.low, r.high, r.close] as number[];
      check(lo <= c && c <= hi, () => `${key} ${r.time}`);
      check((r.vol as number) >= v && (r.amount as number) >= a, () => `${key} ${r.time}: cumulative`);
      v = r.vol as number;
      a = r.amount as number;
    }
  }
});

// ---------------------------------------------------------------------------------------------
const faults = suite('generateFeed: faults');

faults('faults add bad lines and corrected duplicates on top of the good rows', () => {
  const faulty = [...generateFeed({ ...OPTS, days: [DAYS[0]], stocks: 3, indexes: 2, faults: 0.05 })];
  let notJson = 0;
  const keys = new Map<string, number>();
  for (const l of faulty) {
    let o: Obj;
    try {
      o = JSON.parse(l) as Obj;
    } catch {
      notJson++;
      continue;
    }
    const k = `${o.kind}|${o.symbol}|${o.tradedate}|${o.time}`;
    keys.set(k, (keys.get(k) ?? 0) + 1);
  }
  assert.ok(notJson > 0, 'some lines are not JSON');
  const dups = [...keys.values()].filter((n) => n > 1).length;
  assert.ok(dups > 50, `corrected duplicates: ${dups}`);
  const clean = 3 * STOCK_ROWS_PER_DAY + 2 * INDEX_ROWS_PER_DAY;
  assert.ok(faulty.length > clean * 1.03 && faulty.length < clean * 1.08, `${faulty.length} lines vs ${clean} clean`);
});

faults('a corrected duplicate comes first with a wrong close, the true row after it', () => {
  const faulty = [...generateFeed({ ...OPTS, days: [DAYS[0]], stocks: 2, indexes: 1, faults: 0.05 })].flatMap((l) => {
    try {
      return [JSON.parse(l) as Obj];
    } catch {
      return [];
    }
  });
  let checked = 0;
  for (let i = 1; i < faulty.length; i++) {
    const a = faulty[i - 1];
    const b = faulty[i];
    if (a.kind === b.kind && a.symbol === b.symbol && a.time === b.time && a.close === 0.01 && b.close !== 0.01) {
      assert.equal({ ...a, close: b.close }, b);
      checked++;
    }
  }
  assert.ok(checked > 10, `${checked} corrected duplicates`);
});

// ---------------------------------------------------------------------------------------------
const days = suite('generationDays (generate --from/--days)');

days('from a trading day on, skipping weekends and the Spring Festival closure', () => {
  assert.equal(generationDays('20250102', 3, 0), ['20250102', '20250103', '20250106']);
  assert.equal(generationDays('20250125', 3, 0), ['20250127', '20250205', '20250206']);
  assert.equal(generationDays('20250127', 2, 0), ['20250127', '20250205']);
});

days('without --from: the N latest trading days up to the clock', () => {
  const now = Date.parse('2025-02-10T16:30:00+08:00');
  assert.equal(generationDays(undefined, 3, now), ['20250206', '20250207', '20250210']);
  const sunday = Date.parse('2025-02-09T12:00:00+08:00');
  assert.equal(generationDays(undefined, 2, sunday), ['20250206', '20250207']);
});

days('a bad --from is a usage error', () => {
  assert.throws(() => generationDays('2025-01-02', 1, 0), /--from/);
  assert.throws(() => generationDays('20251340', 1, 0), /--from/);
});

det.run();
text.run();
codes.run();
shape.run();
idx.run();
faults.run();
days.run();
