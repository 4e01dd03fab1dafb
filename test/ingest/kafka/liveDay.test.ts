/**
 * The live day end to end (api-contract: The live day): a real Kafka-protocol broker (kcat's
 * mock cluster, or KAFKA_BROKERS), one data directory, `tickvault ingest` and two `tickvault
 * serve` processes over it, every clock inside the session of 20250102. The expected answers
 * are computed here from the messages produced, by the feed's duplicate rule (a snapshot per
 * time, a trade or order per id, the later message winning), sorted by time then id.
 *
 *   1. The morning of four stocks (snapshots, trades, orders, with corrected duplicates):
 *      every detailed interface on both servers answers exactly its rows, live, no version.
 *   2. A SIGKILL of the ingestor while it consumes a paced burst of trades. There is no test
 *      hook: once the recorded offsets pass a random point of the burst, ingest.db is polled
 *      for a second (many group commits), and no poll finds more committed records than
 *      recorded offsets (a row is visible only once its offset is durably recorded); then the
 *      kill, wherever a group commit stands. Each stock's served rows are then its morning
 *      and a prefix of its burst, and exactly the records ingest.db's committed lengths
 *      cover, nothing past them. Restarted, the ingestor consumes again what it had not
 *      recorded, and every produced row is served once.
 *   3. A server restarted mid-day answers, at its first request, what the other answers.
 *   4. The afternoon, then the ingestor restarted past the close plus grace seals the day:
 *      the sealed answers (no `live`, a version) equal the last live ones, item for item, on
 *      every detailed interface and on tick_history's stock modes (compatible, enhanced, a
 *      window, the boundary of every stock, and stock-god's 09:25 poll of its stocks).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { existsSync, statSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import Database from 'better-sqlite3';
import { CompressionTypes, Kafka, logLevel, Partitioners, type Producer } from 'kafkajs';
import { brokerForTests, uniqueTopicPrefix } from '../../support/kafkaBroker.js';
import { exited, startCli } from '../../support/cli.js';
import { addAccount, postApi, startServer, startServers, type ServerHandle } from '../../support/server.js';
import { tempDir } from '../../support/tempDir.js';
import { recordBytes } from '../../../storage/staging/recordCodec.js';
import { rowTextRelPath } from '../../../storage/layout.js';

const broker = await brokerForTests('live day end-to-end tests (Kafka)');

const DAY = '20250102';
const DURING = '2025-01-02T14:00:00+08:00';
/** Past the close plus the hour's grace: the ingestor seals the day once caught up. */
const AFTER_GRACE = '2025-01-02T16:30:00+08:00';
const SYMBOLS = ['600000.SH', '600519.SH', '000001.SZ', '300750.SZ'] as const;
const BURST_PER_SYMBOL = 4000;

type Kind = 'level2' | 'trade' | 'order';
const KINDS: readonly Kind[] = ['level2', 'trade', 'order'];
const API: Readonly<Record<Kind, string>> = { level2: 'level2_quote_history', trade: 'level2_trade_history', order: 'level2_order_history' };
const ID: Readonly<Record<Kind, string | null>> = { level2: null, trade: 'trade_id', order: 'order_id' };

/** A message as produced: the field table's names (api-contract: The feed), without `kind`. */
type Msg = Record<string, string | number | null>;

interface Produced {
  readonly kind: Kind;
  readonly msg: Msg;
}

interface Page {
  readonly code: number;
  readonly message: string;
  readonly data: { fields: string[]; items: unknown[][]; next_cursor: string | null; has_more: boolean; live?: boolean; version?: number };
}

/** HHMMSSmmm of ms since midnight. */
function hhmmss(ms: number): string {
  const p = (n: number, w: number) => String(n).padStart(w, '0');
  return `${p(Math.floor(ms / 3_600_000), 2)}${p(Math.floor(ms / 60_000) % 60, 2)}${p(Math.floor(ms / 1000) % 60, 2)}${p(ms % 1000, 3)}`;
}

