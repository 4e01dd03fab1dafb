/**
 * The live day (issue 48; api-contract: The live day), end to end, read the same way whatever
 * the server does to answer it (read on request now, an index later):
 *
 *   npm run bench -- --only live [--stocks 5000] [--live-seconds 60] [--clients 2] [--page-rate N]
 *     [--cache-mb 256]
 *
 * 1. The kcat mock broker, `tickvault ingest` with its clock inside the session (the day is
 *    live, never due to be sealed) and one `tickvault serve` on the same data directory.
 * 2. A few deep stocks' whole day of snapshots (5,001 each, a full-day page) is produced first.
 *    Then the stretch: the generated market from the opening auction's match on (the auction
 *    before it is generated, not produced), paced at the whole market's average rate scaled to
 *    --stocks (1,700 snapshots, 1,800 trades, 3,100 orders a second for 5,000 stocks) and ten
 *    times that for the first sixth of the stretch (the opening minutes). One producer; it waits
 *    when the ingestor is more than a backlog the mock holds behind, so what it reaches is printed
 *    beside what was scheduled.
 * 3. A poller produces a marker trade of a stock of its own every 100 ms and asks the server for
 *    that stock's trades every 10 ms: freshness is produce to visible.
 * 4. Clients ask random stocks' live level2_quote_history pages of the day so far.
 * 5. After the stretch, the deep stocks' live full-day pages, beside the same lines sealed
 *    (`tickvault replay` into another directory): their first touch in a new server process and
 *    DuckDB reading the sealed file (level2Query's reference: rows and JSON.stringify).
 * 6. The server's peak RSS against --cache-mb + 512 MiB, and the kafka bench's consumption ratio
 *    with a server answering live pages of the day being consumed.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { DuckDBInstance } from '@duckdb/node-api';
import { Partitioners } from 'kafkajs';
import type { KafkaTopics } from '../ingest/config.js';
import { expectedRows, generateFeed, seededRandom, stockCode } from '../ingest/feed/generate.js';
import { feedLineToMessage, sendProduced, type ProducedMessage } from '../ingest/kafka/producer.js';
import { AccountStore } from '../serve/access/accounts.js';
import { openServiceDb } from '../serve/access/serviceDb.js';
import { openDb, type Db } from '../shared/sqlite.js';
import { formatLevel2Time } from '../shared/timeFormat.js';
import { CatalogReader, openCatalog, type CatalogFile } from '../storage/catalog.js';
import { layoutFor } from '../storage/layout.js';
import { bucketOf } from '../storage/staging/stagingReader.js';
import { startCli, waitForLine } from '../test/support/cli.js';
import { startMockBroker, type TestBroker } from '../test/support/kafkaBroker.js';
import { peakRssWatcher } from './feedGenerate.js';
import { BACKLOG, BURST_FACTOR, startMarketProducer, type MarketFigures } from './liveProducer.js';
import { consumeThroughput, DAY, kafkaRig, TRADING_NOW, until, type ConsumeAlongside, type KafkaRig } from './kafkaIngest.bench.js';
import { duckPage } from './level2Query.bench.js';
import { Client, cpuSeconds, quantile, runCli, startChildServer, stopChild, type ChildServer } from './serverLoad.js';

export interface LiveBenchOptions {
  /** Stocks of the market (default 5,000, the whole market); the rate scales with them. */
  readonly stocks?: number;
  /** Wall seconds of the stretch (default 60). */
  readonly liveSeconds?: number;
  /** Clients asking live pages at once (default 2). */
  readonly clients?: number;
  /** Live pages a second over all clients (default 0: each asks again as soon as answered). */
  readonly pageRate?: number;
  /** The server's --cache-mb (default 256). */
  readonly cacheMb?: number;
  /** Stocks with a whole day staged, in one staging bucket (default 20, a bucket at the close; one warms the JITs). */
  readonly deepStocks?: number;
  /** Messages and stocks of the Kafka ratio (the kafka bench's: 150,000 of 500). */
  readonly kafkaMessages?: number;
  readonly kafkaStocks?: number;
  readonly log?: (line: string) => void;
}

