/**
 * Serving from an S3 store (issue 50, its Figures), side by side in one run with a real store
 * on loopback (test/support/swift.ts: OpenStack Swift with s3api, started here):
 *
 *   npm run bench -- --only store [--quick]
 *
 * Data, through the real seal path (`tickvault generate` then `tickvault replay`, each a process
 * of its own): `stocks` stocks × 3 trading days of level-2 snapshots. The lake is copied whole
 * (the local reference), then uploaded (`tickvault upload`, timed) and its first two days
 * offloaded (`tickvault offload --before` the third). Every server is a new `tickvault serve`
 * process (the local one on the copy, the store one with `--store` on the offloaded lake), its
 * JIT and its store connection warmed on a spare stock-day timed nowhere; requests alternate
 * between the two so machine load hits both alike. Full-field full-day level-2 pages (no
 * page_size: the whole day), a flagship key per client, `--rate-limit 100000`.
 *
 * Figures:
 * 1. First touch of an offloaded day's page (`firstTouch` stock-days each asked once) against
 *    the same pages of the local copy: offloaded p50 − local p50, in units of the store's own
 *    small ranged GET (p50 of `smallGets` GetObject of 4 KiB at random offsets through the AWS
 *    SDK, half before the first touches and half after): target ≤ 2; and the server's ranged
 *    GETs per page (`tickvault_store_ranged_gets` of /metrics, its delta over the pages).
 * 2. Warm: the same pages again on the same servers: p50 offloaded ÷ local, target ≈ 1 (≤ 1.2).
 * 3. Random pages over every offloaded stock-day (`randomPages`, `clients` at once) on new
 *    servers, the store's with `--store-cache-mb` 10% of the offloaded bytes (at least 1):
 *    pages/s against the local server's, target ≥ 0.5×; the cache's bytes (/metrics) within
 *    its bound; both servers' peak RSS (VmHWM). Run twice: with the default memory budget
 *    (whose detail cache holds every page once made, so only first touches reach the store)
 *    and with `--cache-mb smallMemoryMb` on both servers (most pages made again: from the
 *    local row text, or from the store's blocks through the bounded cache).
 * 4. Upload: `tickvault upload` of the lake's days, bytes sent per second of its own timing
 *    (and of the process's wall), beside the seal's rate in the same run: the replay's Parquet
 *    bytes per second of its sealing. Target: upload ≥ seal.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { CatalogReader, openCatalog, type CatalogFile } from '../storage/catalog.js';
import { layoutFor } from '../storage/layout.js';
import { AccountStore } from '../serve/access/accounts.js';
import { openServiceDb } from '../serve/access/serviceDb.js';
import { DATASETS } from '../shared/schema.js';
import { runCli } from '../test/support/cli.js';
import { s3ClientFor, startSwift, type TestSwift } from '../test/support/swift.js';
import { generateFeedFile, peakRssWatcher } from './feedGenerate.js';
import { Client, FIRST_DAY, NOW, p50, quantile, startChildServer, stopChild, type ChildServer } from './serverLoad.js';
import { replayFeed, type ReplayFigures } from './storage.bench.js';

export interface StoreBenchOptions {
  /** Stocks of the lake (default 40; 3 trading days each). */
  stocks?: number;
  /** Offloaded stock-days asked once each for the first-touch figure (default 24). */
  firstTouch?: number;
  /** Small ranged GETs of the store's own round trip (default 200). */
  smallGets?: number;
  /** Random pages of the whole-market figure (default 300). */
  randomPages?: number;
  /** Concurrent clients of the whole-market figure (default 4). */
  clients?: number;
  /** The small memory budget (--cache-mb) of the whole-market figure's second run (default 48). */
  smallMemoryMb?: number;
  log?: (line: string) => void;
}

export interface StoreFigure {
  readonly name: string;
  readonly measured: string;
  readonly ratio: number;
  readonly target: string;
  readonly met: boolean;
}

const API = 'level2_quote_history';
const BUCKET = 'tvbench';
const PREFIX = 'lake';
const STORE_URL = `s3://${BUCKET}/${PREFIX}`;
const DAYS = 3;
const SERVER_ENV = { TICKVAULT_RATE_LIMIT: '100000' };
const MiB = 1024 * 1024;

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (x: number) => (x < 10 ? x.toFixed(2) : x < 100 ? x.toFixed(1) : x.toFixed(0));
const met = (ok: boolean) => (ok ? 'MET' : 'NOT MET');