const at = (h: number, m: number, s = 0, ms = 0) => ((h * 60 + m) * 60 + s) * 1000 + ms;
const cents = (x: number) => Math.round(x * 100) / 100;

function snapshot(symbol: string, k: number, timeMs: number, i: number): Msg {
  const close = cents(10 + k + i * 0.01);
  return {
    symbol,
    tradedate: DAY,
    time: hhmmss(timeMs),
    open: 10 + k,
    high: close + 0.05,
    low: 10 + k - 0.05,
    close,
    pre_close: 10 + k,
    volume: 100 * (i + 1),
    amount: cents(close * 100 * (i + 1)),
    bid1: cents(close - 0.01),
    ask1: cents(close + 0.01),
    bid_vol1: 1000 + i,
    ask_vol1: 2000 + i,
  };
}

function trade(symbol: string, k: number, timeMs: number, id: number): Msg {
  const price = cents(10 + k + (id % 50) * 0.01);
  return {
    symbol,
    tradedate: DAY,
    time: hhmmss(timeMs),
    trade_id: id,
    price,
    volume: 100 * (1 + (id % 7)),
    amount: cents(price * 100 * (1 + (id % 7))),
    bs_flag: 'BSN'[id % 3],
    trade_code: 'F',
    buy_order_id: 2 * id,
    sell_order_id: 2 * id + 1,
  };
}

function order(symbol: string, k: number, timeMs: number, id: number): Msg {
  return {
    symbol,
    tradedate: DAY,
    time: hhmmss(timeMs),
    order_id: id,
    price: cents(10 + k + (id % 30) * 0.01),
    volume: 100 * (1 + (id % 5)),
    amount: null,
    side: 'BS'[id % 2],
    order_type: 'LM'[id % 2],
    order_no: 1_000_000 + id,
  };
}

/**
 * Fifty minutes of each stock: a snapshot every 30 s, trades and orders in pairs sharing a
 * time (sent higher id first, so the id orders them), and per kind one corrected duplicate
 * sent after the rest (a snapshot's close, a trade's price, an order's volume and time).
 */
function session(fromMs: number, firstId: number, salt: number): Produced[] {
  const out: Produced[] = [];
  SYMBOLS.forEach((symbol, k) => {
    for (let i = 0; i < 100; i++) out.push({ kind: 'level2', msg: snapshot(symbol, k, fromMs + i * 30_000, i + salt) });
    const pairAt = (i: number) => fromMs + i * 20_000 + k;
    for (let i = 0; i < 150; i += 2) {
      out.push({ kind: 'trade', msg: trade(symbol, k, pairAt(i), firstId + i + 1) }, { kind: 'trade', msg: trade(symbol, k, pairAt(i), firstId + i) });
      out.push({ kind: 'order', msg: order(symbol, k, pairAt(i) + 7, firstId + i + 1) }, { kind: 'order', msg: order(symbol, k, pairAt(i) + 7, firstId + i) });
    }
    const l2 = snapshot(symbol, k, fromMs + 30 * 30_000, 30 + salt);
    out.push({ kind: 'level2', msg: { ...l2, close: cents(Number(l2.close) + 1) } });
    const tr = trade(symbol, k, pairAt(10), firstId + 10);
    out.push({ kind: 'trade', msg: { ...tr, price: cents(Number(tr.price) + 0.5) } });
    // A correction may move an order: it is then sorted at its new time.
    out.push({ kind: 'order', msg: { ...order(symbol, k, pairAt(20) + 8, firstId + 20), volume: 99_900 } });
  });
  return out;
}