/** The whole market's average message rate (issue 48): 1,700 snapshots, 1,800 trades and 3,100 orders a second. */
const MARKET_RATE = 6600;
const MARKET_STOCKS = 5000;
/** Messages a send of the deep days. */
const BATCH = 2000;
/** The poller's stock: only markers are produced for it. */
const MARKER = '605900.SH';
const MARKER_TIMEOUT_MS = 10_000;
/** A marker every this many ms: 600 samples a minute, so that a p99 is more than the largest. */
const MARKER_EVERY_MS = 100;
const POLL_MS = 10;
/**
 * Deep stocks' codes, all in one staging bucket: a whole market's bucket holds ~20 stocks, so
 * their pages are read from a bucket the size it has at the close (~20 × 5,001 snapshots,
 * 55 MB), not one holding a morning's trickle. No market stock has these codes.
 */
function deepSymbols(n: number): string[] {
  const out: string[] = [];
  const bucket = bucketOf('602000.SH');
  for (let code = 602000; out.length < n && code < 610000; code++) {
    const symbol = `${code}.SH`;
    if (symbol !== MARKER && bucketOf(symbol) === bucket) out.push(symbol);
  }
  return out;
}
const LAG_SAMPLE_MS = 250;
const MiB = 1024 * 1024;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const ms1 = (n: number) => `${n.toFixed(1)} ms`;
const pass = (ok: boolean) => (ok ? 'PASS' : 'MISS');
/** A quantile, NaN of none (a phase that got no answers prints NaN rather than failing). */
const pct = (xs: readonly number[], q: number) => (xs.length === 0 ? NaN : quantile(xs, q));
const p50 = (xs: readonly number[]) => pct(xs, 0.5);
const paced = (pageRate: number) => (pageRate > 0 ? `paced at ${pageRate} a second` : 'each asking again once answered');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What every phase of the live day runs against. */
interface LiveRig {
  readonly log: (line: string) => void;
  readonly kafka: KafkaRig;
  readonly topics: KafkaTopics;
  readonly dir: string;
  readonly liveDir: string;
  readonly ingestor: ChildProcess;
  readonly server: ChildServer;
  /** Accounts on the live server: one a client, then the poller's, then the deep pages'. */
  readonly keys: readonly string[];
  /** The ingestor's ingest.db, read only: what it has committed. */
  readonly ingestDb: Db;
  /** Messages produced to the live topics so far (every producer). */
  produced: number;
  /** Times the ingestor's group rebalanced (its log says so): each pauses consumption. */
  rebalances: number;
  readonly peakRss: { readonly server: { stop(): number }; readonly ingestor: { stop(): number } };
}

