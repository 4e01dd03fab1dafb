/**
 * A peer tickvault server, through its API and within its rules, by the mirror's own means
 * (ingest/mirror/upstream.ts: one request in flight per interface, `--rate` a second, 429 and
 * 503 waited out by their Retry-After):
 *   - a level-2, trade or order file is the peer's `format: "parquet"` download, which is the
 *     stored file itself; a download is always the peer's current version, so its
 *     `tickvault.version` metadata must be the version this catalog lists for the file;
 *   - an index file has no download, and a stock file's download may be refused (the Parquet
 *     quota spent, a plan without downloads): then the mirror fetches that day's pages of the
 *     symbols into a scratch data directory and seals them there, which reproduces the sealed
 *     file byte for byte (api-contract: Import and mirror), and the file is copied from there
 *     verified (version 1 only: pages are the peer's current rows).
 * Either way the bytes are installed only when their SHA-256 is this catalog's.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { TickvaultDownloadError, TickvaultError } from '../../client/index.js';
import { runMirror } from '../mirror/mirrorRun.js';
import { downloadStoredFile } from '../mirror/symbolDayFetch.js';
import { Upstream, UpstreamUnreachableError } from '../mirror/upstream.js';
import { openIngestStores } from '../staging/stores.js';
import { VERSION_KEY } from '../../storage/symbolDayFile.js';
import type { Logger } from '../../shared/logger.js';
import type { Dataset } from '../../shared/schema.js';
import type { DoctorCatalogEntry } from '../../storage/doctorCheck.js';
import { fsyncDir, writeDurably } from '../../shared/durableFile.js';
import { parseFooterOrReason } from '../../storage/parquet/generalReader.js';
import { copyPeerFile } from './dirPeer.js';
import type { FetchOutcome, PeerSource } from './peerSource.js';

export interface UrlPeerOptions {
  readonly url: string;
  readonly apikey: string;
  /** Requests per second to the peer, all interfaces together. */
  readonly rate: number;
  readonly dataDir: string;
  readonly nowMs: () => number;
  readonly log: Logger;
}

export function urlPeer(opts: UrlPeerOptions): PeerSource {
  const upstream = new Upstream(opts.url, opts.apikey, opts.rate);
  return {
    label: opts.url,
    async installAll(entries, done) {
      const touched = new Set<string>();
      const finish = (e: DoctorCatalogEntry, outcome: FetchOutcome) => {
        if (outcome.kind === 'repaired') touched.add(dirname(join(opts.dataDir, e.path)));
        done(e, outcome);
      };
      // Symbol-days the mirror rebuilds from pages, by dataset and day: index days always,
      // and stock days once the peer refuses that interface's downloads (its Parquet quota
      // spent, or a plan without downloads), as the mirror itself falls back.
      const byPages = new Map<string, { dataset: Dataset; day: string; files: DoctorCatalogEntry[] }>();
      const queue = (e: DoctorCatalogEntry) => {
        const key = `${e.dataset}|${e.tradedate}`;
        const group = byPages.get(key) ?? { dataset: e.dataset, day: e.tradedate, files: [] };
        group.files.push(e);
        byPages.set(key, group);
      };
      const pagesOnly = new Set<Dataset>(['index']);
      // Each dataset's downloads in order, the datasets side by side: the peer allows one
      // request per interface at a time, so three interfaces take three at once (the pacer
      // still holds all of them to --rate).
      const byDataset = new Map<Dataset, DoctorCatalogEntry[]>();
      for (const e of entries) {
        if (pagesOnly.has(e.dataset)) queue(e);
        else byDataset.set(e.dataset, [...(byDataset.get(e.dataset) ?? []), e]);
      }
      await Promise.all(
        [...byDataset.values()].map(async (list) => {
          for (const e of list) {
            if (pagesOnly.has(e.dataset)) {
              queue(e);
              continue;
            }
            try {
              finish(e, await downloadOne(upstream, opts.dataDir, e));
            } catch (err) {
              if (err instanceof TickvaultError && (err.code === 429 || err.code === 403)) {
                opts.log.warn(
                  { dataset: e.dataset, code: err.code, reason: err.message },
                  'Parquet downloads refused by the peer; the rest of this dataset is rebuilt from its pages',
                );
                pagesOnly.add(e.dataset);
                queue(e);
              } else finish(e, outcomeOf(err));
            }
          }
        }),
      );
      for (const g of byPages.values()) await mirrorDay(opts, upstream, g.dataset, g.day, g.files, finish);
      for (const dir of touched) await fsyncDir(dir);
    },
  };
}