/** The rows the messages so far resolve to, per kind and symbol: later wins per key, sorted by time then id. */
function expected(produced: readonly Produced[]): Map<string, Msg[]> {
  const byKey = new Map<string, Map<string, Msg>>();
  for (const { kind, msg } of produced) {
    const group = `${kind}|${String(msg.symbol)}`;
    let rows = byKey.get(group);
    if (!rows) byKey.set(group, (rows = new Map()));
    const idName = ID[kind];
    rows.set(idName === null ? String(msg.time) : String(msg[idName]), msg);
  }
  const out = new Map<string, Msg[]>();
  for (const [group, rows] of byKey) {
    const idName = ID[group.split('|')[0] as Kind];
    const sorted = [...rows.values()].sort((a, b) => {
      if (a.time !== b.time) return String(a.time) < String(b.time) ? -1 : 1;
      return idName === null ? 0 : Number(a[idName]) - Number(b[idName]);
    });
    out.set(group, sorted);
  }
  return out;
}

/** A message as an answer's item: its value of each field asked for, null when absent. */
const asItem = (fields: readonly string[], msg: Msg) => fields.map((f) => msg[f] ?? null);

// ---- processes ------------------------------------------------------------------------------

interface Ingest {
  readonly child: ChildProcess;
  readonly dataDir: string;
  readonly logs: () => Record<string, unknown>[];
}