export async function runLiveBench(opts: LiveBenchOptions = {}): Promise<void> {
  const log = opts.log ?? ((l: string) => console.log(l));
  const o = {
    stocks: opts.stocks ?? MARKET_STOCKS,
    liveSeconds: opts.liveSeconds ?? 60,
    clients: opts.clients ?? 2,
    pageRate: opts.pageRate ?? 0,
    cacheMb: opts.cacheMb ?? 256,
    deepStocks: Math.max(2, opts.deepStocks ?? 20),
  };
  const load = loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
  log(`machine: load average ${load} at start (the figures share the CPUs with whatever else runs)`);
  const dir = mkdtempSync(join(tmpdir(), 'tickvault-live-bench-'));
  let broker: TestBroker | null = null;
  let rig: LiveRig | null = null;
  try {
    broker = await startMockBroker();
    rig = await openLiveRig(broker.brokers, dir, o, log);
    const deep = await stageDeepDays(rig, o.deepStocks);
    const stretch = await liveStretch(rig, o);
    reportStretch(rig, o, stretch);
    const live = await deepPages(rig.server.url, rig.keys[o.clients + 1]!, deep.symbols, 5);
    const staged = committed(rig.ingestDb);
    const rss = await closeLive(rig);
    rig = null;
    const sealed = await sealedReference(dir, deep.file, deep.symbols);
    reportDeep(log, { live, sealed, staged });
    log(
      `live server RSS: peak ${rss.server.toFixed(0)} MiB = --cache-mb ${o.cacheMb} + ${(rss.server - o.cacheMb).toFixed(0)} MiB ` +
        `(target ≤ + 512 MiB: ${pass(rss.server <= o.cacheMb + 512)}); the ingestor's peak ${rss.ingestor.toFixed(0)} MiB`,
    );
    const stocks = opts.kafkaStocks ?? 500;
    const brokers = broker.brokers;
    const ratio = async (sub: string, alongside?: ConsumeAlongside) => {
      const r = await kafkaRig(brokers, join(dir, sub), log);
      try {
        return await consumeThroughput(r, stocks, opts.kafkaMessages ?? 150_000, alongside);
      } finally {
        await r.producer.disconnect();
      }
    };
    // Without a server first, so that what live pages cost the ratio is seen in one run.
    const alone = await ratio('alone');
    const symbols = Array.from({ length: stocks }, (_, i) => stockCode(i));
    const c = await ratio('with-pages', livePagesAlongside(symbols, o.clients, o.pageRate, o.cacheMb));
    log(
      `live kafka ratio with a server answering live pages: ${c.ratio.toFixed(2)}x raw kafkajs (target ≥ 0.5x: ${pass(c.ratio >= 0.5)}); ` +
        `${alone.ratio.toFixed(2)}x without them in the same run`,
    );
  } finally {
    if (rig) await closeLive(rig);
    await broker?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** New flagship accounts in a data directory's service.db: level 2 allows an account one request at a time. */
function flagshipKeys(dataDir: string, n: number): string[] {
  mkdirSync(dataDir, { recursive: true });
  const db = openServiceDb(layoutFor(dataDir).serviceDb, { durable: true });
  try {
    const accounts = new AccountStore(db);
    return Array.from({ length: n }, () => accounts.create('flagship', Date.now()).key);
  } finally {
    db.close();
  }
}

/** Phase 1: the ingestor (partitions assigned) and the server over one data directory, the clock inside the session. */
async function openLiveRig(brokers: string, dir: string, o: { clients: number; cacheMb: number }, log: (l: string) => void): Promise<LiveRig> {
  const kafka = await kafkaRig(brokers, dir, log);
  const topics: KafkaTopics = {
    level2: `${kafka.run}-live.level2`,
    index: `${kafka.run}-live.index`,
    trade: `${kafka.run}-live.trade`,
    order: `${kafka.run}-live.order`,
  };
  const liveDir = join(dir, 'live');
  const keys = flagshipKeys(liveDir, o.clients + 2);
  const topicList = [topics.level2, topics.index, topics.trade, topics.order].join(',');
  const ingestor = startCli(['ingest', '--brokers', brokers, '--topics', topicList, '--group', `${kafka.run}-live`, '--data-dir', liveDir], {
    env: { TICKVAULT_NOW: TRADING_NOW, TICKVAULT_LOG_LEVEL: 'info' },
  });
  let server: ChildServer;
  try {
    await waitForLine(ingestor, /"msg":"partitions assigned"/, 120_000);
    ingestor.stderr!.resume();
    server = await startChildServer(liveDir, { TICKVAULT_NOW: TRADING_NOW, TICKVAULT_CACHE_MB: String(o.cacheMb), TICKVAULT_RATE_LIMIT: '1000000' });
  } catch (e) {
    await stopChild(ingestor);
    await kafka.producer.disconnect();
    throw e;
  }
  const ingestDb = openDb(layoutFor(liveDir).ingestDb, { readonly: true });
  const peakRss = { server: peakRssWatcher(server.child.pid), ingestor: peakRssWatcher(ingestor.pid) };
  const rig: LiveRig = { log, kafka, topics, dir, liveDir, ingestor, server, keys, ingestDb, produced: 0, rebalances: 0, peakRss };
  ingestor.stdout!.setEncoding('utf8').on('data', (d: string) => {
    rig.rebalances += d.split('"msg":"group rebalancing"').length - 1;
  });
  return rig;
}

/** Messages the ingestor has committed (offsets start at 0 on the run's own topics). */
function committed(ingestDb: Db): number {
  return Number(ingestDb.prepare('SELECT coalesce(sum(next_offset), 0) FROM kafka_offsets').pluck().get());
}

/** Sends a batch once the ingestor is within BACKLOG of what was produced; the ms it waited for that. */
async function produceBacklogged(rig: LiveRig, batch: readonly ProducedMessage[]): Promise<number> {
  const t0 = performance.now();
  while (rig.produced - committed(rig.ingestDb) > BACKLOG) await sleep(20);
  const waited = performance.now() - t0;
  await sendProduced(rig.kafka.producer, batch);
  rig.produced += batch.length;
  return waited;
}

/** Phase 2a: the deep stocks' whole day, produced and committed; the same lines in a file for the sealed reference. */
async function stageDeepDays(rig: LiveRig, n: number): Promise<{ symbols: string[]; file: string }> {
  const deep = deepSymbols(n);
  const rename = new Map(deep.map((symbol, i) => [stockCode(i), symbol]));
  const lines = [...generateFeed({ days: [DAY], stocks: n, indexes: 0, seed: 'live-deep', faults: 0 })].map((l) =>
    l.replace(/"symbol":"([^"]+)"/, (_, s: string) => `"symbol":"${rename.get(s) ?? s}"`),
  );
  const file = join(rig.dir, 'deep.jsonl');
  writeFileSync(file, `${lines.join('\n')}\n`);
  const messages = lines.map((l) => feedLineToMessage(l, rig.topics)!);
  for (let i = 0; i < messages.length; i += BATCH) await produceBacklogged(rig, messages.slice(i, i + BATCH));
  await until(() => committed(rig.ingestDb) >= rig.produced, 300_000, 'the deep days to be committed');
  rig.log(`live deep stocks: ${n} whole days of snapshots (${fmt(lines.length)} messages) staged before the stretch`);
  return { symbols: [...rename.values()], file };
}

/** A marker trade of MARKER: id `id`, at 10:00 plus `id` ms (every marker's time is its own). */
function markerMessage(id: number, topics: KafkaTopics): ProducedMessage {
  const trade = {
    kind: 'trade',
    symbol: MARKER,
    tradedate: DAY,
    time: formatLevel2Time(10 * 3_600_000 + id),
    trade_id: id,
    price: 10,
    volume: 100,
    amount: 1000,
    bs_flag: 'B',
    trade_code: 'F',
    buy_order_id: id,
    sell_order_id: id,
  };
  return feedLineToMessage(JSON.stringify(trade), topics)!;
}

/** The highest trade id in a trade page's answer (0: none yet, or not answered). */
function lastTradeId(text: string): number {
  const page = JSON.parse(text) as { data?: { fields?: string[]; items?: unknown[][] } };
  const at = page.data?.fields?.indexOf('trade_id') ?? -1;
  const last = page.data?.items?.at(-1);
  return at >= 0 && last ? Number(last[at]) : 0;
}

interface Freshness {
  /** Each marker's produce → visible. */
  readonly ms: number[];
  /** Each marker's produce → acknowledged by the broker (acks -1): the part of `ms` before the ingestor can have it. */
  readonly ackMs: number[];
  readonly missed: number;
  readonly polls: number;
}

/**
 * Phase 3: a marker produced every MARKER_EVERY_MS on a timer of its own, while one loop asks
 * for the marker stock's trades every POLL_MS; each marker's freshness is from just before its
 * send to the answer that first holds it. Markers share a key, so one partition: they become
 * visible in id order, and the highest id answered covers every one before it.
 */
async function pollFreshness(rig: LiveRig, key: string, end: number): Promise<Freshness> {
  const producer = rig.kafka.kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  const client = new Client(`${rig.server.url}/api`);
  const body = JSON.stringify({ apiname: 'level2_trade_history', apikey: key, params: { symbol: MARKER, tradedate: DAY } });
  const sentAt: number[] = [NaN];
  const ackMs: number[] = [];
  const ms: number[] = [];
  let seen = 0;
  let polls = 0;
  const producing = (async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      sentAt.push(t0);
      await sendProduced(producer, [markerMessage(sentAt.length - 1, rig.topics)]);
      ackMs.push(performance.now() - t0);
      rig.produced++;
      await sleep(Math.max(0, MARKER_EVERY_MS - (performance.now() - t0)));
    }
  })();
  try {
    // After the stretch, until every marker sent is seen or the last has had MARKER_TIMEOUT_MS.
    while (performance.now() < end || (seen < sentAt.length - 1 && performance.now() < sentAt.at(-1)! + MARKER_TIMEOUT_MS)) {
      const r = await client.post(body);
      polls++;
      const now = performance.now();
      const top = r.status === 200 ? Math.min(lastTradeId(r.text()), sentAt.length - 1) : 0;
      for (; seen < top; seen++) ms.push(now - sentAt[seen + 1]!);
      await sleep(POLL_MS);
    }
    await producing;
  } finally {
    client.close();
    await producer.disconnect();
  }
  return { ms, ackMs, missed: sentAt.length - 1 - seen, polls };
}

