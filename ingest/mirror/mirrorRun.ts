/**
 * A mirror run: one lane per dataset walks the days in order; each day's symbols (given, or
 * listed by the upstream) are fetched one after another into the spool and recorded; once a
 * dataset-day is whole it is imported and sealed here through the import path, one day at a
 * time across lanes (staging and the seal workers are one). Lanes run side by side because
 * the upstream's in-flight rule is per interface, and the pacer keeps all of them together
 * under the upstream's per-second limit.
 *
 * Resuming needs nothing but the records: a symbol-day recorded with its spool file present is
 * not fetched again, a dataset-day recorded done is skipped, and a crash between a seal and
 * its record is finished by importing the spool again (all "already there").
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../../shared/logger.js';
import type { Dataset } from '../../shared/schema.js';
import { Limiter } from '../../shared/limiter.js';
import { atStage } from '../diskFault.js';
import type { SealResult } from '../seal/day.js';
import type { IngestStores } from '../staging/stores.js';
import { importAndSeal } from '../import/importAndSeal.js';
import { emptyImportStats, type ImportStats } from '../import/importFiles.js';
import { planImport, type PlannedFile } from '../import/importPlan.js';
import { MirrorRecords, type FetchedSymbolDay } from './mirrorRecords.js';
import { pruneSpool, spoolDayDir, spoolMappingPath } from './spool.js';
import { discoverSymbols, fetchSymbolDay, InterfaceStopped, INTERFACE_OF, UpstreamFileDamaged, type FetchContext } from './symbolDayFetch.js';
import { Upstream, type UpstreamCounts, type UpstreamInterface } from './upstream.js';

export interface MirrorPlan {
  /** As given (the base address, or one ending in /api). */
  readonly upstreamUrl: string;
  readonly apikey: string;
  /** Trading days, ascending. */
  readonly days: readonly string[];
  readonly datasets: readonly Dataset[];
  /** Canonical stock codes, or null: each day's stocks as the upstream lists them. */
  readonly stocks: readonly string[] | null;
  /** Index codes, or null: each day's indexes as the upstream lists them. */
  readonly indexes: readonly string[] | null;
  /** Requests per second, all interfaces together. */
  readonly rate: number;
}

export interface MirrorProgress {
  readonly symbolDaysDone: number;
  /** Symbol-days known so far (grows as each day's symbols are listed). */
  readonly symbolDaysKnown: number;
  readonly rows: number;
  readonly counts: UpstreamCounts;
}

export interface MirrorDeps {
  readonly stores: IngestStores;
  readonly nowMs: () => number;
  readonly log: Logger;
  readonly onProgress?: (p: MirrorProgress) => void;
  /**
   * The upstream to fetch through, when the caller already talks to it (repair downloads
   * through one while the mirror fetches pages): one pacer and one lane per interface for one
   * peer, so `--rate` and the one-request rule hold for both together. Default: a new one
   * from the plan's address, key and rate.
   */
  readonly upstream?: Upstream;
}

export interface MirrorOutcome {
  /** Symbol-days fetched in this run, by how they came. */
  readonly fetched: { parquet: number; json: number; nodata: number };
  /** Symbol-days found done by an earlier run. */
  resumed: number;
  /** Rows fetched in this run. */
  rows: number;
  /** Dataset-days found sealed by an earlier mirror run. */
  daysAlreadyDone: number;
  readonly sealed: SealResult[];
  readonly importStats: ImportStats;
  /** Why an interface stopped (one line each). */
  readonly stopped: string[];
  /** Dataset-days refused, a sealed day here differing from the upstream's (one line each). */
  readonly refused: string[];
  /** Dataset-days left unsealed because a file of theirs is damaged at the upstream (one line each). */
  readonly damagedUpstream: string[];
  readonly counts: UpstreamCounts;
}

/**
 * What the lanes of one run share. Each phase below is a function over it; `known`, `done` and
 * `failed` change as the lanes go, the rest is fixed when the run opens.
 */
interface MirrorRun {
  readonly deps: MirrorDeps;
  readonly plan: MirrorPlan;
  readonly upstream: Upstream;
  readonly records: MirrorRecords;
  readonly ctx: FetchContext;
  readonly outcome: MirrorOutcome;
  /** One day imported and sealed at a time across lanes: staging and the seal workers are one. */
  readonly sealing: Limiter;
  /** One listing per asset and day, shared by the lanes that need it (level2, trade, order). */
  readonly listings: Map<string, Promise<string[]>>;
  /** Progress: symbol-days listed so far, and those done (fetched, resumed or damaged at the upstream). */
  known: number;
  done: number;
  /**
   * A lane that fails (the upstream unreachable, a file that is not what was asked) stops the
   * others at their next symbol-day; what they finished is recorded and kept.
   */
  failed: boolean;
}