function startIngest(brokers: string, topics: string, group: string, dataDir: string, now: string): Ingest {
  const child = startCli(['ingest', '--brokers', brokers, '--topics', topics, '--group', group, '--data-dir', dataDir, '--session-timeout', '3000'], {
    env: { TICKVAULT_NOW: now, TICKVAULT_LOG_LEVEL: 'info' },
  });
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  child.stdout!.resume();
  return {
    child,
    dataDir,
    logs: () =>
      err
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

const running = (ing: Ingest) => ing.child.exitCode === null && ing.child.signalCode === null;

/** Polls `cond` until it holds; fails after `timeoutMs`, or at once when the ingestor given has exited. */
async function until(what: string, cond: () => boolean | Promise<boolean>, ing: Ingest | null, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (ing && !running(ing)) {
      const tail = ing
        .logs()
        .slice(-5)
        .map((l) => JSON.stringify(l))
        .join('\n');
      throw new Error(`ingest exited (${ing.child.exitCode ?? ing.child.signalCode}) while waiting for ${what}:\n${tail}`);
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A read of ingest.db (the ingestor may be writing it); `none` before its tables exist. */
function ingestDb<T>(dataDir: string, none: T, read: (db: Database.Database) => T): T {
  let db: Database.Database;
  try {
    db = new Database(join(dataDir, 'ingest.db'), { readonly: true, fileMustExist: true });
  } catch {
    return none;
  }
  try {
    return read(db);
  } catch (e) {
    if (/no such table/.test((e as Error).message)) return none;
    throw e;
  } finally {
    db.close();
  }
}

/** The day's staging segments of a kind: committed bytes and the bytes each file holds. */
function segments(dataDir: string, kind: Kind): { committed: number; onDisk: number }[] {
  const rows = ingestDb(
    dataDir,
    [] as { path: string; committed: number }[],
    (db) =>
      db.prepare('SELECT path, committed_bytes AS committed FROM segments WHERE dataset = ? AND tradedate = ?').all(kind, DAY) as {
        path: string;
        committed: number;
      }[],
  );
  return rows.map((r) => ({ committed: r.committed, onDisk: statSync(join(dataDir, r.path)).size }));
}

/**
 * SIGKILLs the ingestor once the offsets it has recorded for `topic` reach `killAt` and it has
 * been polled for a second more; returns the polls and those that found staging holding more
 * committed records than recorded offsets (rows visible whose messages a crash would have
 * consumed again: none, api-contract: The live day). Every message of the topic here makes
 * one record, so records and offsets count the same messages; each poll reads the records
 * first, so a group commit landing between its two reads can only raise the offsets.
 */
async function killInsideBurst(ing: Ingest, topic: string, killAt: number): Promise<{ polls: number; ahead: number }> {
  const db = new Database(join(ing.dataDir, 'ingest.db'), { readonly: true, fileMustExist: true });
  try {
    const staged = db.prepare('SELECT coalesce(sum(committed_bytes), 0) FROM segments WHERE dataset = ? AND tradedate = ?').pluck();
    const recorded = db.prepare('SELECT coalesce(sum(next_offset), 0) FROM kafka_offsets WHERE topic = ?').pluck();
    const records = () => Number(staged.get('trade', DAY)) / recordBytes('trade');
    const offsets = () => Number(recorded.get(topic));
    await until(`${killAt} offsets of ${topic} recorded`, () => offsets() >= killAt, ing);
    const giveUp = Date.now() + 1000;
    let polls = 0;
    let ahead = 0;
    while (running(ing) && Date.now() < giveUp) {
      polls++;
      if (records() > offsets()) ahead++;
      await new Promise((r) => setTimeout(r, 1));
    }
    ing.child.kill('SIGKILL');
    await exited(ing.child);
    return { polls, ahead };
  } finally {
    db.close();
  }
}

// ---- the test -------------------------------------------------------------------------------

const test = suite('the live day through Kafka, the ingestor and two servers');

if (broker) {
  const dataDir = tempDir('tickvault-liveday-');
  const prefix = uniqueTopicPrefix('liveday');
  const topicOf: Readonly<Record<string, string>> = {
    level2: `${prefix}.level2`,
    index: `${prefix}.index`,
    trade: `${prefix}.trade`,
    order: `${prefix}.order`,
  };
  const topics = [topicOf.level2, topicOf.index, topicOf.trade, topicOf.order].join(',');
  const group = `${prefix}-ingest`;
  const produced: Produced[] = [];
  let producer: Producer;
  let ingest: Ingest | null = null;
  let servers: ServerHandle[] = [];
  let key = '';

  /** Sends messages in order, a batch at a time, each message keyed by its symbol (as `tickvault produce` does). */
  async function produce(list: readonly Produced[], batch = 1000, onSent?: () => Promise<void>): Promise<void> {
    for (let i = 0; i < list.length; i += batch) {
      const part = list.slice(i, i + batch);
      const byTopic = new Map<string, { key: string; value: string }[]>();
      for (const { kind, msg } of part) {
        const t = topicOf[kind];
        if (!byTopic.has(t)) byTopic.set(t, []);
        byTopic.get(t)!.push({ key: String(msg.symbol), value: JSON.stringify(msg) });
      }
      await producer.sendBatch({ topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })), compression: CompressionTypes.GZIP, acks: -1 });
      produced.push(...part);
      await onSent?.();
    }
  }

  async function ask(server: ServerHandle, kind: Kind, symbol: string): Promise<Page> {
    const r = await postApi(server, { apiname: API[kind], apikey: key, params: { symbol, tradedate: DAY, page_size: 10_000 } });
    const page = r.json as unknown as Page;
    assert.is(page.code, 200, `${API[kind]} ${symbol}: ${page.message}`);
    return page;
  }

  /** Every interface and stock on `server`, by `kind|symbol`. */
  async function askAll(server: ServerHandle): Promise<Map<string, Page>> {
    const out = new Map<string, Page>();
    // One at a time: the account holds one slot per interface (api-contract: Slots).
    for (const kind of KINDS) for (const symbol of SYMBOLS) out.set(`${kind}|${symbol}`, await ask(server, kind, symbol));
    return out;
  }

  /** tick_history's stock modes over the four stocks, by name (stock-god's poll among them). */
  const TICK_ASKS: Readonly<Record<string, Record<string, unknown>>> = {
    compatible: { asset: 'stock', symbol: SYMBOLS[0], tradedate: DAY },
    enhanced: { asset: 'stock', symbols: [...SYMBOLS], tradedate: DAY, limit: 6000 },
    window: { asset: 'stock', symbols: [...SYMBOLS], tradedate: DAY, start_time: '09:45', end_time: '13:10', order_dir: 'desc', limit: 300, offset: 40 },
    poll: { asset: 'stock', symbols: [...SYMBOLS], tradedate: DAY, side: 'after', trademin: '0925' },
    everyStock: { asset: 'stock', tradedate: DAY, side: 'before', trademin: '1300' },
  };

  async function askTicks(server: ServerHandle): Promise<Map<string, Page>> {
    const out = new Map<string, Page>();
    for (const [name, params] of Object.entries(TICK_ASKS)) {
      const page = (await postApi(server, { apiname: 'tick_history', apikey: key, params })).json as unknown as Page;
      assert.is(page.code, 200, `tick_history ${name}: ${page.message}`);
      assert.ok(page.data.items.length > 0, `tick_history ${name}: ${page.message}`);
      out.set(name, page);
    }
    return out;
  }

  /** Whether every interface and stock on `server` answers as many rows as `want` holds. */
  async function caughtUp(server: ServerHandle, want: Map<string, Msg[]>): Promise<boolean> {
    for (const kind of KINDS) {
      for (const symbol of SYMBOLS) {
        const page = await ask(server, kind, symbol);
        if (page.data.items.length !== (want.get(`${kind}|${symbol}`)?.length ?? 0)) return false;
      }
    }
    return true;
  }

  /** Every interface and stock on every server: exactly the expected rows, marked live, no version. */
  async function assertLive(want: Map<string, Msg[]>, label: string): Promise<Map<string, Page>> {
    let last = new Map<string, Page>();
    for (const server of servers) {
      last = await askAll(server);
      for (const [group, page] of last) {
        const rows = want.get(group)!;
        assert.is(page.data.live, true, `${label} ${group}: live`);
        assert.is(page.data.version, undefined, `${label} ${group}: no version on a live day`);
        assert.is(page.data.has_more, false, `${label} ${group}`);
        assert.is(page.data.next_cursor, null, `${label} ${group}`);
        assert.equal(
          page.data.items,
          rows.map((m) => asItem(page.data.fields, m)),
          `${label} ${group}: the produced rows, resolved and sorted`,
        );
      }
    }
    return last;
  }

  test.before(async () => {
    const kafka = new Kafka({ brokers: [broker.brokers], logLevel: logLevel.NOTHING });
    producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, maxInFlightRequests: 1, allowAutoTopicCreation: true });
    await producer.connect();
    key = addAccount(dataDir, 'flagship').key;
  });

  test.after(async () => {
    if (ingest && running(ingest)) {
      ingest.child.kill('SIGKILL');
      await exited(ingest.child);
    }
    await Promise.all(servers.map((s) => s.stop()));
    await producer?.disconnect();
    await broker.stop();
  });

  test('a live day: the morning, a crashed ingestor, a restarted server, the afternoon and the seal', async () => {
    // 1. The morning, visible on both servers as the messages resolve.
    const morning = session(at(9, 30), 1, 0);
    await produce(morning);
    // Paging a whole day's interfaces asks faster than the default 20 a second.
    const serveOpts = { now: DURING, args: ['--rate-limit', '1000'] };
    ingest = startIngest(broker.brokers, topics, group, dataDir, DURING);
    servers = await startServers([
      { dataDir, opts: serveOpts },
      { dataDir, opts: serveOpts },
    ]);
    let want = expected(produced);
    await until('the morning visible', () => caughtUp(servers[0], want), ingest);
    await assertLive(want, 'morning');

    // 2. A burst of trades, the ingestor SIGKILLed while it consumes them.
    const tradesBefore = produced.filter((p) => p.kind === 'trade').length;
    const burst: Produced[] = [];
    for (let j = 0; j < BURST_PER_SYMBOL; j++) {
      SYMBOLS.forEach((symbol, k) => burst.push({ kind: 'trade', msg: trade(symbol, k, at(11, 29, 35) + j * 5, 100_001 + j) }));
    }
    const killAt = tradesBefore + Math.round((0.1 + 0.4 * Math.random()) * burst.length);
    const crashed = ingest;
    // Paced like a feed (about 5,000 messages a second, over 3 s), so the ingestor stages the
    // burst in many group commits and the kill, a second of polls past killAt, lands inside it.
    const producing = produce(burst, 200, () => new Promise((r) => setTimeout(r, 40)));
    const kill = await killInsideBurst(crashed, topicOf.trade, killAt);
    await producing;
    assert.is(kill.ahead, 0, `no poll of ${kill.polls} finds a committed record whose offset is not recorded`);
    const how = `killed after ${kill.polls} polls`;
    // What the servers answer now is fixed: nothing writes staging until the restart.
    const committed = segments(dataDir, 'trade');
    const committedRecords = committed.reduce((a, s) => a + Math.floor(s.committed / recordBytes('trade')), 0);
    // The morning's trades as resolved, and how many of its trade messages were corrections.
    const morningTrades = want;
    const morningTradeRows = SYMBOLS.reduce((a, symbol) => a + morningTrades.get(`trade|${symbol}`)!.length, 0);
    const corrections = tradesBefore - morningTradeRows;
    assert.is(corrections, SYMBOLS.length);
    let servedBurst = 0;
    for (const server of servers) {
      let servedRows = 0;
      for (const symbol of SYMBOLS) {
        const page = await ask(server, 'trade', symbol);
        const before = morningTrades.get(`trade|${symbol}`)!;
        const ofBurst = burst.filter((p) => p.msg.symbol === symbol).map((p) => p.msg);
        const n = page.data.items.length - before.length;
        assert.ok(n >= 0 && n <= ofBurst.length, `${symbol}: ${n} burst rows served`);
        // The morning, then the burst's first n rows in the order produced: a prefix, no gap.
        assert.equal(
          page.data.items,
          [...before, ...ofBurst.slice(0, n)].map((m) => asItem(page.data.fields, m)),
          `${symbol}: the morning and a prefix of the burst (${how})`,
        );
        servedRows += page.data.items.length;
        if (server === servers[0]) servedBurst += n;
      }
      // Exactly the committed records less the corrected duplicates: none past a committed
      // length is visible, none it covers is missing.
      assert.is(servedRows, committedRecords - corrections, `served rows = committed records - corrections (${how})`);
    }
    assert.ok(servedBurst > 0 && servedBurst < burst.length, `killed inside the burst: ${servedBurst} of ${burst.length} served`);
    assert.ok(
      committed.every((s) => s.onDisk >= s.committed),
      'a committed length never runs past its file',
    );

    ingest = startIngest(broker.brokers, topics, group, dataDir, DURING);
    want = expected(produced);
    await until('every produced row after the restart', () => caughtUp(servers[0], want), ingest);
    await assertLive(want, `after a restart (${how})`);

    // 3. A server restarted mid-day answers what the other does, at its first request.
    await servers[1].stop();
    servers[1] = await startServer(dataDir, serveOpts);
    const fresh = await askAll(servers[1]);
    const other = await askAll(servers[0]);
    for (const [g, page] of fresh) assert.equal(page.data, other.get(g)!.data, `restarted server, ${g}`);

    // 4. The afternoon; then the day sealed by an ingestor whose clock is past close + grace.
    await produce(session(at(13, 0), 200_001, 7));
    want = expected(produced);
    await until('the afternoon visible', () => caughtUp(servers[0], want), ingest);
    const lastLive = await assertLive(want, 'afternoon');
    const lastTicks = await askTicks(servers[0]);
    for (const [name, page] of lastTicks) assert.is(page.data.live, true, `tick_history ${name} on the live day`);
    // stock-god's poll: each stock's first snapshot at or after 09:25, the morning's first (09:30:00), by symbol.
    const poll = lastTicks.get('poll')!.data;
    const col = (name: string) => poll.fields.indexOf(name);
    assert.equal(
      poll.items.map((r) => [r[col('symbol')], r[col('time')]]),
      SYMBOLS.map((s) => s.slice(0, 6))
        .sort()
        .map((six) => [six, '2025-01-02 09:30:00.000']),
    );
    // The bars of the live day (api-contract: Bars), made from its staged trades.
    const askBars = async (server: ServerHandle, apiname: string) =>
      (await postApi(server, { apiname, apikey: key, params: { symbols: SYMBOLS.join(','), tradedate: DAY } })).json as unknown as Page;
    const liveBars = { minute: await askBars(servers[0], 'minute'), daily: await askBars(servers[0], 'daily') };
    assert.is(liveBars.daily.data.live, true);
    assert.is(liveBars.daily.data.items.length, SYMBOLS.length, 'a daily bar of every stock');
    assert.ok(liveBars.minute.data.items.length > 0);
    ingest.child.kill('SIGTERM');
    assert.is((await exited(ingest.child)).code, 0, 'ingest exits 0 on SIGTERM');
    ingest = startIngest(broker.brokers, topics, group, dataDir, AFTER_GRACE);
    const sealer = ingest;
    const sealed = (kind: Kind) => sealer.logs().some((l) => l.msg === 'day sealed' && l.dataset === kind && l.tradedate === DAY);
    await until('the day sealed', () => KINDS.every(sealed), ingest);
    for (const server of servers) {
      for (const [g, page] of await askAll(server)) {
        const live = lastLive.get(g)!;
        assert.is(page.data.live, undefined, `${g}: a sealed answer is not live`);
        assert.type(page.data.version, 'number', `${g}: a sealed answer has a version`);
        assert.equal(page.data.fields, live.data.fields, g);
        assert.equal(page.data.items, live.data.items, `${g}: the sealed rows are the last live ones`);
      }
      for (const [name, page] of await askTicks(server)) {
        assert.is(page.data.live, undefined, `tick_history ${name}: a sealed answer is not live`);
        assert.equal({ ...page.data, live: true }, lastTicks.get(name)!.data, `tick_history ${name}: the sealed answer is the last live one`);
      }
    }

    // The ingestor's seal made the day's bars: the live day's, now from the bar files.
    await until('the bars made', () => sealer.logs().some((l) => l.msg === 'bars made'), ingest);
    const sealedBars = { minute: await askBars(servers[0], 'minute'), daily: await askBars(servers[0], 'daily') };
    assert.is(sealedBars.daily.data.live, undefined);
    assert.equal(sealedBars.daily.data.items, liveBars.daily.data.items, 'daily: the sealed bars are the live ones');
    // The live minute bars ran to the one in progress at the servers' 14:00; the sealed day has all 241 a stock.
    const perStock = (items: unknown[][]) => SYMBOLS.map((sym) => items.filter((r) => r[1] === sym));
    const liveMinutes = perStock(liveBars.minute.data.items);
    perStock(sealedBars.minute.data.items).forEach((rows, i) => {
      assert.is(rows.length, 241, SYMBOLS[i]);
      assert.equal(rows.slice(0, liveMinutes[i].length), liveMinutes[i], `${SYMBOLS[i]}: minute bars`);
    });

    // 5. Row text follows the seal, in the ingestor's background (storage/rowText/rowTextKeeper.ts):
    // every level-2 file of the day gets its own, and a server started now answers from it the same.
    const paged = (() => {
      const db = new Database(join(dataDir, 'catalog.db'), { readonly: true });
      try {
        return db.prepare("SELECT path FROM files WHERE tradedate = ? AND dataset = 'level2'").pluck().all(DAY) as string[];
      } finally {
        db.close();
      }
    })();
    assert.is(paged.length, SYMBOLS.length);
    await until('row text of every level-2 file', () => paged.every((p) => existsSync(join(dataDir, rowTextRelPath(p)))), ingest, 60_000);
    await servers[1].stop();
    servers[1] = await startServer(dataDir, serveOpts);
    for (const [g, page] of await askAll(servers[1])) assert.equal(page.data.items, lastLive.get(g)!.data.items, `${g}: from row text, the last live rows`);
  });
}

test.run();