interface PageTimes {
  readonly ms: number[];
  readonly bytes: number;
  readonly notOk: number;
}

/**
 * Phase 4: one client per key asking random symbols' level2_quote_history of the day (a whole
 * day fits a page) while `running`, `pageRate` pages a second over all of them (0: each asks
 * again as soon as answered).
 */
async function askPages(url: string, keys: readonly string[], symbols: readonly string[], pageRate: number, running: () => boolean): Promise<PageTimes> {
  // Each client waits out its share of the rate after an answer; 0: the next request at once.
  const intervalMs = pageRate > 0 ? (keys.length * 1000) / pageRate : 0;
  const ms: number[] = [];
  let bytes = 0;
  let notOk = 0;
  await Promise.all(
    keys.map(async (apikey, c) => {
      const rnd = seededRandom(`live-pages-${c}`);
      const client = new Client(`${url}/api`);
      try {
        while (running()) {
          const symbol = symbols[Math.floor(rnd() * symbols.length)]!;
          const r = await client.post(JSON.stringify({ apiname: 'level2_quote_history', apikey, params: { symbol, tradedate: DAY } }));
          ms.push(r.ms);
          bytes += r.bytes;
          if (r.status !== 200 && notOk++ < 3) process.stderr.write(`live bench: HTTP ${r.status} ${r.text().slice(0, 300)}\n`);
          if (intervalMs > r.ms) await sleep(intervalMs - r.ms);
        }
      } finally {
        client.close();
      }
    }),
  );
  return { ms, bytes, notOk };
}