export async function runMirror(deps: MirrorDeps, plan: MirrorPlan): Promise<MirrorOutcome> {
  const run = openRun(deps, plan);
  const settled = await Promise.allSettled(
    plan.datasets.map((d) =>
      lane(run, d).catch((e: unknown) => {
        run.failed = true;
        throw e;
      }),
    ),
  );
  pruneSpool(run.ctx.spoolRoot);
  const failure = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failure !== undefined) throw failure.reason;
  return run.outcome;
}

function openRun(deps: MirrorDeps, plan: MirrorPlan): MirrorRun {
  const { stores, log } = deps;
  const upstream = deps.upstream ?? new Upstream(plan.upstreamUrl, plan.apikey, plan.rate);
  return {
    deps,
    plan,
    upstream,
    records: new MirrorRecords(stores.staging.db, plan.upstreamUrl),
    ctx: { upstream, dataDir: stores.layout.dataDir, spoolRoot: stores.layout.mirrorSpool, log, jsonOnly: new Set<UpstreamInterface>() },
    outcome: {
      fetched: { parquet: 0, json: 0, nodata: 0 },
      resumed: 0,
      rows: 0,
      daysAlreadyDone: 0,
      sealed: [],
      importStats: emptyImportStats(),
      stopped: [],
      refused: [],
      damagedUpstream: [],
      counts: upstream.counts,
    },
    sealing: new Limiter(1),
    listings: new Map(),
    known: 0,
    done: 0,
    failed: false,
  };
}

function report(run: MirrorRun): void {
  run.deps.onProgress?.({ symbolDaysDone: run.done, symbolDaysKnown: run.known, rows: run.outcome.rows, counts: run.upstream.counts });
}

/** One dataset's days in order, until they are all mirrored, its interface stops or a lane fails. */
async function lane(run: MirrorRun, dataset: Dataset): Promise<void> {
  for (const day of run.plan.days) {
    if (run.failed) return;
    if ((await mirrorDay(run, dataset, day)) === 'stop') return;
  }
}

/** 'stop' ends the lane: its interface stopped, or another lane failed. */
type DayEnd = 'next' | 'stop';

/** One dataset-day through the phases: skip if done, list, check, fetch, seal, record. */
async function mirrorDay(run: MirrorRun, dataset: Dataset, day: string): Promise<DayEnd> {
  if (run.records.isDayDone(dataset, day)) {
    run.outcome.daysAlreadyDone++;
    dropSpool(run, dataset, day);
    return 'next';
  }
  const symbols = await listSymbols(run, dataset, day);
  if (symbols === null) return 'stop';
  const before = symbols.map((s) => run.records.symbolDay(dataset, day, s));
  if (run.deps.stores.catalogReader.isDaySealed(dataset, day) && before.some((r) => r === null)) {
    // Sealed here by something other than a mirror of these symbols: never changed by one.
    run.outcome.refused.push(
      `${dataset} ${day} is already sealed here, not by a mirror of these symbols; a sealed day changes only through \`tickvault restate\``,
    );
    return 'next';
  }
  run.known += symbols.length;
  report(run);
  const fetched = await fetchDay(run, dataset, day, symbols, before);
  if (fetched === 'stop') return 'stop';
  if (fetched.damagedThere) return 'next'; // the spool stays: a rerun asks only for what is missing
  if (!(await run.sealing.run(() => sealDay(run, dataset, day, fetched.symbolDays)))) return 'next'; // the spool stays: a rerun asks nothing again
  run.records.recordDayDone(dataset, day, symbols.length);
  dropSpool(run, dataset, day);
  run.deps.log.debug({ dataset, tradedate: day, interface: INTERFACE_OF[dataset], symbols: symbols.length }, 'dataset-day mirrored');
  return 'next';
}

function dropSpool(run: MirrorRun, dataset: Dataset, day: string): void {
  rmSync(spoolDayDir(run.ctx.spoolRoot, dataset, day), { recursive: true, force: true });
}

/** The day's symbols (given, or listed by the upstream once per asset); null when the listing's interface stopped. */
async function listSymbols(run: MirrorRun, dataset: Dataset, day: string): Promise<readonly string[] | null> {
  const given = dataset === 'index' ? run.plan.indexes : run.plan.stocks;
  if (given !== null) return given;
  const asset = dataset === 'index' ? 'index' : 'stock';
  const key = `${asset}|${day}`;
  let listing = run.listings.get(key);
  if (listing === undefined) run.listings.set(key, (listing = discoverSymbols(run.upstream, asset, day)));
  try {
    return await listing;
  } catch (e) {
    if (!(e instanceof InterfaceStopped)) throw e;
    run.outcome.stopped.push(`${dataset}: the upstream's ${dataset === 'index' ? 'indexes' : 'stocks'} of ${day} could not be listed, ${e.message}`);
    return null;
  }
}

interface FetchedDay {
  readonly symbolDays: readonly FetchedSymbolDay[];
  /** A symbol-day damaged at the upstream: the day is not sealed this run. */
  readonly damagedThere: boolean;
}