/** Bytes of the regular files under `dir` whose path passes `keep` (recursive). */
function treeBytes(dir: string, keep: (path: string) => boolean = () => true): number {
  let n = 0;
  if (!existsSync(dir)) return 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) n += treeBytes(p, keep);
    else if (e.isFile() && keep(p)) n += statSync(p).size;
  }
  return n;
}

/** Flagship keys made in the lake's service.db (copied with it, so both servers know them). */
function flagshipKeys(dataDir: string, n: number): string[] {
  const db = openServiceDb(layoutFor(dataDir).serviceDb);
  try {
    const accounts = new AccountStore(db);
    return Array.from({ length: n }, () => accounts.create('flagship', Date.now()).key);
  } finally {
    db.close();
  }
}

function level2Files(dataDir: string): CatalogFile[] {
  const db = openCatalog(layoutFor(dataDir).catalogDb, true);
  try {
    return [...new CatalogReader(db).everyFile()].filter((f) => f.dataset === 'level2');
  } finally {
    db.close();
  }
}

/** A small seeded generator (mulberry32), so both servers get the same random pages. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A `tickvault serve` child with its client, key, and peak-RSS watcher. */
interface Served {
  readonly server: ChildServer;
  readonly clients: Client[];
  readonly rss: { stop(): number };
  readonly label: string;
}

async function serve(label: string, dataDir: string, env: Record<string, string>, clients: number): Promise<Served> {
  const server = await startChildServer(dataDir, { ...SERVER_ENV, ...env });
  return { server, clients: Array.from({ length: clients }, () => new Client(`${server.url}/api`)), rss: peakRssWatcher(server.child.pid), label };
}

async function stopServed(s: Served): Promise<number> {
  for (const c of s.clients) c.close();
  const peak = s.rss.stop();
  await stopChild(s.server.child);
  return peak;
}

/** One page; its rows counted and has_more checked on the first pages (a whole day each). */
async function page(s: Served, client: number, key: string, f: CatalogFile): Promise<{ ms: number; bytes: number }> {
  const r = await s.clients[client].post(JSON.stringify({ apiname: API, apikey: key, params: { symbol: f.symbol, tradedate: f.tradedate } }));
  if (r.status !== 200) throw new Error(`store bench: ${s.label} ${f.symbol} ${f.tradedate}: HTTP ${r.status} ${r.text().slice(0, 300)}`);
  return { ms: r.ms, bytes: r.bytes };
}

async function metrics(s: Served): Promise<(name: string) => number> {
  const res = await fetch(`${s.server.url}/metrics`);
  const text = await res.text();
  return (name: string) => Number(new RegExp(`^${name} (\\d+(?:\\.\\d+)?)`, 'm').exec(text)?.[1] ?? NaN);
}

/** `n` GetObject of 4 KiB at random offsets of the stored objects, each timed (the SDK's round trip). */
async function smallGets(s3: S3Client, objects: readonly { key: string; bytes: number }[], n: number, next: () => number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const o = objects[Math.floor(next() * objects.length)];
    const start = Math.floor(next() * Math.max(1, o.bytes - 4096));
    const t0 = performance.now();
    const got = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: o.key, Range: `bytes=${start}-${start + 4095}` }));
    await got.Body!.transformToByteArray();
    times.push(performance.now() - t0);
  }
  return times;
}