interface StretchFigures {
  readonly market: MarketFigures;
  readonly freshness: Freshness;
  readonly pages: PageTimes;
  /** From the stretch's end until the ingestor had committed every message. */
  readonly catchUpS: number;
  /** Cores used over the stretch: the ingestor, the server, this process (the generator and producer's worker, poller, clients). */
  readonly cores: { ingestor: number; server: number; bench: number };
  /** The ingestor's lag, sampled every LAG_SAMPLE_MS: the broker's high watermarks less what it has committed. */
  readonly lag: number[];
  /** This process's event loop delay over the stretch (what the poller's and clients' timings may include). */
  readonly loopDelayP99Ms: number;
}

/** Phases 2–4 at once for `liveSeconds`, then the ingestor caught up. */
async function liveStretch(rig: LiveRig, o: { stocks: number; liveSeconds: number; clients: number; pageRate: number }): Promise<StretchFigures> {
  const symbols = Array.from({ length: o.stocks }, (_, i) => stockCode(i));
  const producer = await startMarketProducer({
    brokers: rig.kafka.brokers,
    topics: rig.topics,
    day: DAY,
    stocks: o.stocks,
    seconds: o.liveSeconds,
    rate: (MARKET_RATE * o.stocks) / MARKET_STOCKS,
    ingestDb: layoutFor(rig.liveDir).ingestDb,
    producedBefore: rig.produced,
  });
  const cpu0 = { ingestor: cpuSeconds(rig.ingestor.pid), server: cpuSeconds(rig.server.child.pid), bench: process.cpuUsage() };
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const started = performance.now();
  const end = started + o.liveSeconds * 1000;
  const [market, freshness, pages, lag] = await Promise.all([
    producer.run(),
    pollFreshness(rig, rig.keys[o.clients]!, end),
    askPages(rig.server.url, rig.keys.slice(0, o.clients), symbols, o.pageRate, () => performance.now() < end),
    sampleLag(rig, end),
  ]).catch(async (e: unknown) => {
    await producer.stop();
    throw e;
  });
  loop.disable();
  const wall = (performance.now() - started) / 1000;
  const bench = process.cpuUsage(cpu0.bench);
  const cores = {
    ingestor: (cpuSeconds(rig.ingestor.pid) - cpu0.ingestor) / wall,
    server: (cpuSeconds(rig.server.child.pid) - cpu0.server) / wall,
    bench: (bench.user + bench.system) / 1e6 / wall,
  };
  rig.produced += market.sent;
  const stopped = performance.now();
  await until(() => committed(rig.ingestDb) >= rig.produced, 600_000, 'the ingestor to catch up');
  return { market, freshness, pages, lag, catchUpS: (performance.now() - stopped) / 1000, cores, loopDelayP99Ms: loop.percentile(99) / 1e6 };
}