/** A peer's refusal, a broken download or an unreachable peer is this file's outcome, not the run's end. */
function outcomeOf(e: unknown): FetchOutcome {
  return { kind: 'not-repaired', reason: reasonOf(e) };
}

/** The one sentence of the peer's errors; anything else is not the peer's and ends the run. */
function reasonOf(e: unknown): string {
  if (e instanceof TickvaultError) return `the peer answered ${e.code}: ${e.message}`;
  if (e instanceof TickvaultDownloadError || e instanceof UpstreamUnreachableError) return e.message;
  throw e;
}

async function downloadOne(upstream: Upstream, dataDir: string, e: DoctorCatalogEntry): Promise<FetchOutcome> {
  const bytes = await downloadStoredFile(upstream, e.dataset as Exclude<Dataset, 'index'>, e.tradedate, e.symbol);
  if (bytes === null) return { kind: 'not-found' };
  const want = e.version ?? 1;
  const theirs = versionOf(bytes);
  if (theirs !== null && theirs !== want) {
    return {
      kind: 'not-repaired',
      reason: `the peer's current version is ${theirs}, this file is version ${want} (a download is always the current version; repair from a data directory or backup that holds version ${want})`,
    };
  }
  const sha = createHash('sha256').update(bytes).digest('hex');
  if (sha !== e.sha256) return { kind: 'refused', peerSha256: sha, peerBytes: bytes.length };
  const dest = join(dataDir, e.path);
  await mkdir(dirname(dest), { recursive: true });
  await writeDurably(dest, bytes);
  return { kind: 'repaired' };
}

/** The `tickvault.version` a restated file carries (version 1 carries none); null when the bytes are no Parquet. */
function versionOf(bytes: Uint8Array): number | null {
  const footer = parseFooterOrReason(bytes);
  if (typeof footer === 'string') return null;
  const kv = footer.key_value_metadata?.find((m) => m.key === VERSION_KEY);
  return kv?.value === undefined ? 1 : Number(kv.value);
}

/**
 * A dataset-day's damaged files, by the mirror into a scratch data directory (removed after).
 * Pages are the peer's current rows, which the mirror seals as version 1: a later version
 * has no source at a peer's API but its download.
 */
async function mirrorDay(
  opts: UrlPeerOptions,
  upstream: Upstream,
  dataset: Dataset,
  day: string,
  files: readonly DoctorCatalogEntry[],
  finish: (e: DoctorCatalogEntry, o: FetchOutcome) => void,
): Promise<void> {
  const v1 = files.filter((e) => (e.version ?? 1) === 1);
  for (const e of files) {
    if ((e.version ?? 1) !== 1) {
      finish(e, {
        kind: 'not-repaired',
        reason: `version ${e.version} cannot be rebuilt from the peer's pages (they are sealed as version 1)${dataset === 'index' ? '' : ' and its download was refused'}; repair from a data directory or backup`,
      });
    }
  }
  if (v1.length === 0) return;
  const symbols = v1.map((e) => e.symbol);
  const scratch = await mkdtemp(join(tmpdir(), 'tickvault-repair-'));
  try {
    let stopped: string | null = null;
    const stores = openIngestStores(scratch, opts.nowMs);
    try {
      // The scratch seal is a means, not news: at info its "day sealed" would read as this
      // directory's. Warnings (and debug, when asked for) still come through.
      const log = opts.log.level === 'info' ? opts.log.child({ scratch }, { level: 'warn' }) : opts.log.child({ scratch });
      const outcome = await runMirror(
        // Through the downloads' upstream: one pacer and one lane per interface for the peer.
        { stores, nowMs: opts.nowMs, log, upstream },
        {
          upstreamUrl: opts.url,
          apikey: opts.apikey,
          days: [day],
          datasets: [dataset],
          rate: opts.rate,
          stocks: dataset === 'index' ? null : symbols,
          indexes: dataset === 'index' ? symbols : null,
        },
      );
      stopped = outcome.stopped[0] ?? outcome.refused[0] ?? outcome.damagedUpstream[0] ?? null;
    } catch (e) {
      stopped = reasonOf(e);
    } finally {
      stores.close();
    }
    for (const e of v1) finish(e, await copyFromScratch(scratch, opts.dataDir, e, stopped));
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** The scratch seal's file, verified; none there is the mirror's stop reason when it stopped. */
async function copyFromScratch(scratch: string, dataDir: string, e: DoctorCatalogEntry, stopped: string | null): Promise<FetchOutcome> {
  const outcome = await copyPeerFile(scratch, dataDir, e);
  return outcome.kind === 'not-found' && stopped !== null ? { kind: 'not-repaired', reason: stopped } : outcome;
}
