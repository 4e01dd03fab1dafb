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

export async function runMirror(deps: MirrorDeps, plan: MirrorPlan): Promise<MirrorOutcome> {
  const { stores, log } = deps;
  const dataDir = stores.layout.dataDir;
  const upstream = deps.upstream ?? new Upstream(plan.upstreamUrl, plan.apikey, plan.rate);
  const records = new MirrorRecords(stores.staging.db, plan.upstreamUrl);
  const ctx: FetchContext = { upstream, dataDir, spoolRoot: stores.layout.mirrorSpool, log, jsonOnly: new Set<UpstreamInterface>() };
  const outcome: MirrorOutcome = {
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
  };
  let known = 0;
  let done = 0;
  const report = () => deps.onProgress?.({ symbolDaysDone: done, symbolDaysKnown: known, rows: outcome.rows, counts: upstream.counts });
  const sealing = new Limiter(1);
  // One listing per asset and day, shared by the lanes that need it (level2, trade, order).
  const listings = new Map<string, Promise<string[]>>();
  const symbolsOf = (dataset: Dataset, day: string): Promise<readonly string[]> => {
    const given = dataset === 'index' ? plan.indexes : plan.stocks;
    if (given !== null) return Promise.resolve(given);
    const asset = dataset === 'index' ? 'index' : 'stock';
    const key = `${asset}|${day}`;
    let p = listings.get(key);
    if (p === undefined) listings.set(key, (p = discoverSymbols(upstream, asset, day)));
    return p;
  };

  /** False when the import refused a file of the day (it differs from what is sealed here). */
  const sealDay = async (dataset: Dataset, day: string, fetched: readonly FetchedSymbolDay[]): Promise<boolean> => {
    const spooled = (via: 'parquet' | 'json') => fetched.filter((f) => f.via === via).map((f) => join(dataDir, f.spool!));
    const parquet = spooled('parquet');
    const csv = spooled('json');
    const files: PlannedFile[] = [
      ...(parquet.length > 0 ? await planImport(parquet, { mapping: null, dataset }) : []),
      ...(csv.length > 0 ? await planImport(csv, { mapping: spoolMappingPath(dataset), dataset }) : []),
    ];
    if (files.length === 0) return true;
    const { stats, sealed } = await importAndSeal({ stores, nowMs: deps.nowMs, onDaySealed: (r) => log.info(r, 'day sealed') }, files);
    mergeStats(outcome.importStats, stats);
    outcome.sealed.push(...sealed);
    for (const r of stats.refused) {
      outcome.refused.push(
        `${dataset} ${day}: ${r.file} refused, nothing of it staged: ${r.reason}${r.sealedDay ? '; a sealed day changes only through `tickvault restate`' : ''}`,
      );
    }
    return stats.refused.length === 0;
  };

  // A lane that fails (the upstream unreachable, a file that is not what was asked) stops the
  // others at their next symbol-day; what they finished is recorded and kept.
  let failed = false;

  const lane = async (dataset: Dataset): Promise<void> => {
    const iface = INTERFACE_OF[dataset];
    for (const day of plan.days) {
      if (failed) return;
      if (records.isDayDone(dataset, day)) {
        outcome.daysAlreadyDone++;
        rmSync(spoolDayDir(ctx.spoolRoot, dataset, day), { recursive: true, force: true });
        continue;
      }
      let symbols: readonly string[];
      try {
        symbols = await symbolsOf(dataset, day);
      } catch (e) {
        if (!(e instanceof InterfaceStopped)) throw e;
        outcome.stopped.push(`${dataset}: the upstream's ${dataset === 'index' ? 'indexes' : 'stocks'} of ${day} could not be listed, ${e.message}`);
        return;
      }
      const before = symbols.map((s) => records.symbolDay(dataset, day, s));
      if (stores.catalogReader.isDaySealed(dataset, day) && before.some((r) => r === null)) {
        // Sealed here by something other than a mirror of these symbols: never changed by one.
        outcome.refused.push(
          `${dataset} ${day} is already sealed here, not by a mirror of these symbols; a sealed day changes only through \`tickvault restate\``,
        );
        continue;
      }
      known += symbols.length;
      report();
      const fetched: FetchedSymbolDay[] = [];
      // The day's other symbols are still fetched (recorded: a rerun asks only for the damaged one).
      let damagedThere = false;
      for (let i = 0; i < symbols.length; i++) {
        if (failed) return;
        const symbol = symbols[i]!;
        const had = before[i];
        if (had != null && (had.spool === null ? had.via === 'nodata' : existsSync(join(dataDir, had.spool)))) {
          fetched.push(had);
          outcome.resumed++;
          done++;
          report();
          continue;
        }
        let got: FetchedSymbolDay;
        try {
          got = await atStage('spool', ctx.spoolRoot, () => fetchSymbolDay(ctx, dataset, day, symbol));
        } catch (e) {
          if (e instanceof UpstreamFileDamaged) {
            outcome.damagedUpstream.push(`${dataset} ${day} not mirrored: ${e.message}`);
            damagedThere = true;
            done++;
            continue;
          }
          if (!(e instanceof InterfaceStopped)) throw e;
          outcome.stopped.push(e.message);
          return;
        }
        await atStage('spool', stores.layout.ingestDb, async () => records.recordSymbolDay(got));
        log.debug({ dataset, tradedate: day, symbol, via: got.via, rows: got.rows }, 'symbol-day fetched');
        outcome.fetched[got.via]++;
        outcome.rows += got.rows;
        fetched.push(got);
        done++;
        report();
      }
      if (damagedThere) continue; // the spool stays: a rerun asks only for what is missing
      if (!(await sealing.run(() => sealDay(dataset, day, fetched)))) continue; // the spool stays: a rerun asks nothing again
      records.recordDayDone(dataset, day, symbols.length);
      rmSync(spoolDayDir(ctx.spoolRoot, dataset, day), { recursive: true, force: true });
      log.debug({ dataset, tradedate: day, interface: iface, symbols: symbols.length }, 'dataset-day mirrored');
    }
  };

  const settled = await Promise.allSettled(
    plan.datasets.map((d) =>
      lane(d).catch((e: unknown) => {
        failed = true;
        throw e;
      }),
    ),
  );
  pruneSpool(ctx.spoolRoot);
  const failure = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failure !== undefined) throw failure.reason;
  return outcome;
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