/** The ingestor's lag every LAG_SAMPLE_MS until `end`: what the broker holds on the live topics less what the ingestor committed. */
async function sampleLag(rig: LiveRig, end: number): Promise<number[]> {
  const admin = rig.kafka.kafka.admin();
  await admin.connect();
  const used = [rig.topics.level2, rig.topics.trade, rig.topics.order];
  const lag: number[] = [];
  try {
    while (performance.now() < end) {
      const highs = await Promise.all(used.map(async (t) => (await admin.fetchTopicOffsets(t)).reduce((n, p) => n + Number(p.high), 0)));
      lag.push(highs.reduce((a, b) => a + b, 0) - committed(rig.ingestDb));
      await sleep(LAG_SAMPLE_MS);
    }
  } finally {
    await admin.disconnect();
  }
  return lag;
}

function reportStretch(rig: LiveRig, o: { stocks: number; liveSeconds: number; clients: number; pageRate: number }, f: StretchFigures): void {
  const { log } = rig;
  const m = f.market;
  const rate = (MARKET_RATE * o.stocks) / MARKET_STOCKS;
  const burstRate = m.burstSent / m.burstSeconds;
  const afterRate = (m.sent - m.burstSent) / (m.seconds - m.burstSeconds);
  log(
    `live market (${fmt(o.stocks)} stocks from 09:25, ${o.liveSeconds} s): produced ${fmt(m.sent)} of ${fmt(m.scheduled)} scheduled messages ` +
      `(${(m.sent / m.scheduled).toFixed(2)}x; ${fmt(m.perDataset.level2)} snapshots, ${fmt(m.perDataset.trade)} trades, ${fmt(m.perDataset.order)} orders); ` +
      `opening ${m.burstSeconds.toFixed(0)} s at ${fmt(burstRate)} msg/s (${(burstRate / (rate * BURST_FACTOR)).toFixed(2)}x target ${fmt(rate * BURST_FACTOR)}), ` +
      `then ${fmt(afterRate)} msg/s (${(afterRate / rate).toFixed(2)}x target ${fmt(rate)}); the producer waited ${m.backlogWaitS.toFixed(1)} s for the ingestor ` +
      `(backlog ${fmt(BACKLOG)}), its thread busy ${(100 * m.utilisation).toFixed(0)} % of the time; ` +
      `the ingestor caught up ${f.catchUpS.toFixed(1)} s after the stretch, its lag p50 ${fmt(p50(f.lag))}, max ${fmt(Math.max(0, ...f.lag))} messages, its group rebalanced ${rig.rebalances} times`,
  );
  const fr = f.freshness;
  const p99 = fr.missed > 0 ? Infinity : pct(fr.ms, 0.99);
  log(
    `live freshness (produce → visible on the server), ${fr.ms.length + fr.missed} markers, ${fr.polls} polls: p50 ${ms1(p50(fr.ms))}, p99 ${ms1(p99)}` +
      ` (of which produce → acknowledged p50 ${ms1(p50(fr.ackMs))}, p99 ${ms1(pct(fr.ackMs, 0.99))})` +
      `${fr.missed > 0 ? ` (${fr.missed} not visible within ${MARKER_TIMEOUT_MS / 1000} s)` : ''} (target p99 ≤ 1000 ms: ${pass(p99 <= 1000)}; ` +
      `the ingestor's empty fetch held at most 250 ms, which the mock broker holds in full)`,
  );
  const pg = f.pages;
  log(
    `live pages during the stretch: ${fmt(pg.ms.length)} random stocks' level2_quote_history of the day so far from ${o.clients} clients, ${paced(o.pageRate)} ` +
      `(${(pg.bytes / Math.max(1, pg.ms.length) / 1e3).toFixed(1)} kB a page), p50 ${ms1(p50(pg.ms))}, p99 ${ms1(pct(pg.ms, 0.99))}, ${pg.notOk} not 200`,
  );
  log(
    `live CPU over the stretch: ingestor ${f.cores.ingestor.toFixed(2)} cores, server ${f.cores.server.toFixed(2)}, ` +
      `this process (the generator and producer's worker, poller, clients) ${f.cores.bench.toFixed(2)}; its event loop delay p99 ${ms1(f.loopDelayP99Ms)}; ` +
      `load average ${loadavg()[0]!.toFixed(1)}`,
  );
}

