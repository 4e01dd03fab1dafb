/**
 * Prometheus metrics of one server process (GET /metrics), in a registry of its own so that
 * several apps in one process (tests, bench) never collide:
 *
 *   tickvault_api_requests_total{apiname,code}            POST /api answers by operation and code
 *   tickvault_api_request_duration_seconds{apiname,code}  until the last byte is written
 *   tickvault_api_requests_in_flight                      POST /api requests not yet finished
 *   tickvault_api_requests_aborted_total{apiname}         client gone before the last byte
 *   tickvault_api_response_bytes_total{apiname}           body bytes sent (incl. Parquet files)
 *   tickvault_api_slots_held                              one-request slots this process holds
 *   tickvault_quota_rejections_total{apiname,reason}      429/503: rate_limit, trial_calls,
 *                                                         parquet_quota, slot_busy, state_unavailable,
 *                                                         state_disk, damaged_file (ApiError.reason)
 *   tickvault_damaged_files                               stored files found damaged, not yet replaced
 *                                                         (their symbol-days answer 503: api-contract 74)
 *   tickvault_calendar_known_range_end_timestamp_seconds  end of the calendar's known range (alert
 *                                                         when it is less than 30 days away)
 *   tickvault_late_messages_waiting{dataset}              messages for sealed days waiting in
 *                                                         quarantine for `restate --from-quarantine`
 *   tickvault_live_rows{dataset}                          records committed to staging for live days
 *                                                         (duplicates not resolved yet)
 *   tickvault_live_newest_row_age_seconds{dataset}        the server's now minus the exchange time of
 *                                                         the newest committed row of the latest live
 *                                                         day; no sample when there is no live day
 *   tickvault_process_… / tickvault_nodejs_…              prom-client's default process metrics
 *
 * `apiname` is level2_quote_history, level2_trade_history, level2_order_history, tick_history or unknown (anything a client sent that is
 * not an operation), so label cardinality stays bounded whatever arrives.
 */
import type { Context, Middleware, Next } from 'koa';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { knownRangeEndMs } from '../../calendar/tradingCalendar.js';
import type { ErrorReason } from './apiError.js';
import { apinameOf, isApiRequest, summarize } from './requestLog.js';
import { onResponseDone } from './responseDone.js';
import type { LiveFigures } from '../reading/stagingFigures.js';
import type { BlockCacheFigures } from '../../storage/store/blockCache.js';

export const METRICS_PATH = '/metrics';

export type RejectionReason =
  'rate_limit' | 'trial_calls' | 'parquet_quota' | 'slot_busy' | 'state_unavailable' | 'state_disk' | 'damaged_file' | 'store_unavailable';

/** The rejection label of an answer refused by a limit (ApiError.reason); null for anything else. */
export function rejectionReason(reason: ErrorReason | undefined): RejectionReason | null {
  switch (reason) {
    case 'rate':
      return 'rate_limit';
    case 'trial':
      return 'trial_calls';
    case 'quota':
      return 'parquet_quota';
    case 'slot':
      return 'slot_busy';
    case 'state':
      return 'state_unavailable';
    case 'disk':
      return 'state_disk';
    case 'damaged':
      return 'damaged_file';
    case 'store':
      return 'store_unavailable';
    default:
      return null;
  }
}

/** Gauges of one scrape read their source once within this window. */
const SCRAPE_MS = 1000;

const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export interface MetricsOptions {
  /** Slots held by this process's in-flight responses (App.heldSlots.size). */
  readonly slotsHeld?: () => number;
  /** Also collect prom-client's default process metrics. Default true. */
  readonly processMetrics?: boolean;
  /** Late messages waiting in quarantine, per dataset (serve/reading/stagingFigures.ts). */
  readonly lateWaiting?: () => ReadonlyMap<string, number>;
  /** Stored files found damaged and not yet replaced (serve/reading/fileIntegrity.ts). */
  readonly damagedFiles?: () => number;
  /** Live days' committed rows and freshness, per dataset (serve/reading/stagingFigures.ts). */
  readonly live?: () => ReadonlyMap<string, LiveFigures>;
  /** The store's block cache (storage/store/blockCache.ts); absent without a store. */
  readonly storeCache?: () => BlockCacheFigures;
}

export class ServeMetrics {
  readonly registry = new Registry();
  private readonly requests;
  private readonly duration;
  private readonly inFlight;
  private readonly aborted;
  private readonly bytes;
  private readonly rejections;