export async function runStoreBench(opts: StoreBenchOptions = {}): Promise<StoreFigure[]> {
  const log = opts.log ?? ((l: string) => console.log(l));
  const stocks = opts.stocks ?? 40;
  const nFirst = opts.firstTouch ?? 24;
  const nSmall = opts.smallGets ?? 200;
  const nRandom = opts.randomPages ?? 300;
  const nClients = opts.clients ?? 4;
  const smallMemoryMb = opts.smallMemoryMb ?? 48;
  const loads: string[] = [];
  const noteLoad = (when: string) =>
    loads.push(
      `${when} ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
    );
  noteLoad('start');
  const dir = mkdtempSync(join(tmpdir(), 'tickvault-store-bench-'));
  const figures: StoreFigure[] = [];
  let swift: TestSwift | null = null;
  let s3: S3Client | null = null;
  const running: Served[] = [];
  try {
    // ---- the lake, its local copy, its upload and offload -----------------------------------
    const lake = join(dir, 'store-lake');
    const local = join(dir, 'local-lake');
    const feed = join(dir, 'feed.jsonl.zst');
    const swiftStarting = startSwift();
    const t0 = performance.now();
    const generate = await generateFeedFile(feed, [
      '--from',
      FIRST_DAY,
      '--days',
      String(DAYS),
      '--stocks',
      String(stocks),
      '--indexes',
      '0',
      '--ticks',
      '0',
      '--seed',
      'store',
    ]);
    const replay: ReplayFigures = await replayFeed(feed, lake);
    rmSync(feed, { force: true });
    const parquetBytes = DATASETS.reduce((a, d) => a + treeBytes(join(lake, d)), 0);
    const lakeBytes = treeBytes(lake);
    const keys = flagshipKeys(lake, nClients);
    const files = level2Files(lake);
    const days = [...new Set(files.map((f) => f.tradedate))].sort();
    if (days.length !== DAYS) throw new Error(`store bench: ${days.length} days replayed, not ${DAYS}`);
    const offloaded = days.slice(0, -1);
    log(
      `store lake: ${stocks} stocks x ${DAYS} days (${days.join(', ')}, snapshots only): ${fmt(replay.rows)} rows, ${(lakeBytes / 1e6).toFixed(1)} MB ` +
        `(${(parquetBytes / 1e6).toFixed(1)} MB Parquet); generate ${generate.wallS.toFixed(1)} s, replay ${(replay.wallMs / 1000).toFixed(1)} s ` +
        `(sealing ${(replay.sealingMs / 1000).toFixed(2)} s${replay.rowText ? `, row text ${(replay.rowText.ms / 1000).toFixed(2)} s` : ''}); made in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
    );
    cpSync(lake, local, { recursive: true });

    swift = await swiftStarting;
    await swift.createBucket(BUCKET);
    s3 = s3ClientFor(swift);
    const cliEnv = { TICKVAULT_NOW: NOW, ...swift.env };
    noteLoad('before upload');
    const upStarted = performance.now();
    const up = await runCli(['upload', '--store', STORE_URL, '--data-dir', lake], { env: cliEnv });
    const upWallMs = performance.now() - upStarted;
    if (up.code !== 0) throw new Error(`store bench: upload failed (${up.code}): ${up.stderr.slice(-500)}`);
    // "stored 3 days in s3://…: N files sent (X MiB, Y MiB/s), 0 found there already, in S s; …"
    const upM = /stored (\d+) days? .*?: (\d+) files sent \(([\d.]+) MiB, [\d.]+ MiB\/s\).* in ([\d.]+) s;/.exec(up.stdout);
    if (!upM) throw new Error(`store bench: upload said ${up.stdout.slice(0, 300)}`);
    const upBytes = Number(upM[3]) * MiB;
    const upSecs = Number(upM[4]);
    const off = await runCli(['offload', '--before', days[days.length - 1], '--store', STORE_URL, '--data-dir', lake], { env: cliEnv });
    if (off.code !== 0) throw new Error(`store bench: offload failed (${off.code}): ${off.stderr.slice(-500)}`);
    const offloadedBytes = treeBytes(local, (p) => offloaded.some((d) => p.includes(`date=${d}`)));
    log(`upload: ${up.stdout.trim()}`);
    log(`offload --before ${days[days.length - 1]}: ${off.stdout.trim()} (${(offloadedBytes / 1e6).toFixed(1)} MB of the local copy's files)`);

    // ---- 4. upload rate beside the seal's ----------------------------------------------------
    const sealRate = parquetBytes / (replay.sealingMs / 1000);
    const upRate = upBytes / upSecs;
    figures.push({
      name: "upload of the lake's days vs the seal's rate",
      measured:
        `${(upRate / 1e6).toFixed(1)} MB/s (${(upBytes / 1e6).toFixed(1)} MB, ${upM[2]} files, ${upSecs.toFixed(1)} s as upload times itself; ` +
        `${(((upBytes / upWallMs) * 1000) / 1e6).toFixed(1)} MB/s over the process's wall ${(upWallMs / 1000).toFixed(1)} s); ` +
        `seal ${(sealRate / 1e6).toFixed(1)} MB/s (${(parquetBytes / 1e6).toFixed(1)} MB Parquet in ${(replay.sealingMs / 1000).toFixed(2)} s of sealing)`,
      ratio: upRate / sealRate,
      target: "≥ 1× the seal's bytes/s",
      met: upRate >= sealRate,
    });

    // ---- the objects of the small-GET reference ---------------------------------------------
    const objects = files
      .filter((f) => offloaded.includes(f.tradedate))
      .map((f) => ({ key: `${PREFIX}/${f.path}`, bytes: statSync(join(local, f.path)).size }));
    const next = random(50);
    await smallGets(s3, objects, 10, next); // the connection and the SDK warmed
    const small = await smallGets(s3, objects, Math.ceil(nSmall / 2), next);

    // ---- 1 and 2. first touch and warm --------------------------------------------------------
    const offFiles = files.filter((f) => f.tradedate === offloaded[0]).sort((a, b) => a.symbol.localeCompare(b.symbol));
    const spare = offFiles[offFiles.length - 1];
    const touched = offFiles.slice(0, Math.min(nFirst, offFiles.length - 1));
    noteLoad('before first touch');
    const loc = await serve('local', local, {}, 1);
    running.push(loc);
    const sto = await serve('store', lake, { TICKVAULT_STORE: STORE_URL, ...swift.env }, 1);
    running.push(sto);
    for (let i = 0; i < 5; i++) {
      await page(loc, 0, keys[0], spare);
      await page(sto, 0, keys[0], spare);
    }
    const before = await metrics(sto);
    const firstLocal: number[] = [];
    const firstStore: number[] = [];
    let pageBytes = 0;
    for (const [i, f] of touched.entries()) {
      // Alternating which goes first, so neither always meets the other's leftovers.
      const pair = i % 2 === 0 ? [loc, sto] : [sto, loc];
      for (const s of pair) {
        const r = await page(s, 0, keys[0], f);
        (s === loc ? firstLocal : firstStore).push(r.ms);
        pageBytes = r.bytes;
      }
    }
    const after = await metrics(sto);
    const gets = after('tickvault_store_ranged_gets') - before('tickvault_store_ranged_gets');
    const blocks = after('tickvault_store_blocks_fetched') - before('tickvault_store_blocks_fetched');
    small.push(...(await smallGets(s3, objects, Math.floor(nSmall / 2), next)));
    const smallP50 = p50(small);
    const diff = p50(firstStore) - p50(firstLocal);
    figures.push({
      name: `first touch of an offloaded full-day level-2 page (${touched.length} stock-days of ${offloaded[0]}, ~${(pageBytes / 1e6).toFixed(2)} MB each)`,
      measured:
        `offloaded p50 ${ms(p50(firstStore))} ms, p90 ${ms(quantile(firstStore, 0.9))} ms; local p50 ${ms(p50(firstLocal))} ms, p90 ${ms(quantile(firstLocal, 0.9))} ms; ` +
        `difference ${ms(diff)} ms = ${(diff / smallP50).toFixed(2)} small GETs (p50 ${ms(smallP50)} ms, p90 ${ms(quantile(small, 0.9))} ms over ${small.length} GetObject of 4 KiB); ` +
        `${(gets / touched.length).toFixed(2)} ranged GETs a page (${gets} GETs, ${blocks} blocks of 128 KiB fetched)`,
      ratio: diff / smallP50,
      target: '≤ 2 small-GET round trips (p50)',
      met: diff / smallP50 <= 2,
    });
    const warmLocal: number[] = [];
    const warmStore: number[] = [];
    for (let round = 0; round < 3; round++)
      for (const f of touched) {
        warmLocal.push((await page(loc, 0, keys[0], f)).ms);
        warmStore.push((await page(sto, 0, keys[0], f)).ms);
      }
    const warmed = await metrics(sto);
    const warmRatio = p50(warmStore) / p50(warmLocal);
    figures.push({
      name: 'warm: the same pages again, 3 rounds',
      measured:
        `offloaded p50 ${ms(p50(warmStore))} ms, p90 ${ms(quantile(warmStore, 0.9))} ms; local p50 ${ms(p50(warmLocal))} ms, p90 ${ms(quantile(warmLocal, 0.9))} ms; ` +
        `${warmed('tickvault_store_ranged_gets') - after('tickvault_store_ranged_gets')} ranged GETs sent`,
      ratio: warmRatio,
      target: '≈ 1× local (≤ 1.2)',
      met: warmRatio <= 1.2,
    });
    running.length = 0;
    await stopServed(sto);
    await stopServed(loc);

    // ---- 3. whole-market random pages, store cache at 10% --------------------------------------
    const pool = files.filter((f) => offloaded.includes(f.tradedate));
    const pick = random(7);
    const sequence = Array.from({ length: nRandom }, () => pool[Math.floor(pick() * pool.length)]);
    const cacheMb = Math.max(1, Math.floor((offloadedBytes * 0.1) / MiB));
    const randomRun = async (s: Served): Promise<{ perS: number; times: number[] }> => {
      for (let i = 0; i < 3; i++) await page(s, 0, keys[0], spare);
      let at = 0;
      const times: number[] = [];
      const t = performance.now();
      await Promise.all(
        s.clients.map(async (_c, ci) => {
          while (at < sequence.length) times.push((await page(s, ci, keys[ci], sequence[at++])).ms);
        }),
      );
      return { perS: (sequence.length * 1000) / (performance.now() - t), times };
    };
    // With the default memory budget (--cache-mb 768) the detail cache holds every page's rows
    // once made, so pages asked again never reach either disk; with a small one (both servers
    // alike) most pages are made again: from the local row text, or from the store's blocks
    // through the bounded cache.
    for (const memoryMb of [null, smallMemoryMb]) {
      const memory = memoryMb === null ? 'default --cache-mb (768)' : `--cache-mb ${memoryMb} on both`;
      const memoryEnv: Record<string, string> = memoryMb === null ? {} : { TICKVAULT_CACHE_MB: String(memoryMb) };
      noteLoad(`before random pages, ${memory}`);
      const loc3 = await serve('local', local, memoryEnv, nClients);
      running.push(loc3);
      const localRun = await randomRun(loc3);
      running.length = 0;
      const localRss = await stopServed(loc3);
      const sto3 = await serve('store', lake, { ...memoryEnv, TICKVAULT_STORE: STORE_URL, TICKVAULT_STORE_CACHE_MB: String(cacheMb), ...swift.env }, nClients);
      running.push(sto3);
      const storeRun = await randomRun(sto3);
      const m3 = await metrics(sto3);
      running.length = 0;
      const storeRss = await stopServed(sto3);
      const cacheBytes = m3('tickvault_store_cache_bytes');
      const bound = cacheMb * MiB;
      const ratio3 = storeRun.perS / localRun.perS;
      figures.push({
        name:
          `whole-market random pages, ${memory}: ${nRandom} of ${pool.length} offloaded stock-days, ${nClients} clients, ` +
          `--store-cache-mb ${cacheMb} (10% of ${(offloadedBytes / MiB).toFixed(0)} MiB)`,
        measured:
          `offloaded ${storeRun.perS.toFixed(1)} pages/s (p50 ${ms(p50(storeRun.times))} ms, p90 ${ms(quantile(storeRun.times, 0.9))} ms); ` +
          `local ${localRun.perS.toFixed(1)} pages/s (p50 ${ms(p50(localRun.times))} ms, p90 ${ms(quantile(localRun.times, 0.9))} ms); ` +
          `store: ${m3('tickvault_store_ranged_gets')} ranged GETs, ${m3('tickvault_store_blocks_fetched')} blocks fetched, ${m3('tickvault_store_cache_hits')} cache hits`,
        ratio: ratio3,
        target: '≥ 0.5× local pages/s',
        met: ratio3 >= 0.5,
      });
      figures.push({
        name: `the store cache's bytes within its bound, ${memory}`,
        measured: `${(cacheBytes / MiB).toFixed(2)} MiB on disk after the run, bound ${cacheMb} MiB`,
        ratio: cacheBytes / bound,
        target: '≤ 1× the bound',
        met: cacheBytes <= bound,
      });
      figures.push({
        name: `the server's peak RSS (VmHWM) over the random pages, ${memory}`,
        measured: `with --store ${(storeRss / MiB).toFixed(0)} MiB; local ${(localRss / MiB).toFixed(0)} MiB`,
        ratio: storeRss / localRss,
        target: 'printed (beside local)',
        met: true,
      });
    }
    noteLoad('end');

    for (const f of figures) log(`${f.name}: ${f.measured} — ${f.ratio.toFixed(2)}x; target ${f.target}: ${met(f.met)}`);
    log(`load average (1, 5, 15 min): ${loads.join('; ')}`);
    return figures;
  } finally {
    for (const s of running) await stopServed(s).catch(() => undefined);
    s3?.destroy();
    await swift?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runStoreBench();
}