/**
 * Full-day pages of `symbols`: the last warms the JIT, the others are timed `rounds` times, in
 * rounds (the first round is each symbol's first ask: a server that keeps what it was asked
 * reads it then); the first page's text.
 */
async function deepPages(url: string, key: string, symbols: readonly string[], rounds: number): Promise<{ ms: number[]; first: string }> {
  const client = new Client(`${url}/api`);
  const body = (symbol: string) => JSON.stringify({ apiname: 'level2_quote_history', apikey: key, params: { symbol, tradedate: DAY } });
  const timed = symbols.slice(0, -1);
  const ms: number[] = [];
  let first = '';
  try {
    for (let i = 0; i < 5; i++) await client.post(body(symbols.at(-1)!));
    for (let r = 0; r < rounds; r++) {
      for (const s of timed) {
        const res = await client.post(body(s));
        if (res.status !== 200) throw new Error(`live bench: a full-day page answered ${res.status}: ${res.text().slice(0, 200)}`);
        ms.push(res.ms);
        if (first === '') first = res.text();
      }
    }
  } finally {
    client.close();
  }
  return { ms, first };
}

/** Stops the ingestor and the server; their peak RSS, MiB. */
async function closeLive(rig: LiveRig): Promise<{ server: number; ingestor: number }> {
  const rss = { server: rig.peakRss.server.stop() / MiB, ingestor: rig.peakRss.ingestor.stop() / MiB };
  rig.ingestDb.close();
  await stopChild(rig.server.child);
  await stopChild(rig.ingestor);
  await rig.kafka.producer.disconnect();
  return rss;
}

interface SealedFigures {
  /** First touch of each timed stock-day in a new server process. */
  readonly firstTouchMs: number[];
  readonly first: string;
  readonly duckMs: number[];
}