  constructor(opts: MetricsOptions = {}) {
    const registers = [this.registry];
    this.requests = new Counter({
      name: 'tickvault_api_requests_total',
      help: 'POST /api answers by apiname and code',
      labelNames: ['apiname', 'code'] as const,
      registers,
    });
    this.duration = new Histogram({
      name: 'tickvault_api_request_duration_seconds',
      help: 'POST /api time from arrival to the last byte written, by apiname and code',
      labelNames: ['apiname', 'code'] as const,
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.inFlight = new Gauge({ name: 'tickvault_api_requests_in_flight', help: 'POST /api requests being processed or written', registers });
    this.aborted = new Counter({
      name: 'tickvault_api_requests_aborted_total',
      help: 'POST /api responses cut short by the client closing the connection',
      labelNames: ['apiname'] as const,
      registers,
    });
    this.bytes = new Counter({
      name: 'tickvault_api_response_bytes_total',
      help: 'POST /api response body bytes, by apiname',
      labelNames: ['apiname'] as const,
      registers,
    });
    this.rejections = new Counter({
      name: 'tickvault_quota_rejections_total',
      help: 'Requests refused by a limit or a fault: rate_limit (per second), trial_calls, parquet_quota (429), slot_busy, state_unavailable, state_disk damaged_file or store_unavailable (503)',
      labelNames: ['apiname', 'reason'] as const,
      registers,
    });
    const slotsHeld = opts.slotsHeld;
    new Gauge({
      name: 'tickvault_api_slots_held',
      help: 'One-request-in-progress slots held by this process (the detailed history interfaces)',
      registers,
      collect() {
        this.set(slotsHeld ? slotsHeld() : 0);
      },
    });
    new Gauge({
      name: 'tickvault_calendar_known_range_end_timestamp_seconds',
      help: 'Unix time (00:00 Beijing) after the last day whose closures are known; past it every weekday counts as a trading day',
      registers,
      collect() {
        this.set(knownRangeEndMs() / 1000);
      },
    });
    const lateWaiting = opts.lateWaiting;
    if (lateWaiting) {
      new Gauge({
        name: 'tickvault_late_messages_waiting',
        help: 'Messages for sealed days waiting in quarantine as late, by dataset (tickvault restate --from-quarantine takes them in)',
        labelNames: ['dataset'] as const,
        registers,
        collect() {
          for (const [dataset, n] of lateWaiting()) this.set({ dataset }, n);
        },
      });
    }
    const read = opts.live;
    if (read) {
      // Both gauges below from one read per scrape (ingest.db, and a record of every segment):
      // a scrape collects them within milliseconds of each other, scrapes come seconds apart.
      let last: { readonly atMs: number; readonly figures: ReturnType<typeof read> } | null = null;
      const live = () => {
        const now = performance.now();
        if (last === null || now - last.atMs > SCRAPE_MS) last = { atMs: now, figures: read() };
        return last.figures;
      };
      new Gauge({
        name: 'tickvault_live_rows',
        help: 'Records committed to staging for live days (staged, not sealed), by dataset; duplicates are not resolved yet, so a corrected row counts twice until the seal',
        labelNames: ['dataset'] as const,
        registers,
        collect() {
          for (const [dataset, f] of live()) this.set({ dataset }, f.rows);
        },
      });
      new Gauge({
        name: 'tickvault_live_newest_row_age_seconds',
        help: "The server's now minus the exchange time of the newest committed staged row of the dataset's latest live day (the last record appended to each segment is taken as its newest); no sample when the dataset has no live day",
        labelNames: ['dataset'] as const,
        registers,
        collect() {
          // A dataset whose live day was sealed since the last scrape has no sample any more.
          this.reset();
          for (const [dataset, f] of live()) if (f.newestRowAgeMs !== null) this.set({ dataset }, f.newestRowAgeMs / 1000);
        },
      });
    }
    const damagedFiles = opts.damagedFiles;
    new Gauge({
      name: 'tickvault_damaged_files',
      help: 'Stored files found damaged (bytes other than the catalog lists, or undecodable) and not yet replaced; their symbol-days answer 503 until tickvault repair',
      registers,
      collect() {
        this.set(damagedFiles ? damagedFiles() : 0);
      },
    });
    const storeCache = opts.storeCache;
    if (storeCache) {
      const gauge = (name: string, help: string, pick: (f: BlockCacheFigures) => number) =>
        new Gauge({
          name,
          help,
          registers,
          collect() {
            this.set(pick(storeCache()));
          },
        });
      gauge('tickvault_store_cache_bytes', "Bytes of offloaded files' blocks on the store cache's disk (bounded by --store-cache-mb)", (f) => f.bytes);
      gauge('tickvault_store_cache_limit_bytes', 'The store cache bound (--store-cache-mb)', (f) => f.maxBytes);
      gauge('tickvault_store_cache_hits', 'Blocks of offloaded files read from the store cache since start', (f) => f.hits);
      gauge('tickvault_store_blocks_fetched', 'Blocks of offloaded files fetched from the store and verified since start', (f) => f.fetched);
      gauge('tickvault_store_ranged_gets', 'Ranged GETs sent to the store since start', (f) => f.gets);
    }
    if (opts.processMetrics ?? true) collectDefaultMetrics({ register: this.registry, prefix: 'tickvault_' });
  }

  /** Counts POST /api requests; observes them when the response is done. */
  middleware(): Middleware {
    return async (ctx: Context, next: Next) => {
      if (!isApiRequest(ctx)) return next();
      const startedNs = process.hrtime.bigint();
      this.inFlight.inc();
      onResponseDone(ctx.res, (aborted) => {
        this.inFlight.dec();
        const s = summarize(ctx, apinameOf(ctx), startedNs, aborted, false);
        const apiname = s.apiname ?? 'unknown';
        const code = String(s.code);
        this.requests.inc({ apiname, code });
        this.duration.observe({ apiname, code }, s.ms / 1000);
        if (s.bytes !== null && !aborted) this.bytes.inc({ apiname }, s.bytes);
        if (aborted) this.aborted.inc({ apiname });
        const reason = rejectionReason(s.reason);
        if (reason) this.rejections.inc({ apiname, reason });
      });
      await next();
    };
  }

  /** GET /metrics in the Prometheus text format. */
  route(): Middleware {
    return async (ctx: Context, next: Next) => {
      if (ctx.path !== METRICS_PATH || ctx.method !== 'GET') return next();
      ctx.type = this.registry.contentType;
      ctx.body = await this.registry.metrics();
    };
  }
}