/**
 * The day's symbol-days, one after another: those an earlier run recorded with their spool file
 * kept, the rest fetched and recorded. The day's other symbols are still fetched when one is
 * damaged at the upstream (recorded: a rerun asks only for the damaged one).
 */
async function fetchDay(
  run: MirrorRun,
  dataset: Dataset,
  day: string,
  symbols: readonly string[],
  before: readonly (FetchedSymbolDay | null)[],
): Promise<FetchedDay | 'stop'> {
  const { outcome } = run;
  const symbolDays: FetchedSymbolDay[] = [];
  let damagedThere = false;
  for (let i = 0; i < symbols.length; i++) {
    if (run.failed) return 'stop';
    const had = before[i];
    if (had != null && (had.spool === null ? had.via === 'nodata' : existsSync(join(run.ctx.dataDir, had.spool)))) {
      symbolDays.push(had);
      outcome.resumed++;
      run.done++;
      report(run);
      continue;
    }
    const got = await fetchSymbol(run, dataset, day, symbols[i]!);
    if (got === 'stop') return 'stop';
    run.done++;
    if (got === 'damaged') {
      damagedThere = true;
      continue;
    }
    outcome.fetched[got.via]++;
    outcome.rows += got.rows;
    symbolDays.push(got);
    report(run);
  }
  return { symbolDays, damagedThere };
}

/** One symbol-day fetched into the spool and recorded; 'damaged' at the upstream, or 'stop' when its interface stopped. */
async function fetchSymbol(run: MirrorRun, dataset: Dataset, day: string, symbol: string): Promise<FetchedSymbolDay | 'damaged' | 'stop'> {
  const { ctx, outcome } = run;
  let got: FetchedSymbolDay;
  try {
    got = await atStage('spool', ctx.spoolRoot, () => fetchSymbolDay(ctx, dataset, day, symbol));
  } catch (e) {
    if (e instanceof UpstreamFileDamaged) {
      outcome.damagedUpstream.push(`${dataset} ${day} not mirrored: ${e.message}`);
      return 'damaged';
    }
    if (!(e instanceof InterfaceStopped)) throw e;
    outcome.stopped.push(e.message);
    return 'stop';
  }
  await atStage('spool', run.deps.stores.layout.ingestDb, async () => run.records.recordSymbolDay(got));
  run.deps.log.debug({ dataset, tradedate: day, symbol, via: got.via, rows: got.rows }, 'symbol-day fetched');
  return got;
}

/** The day's spool imported and sealed through the import path; false when the import refused a file of it (it differs from what is sealed here). */
async function sealDay(run: MirrorRun, dataset: Dataset, day: string, fetched: readonly FetchedSymbolDay[]): Promise<boolean> {
  const { deps, outcome } = run;
  const spooled = (via: 'parquet' | 'json') => fetched.filter((f) => f.via === via).map((f) => join(run.ctx.dataDir, f.spool!));
  const parquet = spooled('parquet');
  const csv = spooled('json');
  const files: PlannedFile[] = [
    ...(parquet.length > 0 ? await planImport(parquet, { mapping: null, dataset }) : []),
    ...(csv.length > 0 ? await planImport(csv, { mapping: spoolMappingPath(dataset), dataset }) : []),
  ];
  if (files.length === 0) return true;
  const { stats, sealed } = await importAndSeal(
    {
      stores: deps.stores,
      nowMs: deps.nowMs,
      onDaySealed: (r) => deps.log.info(r, 'day sealed'),
      onBars: (kept, ms) => {
        if (kept.days > 0) deps.log.info({ days: kept.days, stocks: kept.stocks, bytes: kept.bytes, ms }, 'bars made');
        for (const f of kept.failed) deps.log.warn({ tradedate: f.tradedate, reason: f.reason }, 'bars not made for this day; run tickvault doctor');
      },
    },
    files,
  );
  mergeStats(outcome.importStats, stats);
  outcome.sealed.push(...sealed);
  for (const r of stats.refused) {
    outcome.refused.push(
      `${dataset} ${day}: ${r.file} refused, nothing of it staged: ${r.reason}${r.sealedDay ? '; a sealed day changes only through `tickvault restate`' : ''}`,
    );
  }
  return stats.refused.length === 0;
}

function mergeStats(into: ImportStats, s: ImportStats): void {
  into.rows += s.rows;
  into.staged += s.staged;
  into.alreadyThere += s.alreadyThere;
  into.quarantined += s.quarantined;
  into.refusedRows += s.refusedRows;
  for (const [r, n] of s.reasons) into.reasons.set(r, (into.reasons.get(r) ?? 0) + n);
  for (const [f, n] of s.quarantinedFiles) into.quarantinedFiles.set(f, (into.quarantinedFiles.get(f) ?? 0) + n);
  into.refused.push(...s.refused);
  for (const d of s.days) into.days.add(d);
  for (const d of s.sealedDays) into.sealedDays.add(d);
  for (const d of s.sealedDuring) into.sealedDuring.add(d);
}