/** Phase 5: the deep lines replayed and sealed in a directory of their own; a new server's first touch, and DuckDB over the same files. */
async function sealedReference(dir: string, feed: string, symbols: readonly string[]): Promise<SealedFigures> {
  const sealedDir = join(dir, 'sealed');
  await runCli(['replay', feed, '--data-dir', sealedDir]);
  const catalogDb = openCatalog(layoutFor(sealedDir).catalogDb, true);
  const bySymbol = new Map<string, CatalogFile>();
  for (const f of new CatalogReader(catalogDb).everyFile()) if (f.dataset === 'level2') bySymbol.set(f.symbol, f);
  catalogDb.close();
  const files = symbols.map((s) => bySymbol.get(s)!);
  const [key] = flagshipKeys(sealedDir, 1);
  const server = await startChildServer(sealedDir, { TICKVAULT_RATE_LIMIT: '1000000' });
  let firstTouch: { ms: number[]; first: string };
  try {
    firstTouch = await deepPages(server.url, key!, symbols, 1);
  } finally {
    await stopChild(server.child);
  }
  const instance = await DuckDBInstance.create(':memory:');
  const con = await instance.connect();
  const duckMs: number[] = [];
  try {
    for (let i = 0; i < 5; i++) await duckPage(con, sealedDir, files.at(-1)!);
    for (let r = 0; r < 5; r++) for (const f of files.slice(0, -1)) duckMs.push((await duckPage(con, sealedDir, f)).ms);
  } finally {
    con.closeSync();
    instance.closeSync();
  }
  return { firstTouchMs: firstTouch.ms, first: firstTouch.first, duckMs };
}

/** The page's rows: what a live and a sealed answer of the same lines share (the live one adds `live: true`). */
function pageItems(text: string): unknown[][] {
  return (JSON.parse(text) as { data: { items: unknown[][] } }).data.items;
}

function reportDeep(log: (l: string) => void, f: { live: { ms: number[]; first: string }; sealed: SealedFigures; staged: number }): void {
  const items = pageItems(f.live.first);
  const same = JSON.stringify(items) === JSON.stringify(pageItems(f.sealed.first));
  const duck = p50(f.sealed.duckMs);
  const live = p50(f.live.ms);
  const asked = f.sealed.firstTouchMs.length;
  const first = p50(f.sealed.firstTouchMs);
  const day = expectedRows({ days: [DAY], stocks: MARKET_STOCKS, indexes: 0, ticks: 1 });
  log(
    `live full-day page (${fmt(items.length)} snapshots${same ? ', the same rows as sealed' : ', ROWS DIFFER FROM THE SEALED FILE'}; staging held ${fmt(f.staged)} messages, ` +
      `${((100 * f.staged) / day).toFixed(2)} % of a whole market's day): p50 ${ms1(live)}, p99 ${ms1(pct(f.live.ms, 0.99))} ` +
      `(each stock's first ask p50 ${ms1(p50(f.live.ms.slice(0, asked)))}, asked again ${ms1(p50(f.live.ms.slice(asked)))}) ` +
      `(${(live / duck).toFixed(2)}x DuckDB ${ms1(duck)} reading the sealed file; target ≤ 0.25x: ${pass(live / duck <= 0.25)}); ` +
      `sealed first touch in a new server process p50 ${ms1(first)} (${(first / duck).toFixed(2)}x DuckDB)`,
  );
}

/** Phase 6's load: a server on the consuming ingestor's directory, `clients` asking random live pages of its stocks. */
function livePagesAlongside(symbols: readonly string[], clients: number, pageRate: number, cacheMb: number): ConsumeAlongside {
  return {
    async start(dataDir) {
      const keys = flagshipKeys(dataDir, clients);
      const server = await startChildServer(dataDir, { TICKVAULT_NOW: TRADING_NOW, TICKVAULT_CACHE_MB: String(cacheMb), TICKVAULT_RATE_LIMIT: '1000000' });
      let running = true;
      const pages = askPages(server.url, keys, symbols, pageRate, () => running);
      return {
        async stop() {
          running = false;
          const p = await pages;
          await stopChild(server.child);
          return `while ${clients} clients asked a server for ${fmt(p.ms.length)} live pages of the day being consumed, ${paced(pageRate)} (p50 ${ms1(p50(p.ms))}, ${p.notOk} not 200)`;
        },
      };
    },
  };
}
