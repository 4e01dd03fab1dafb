/**
 * The HTTP surface, composed: `POST /api` (apiRoute.ts), `POST /account` (accountRoute.ts),
 * `GET /healthz` (healthRoute.ts), `GET /console` (consoleRoute.ts), `GET /metrics` and
 * `GET /openapi.json` (metrics.ts), and envelopes for everything else (unrouted.ts). Errors
 * become answers in one place (errorAnswer.ts); answers leave through `ctx.body`, written by
 * Koa. Only cli/serveCommand.ts listens; tests and benches may too.
 *
 * Middleware, outermost first, all mounted here: request log → metrics → compression → GET
 * /metrics → GET /openapi.json → the error mapper → the body reader → the routes → unrouted.
 */
import type { BlockCacheFigures } from '../../storage/store/blockCache.js';
import Koa from 'koa';
import Router from '@koa/router';
import type { CatalogReader } from '../../storage/catalog.js';
import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/logger.js';
import { requestBody } from './requestBody.js';
import type { StateStore } from '../access/stateStore.js';
import { databaseErrorForLog } from '../../shared/postgres/pool.js';
import type { Operation } from './operation.js';
import type { ServeConfig } from './serveConfig.js';
import { SlotLeases, type Slot } from '../access/slots.js';
import { ServeMetrics } from './metrics.js';
import type { LiveFigures } from '../reading/stagingFigures.js';
import { compression } from './compression.js';
import { openapiRoute } from './openapiRoute.js';
import { requestLog } from './requestLog.js';
import { addAccountRoute } from './accountRoute.js';
import { addConsoleRoutes } from './consoleRoute.js';
import { addHealthRoute } from './healthRoute.js';
import { addApiRoute } from './apiRoute.js';
import { CalendarWarning } from './calendarWarning.js';
import { answerErrors, logResponseErrors } from './errorAnswer.js';
import { unrouted } from './unrouted.js';

export interface AppDeps {
  readonly catalog: CatalogReader;
  /** Accounts, limits, slots: SQLite in the data directory or PostgreSQL (stateStore.ts). */
  readonly state: StateStore;
  readonly config: Pick<ServeConfig, 'rateLimitPerSec' | 'leaseMs'>;
  /** Service clock: business dates (latest trading day, Beijing day of the counters). */
  readonly clock: Clock;
  readonly log: Logger;
  /** What POST /api answers, by apiname (serve/operations.ts makes them). */
  readonly operations: readonly Operation[];
  /** Late messages waiting in quarantine, per dataset, for /metrics (none when not given). */
  readonly lateWaiting?: () => ReadonlyMap<string, number>;
  /** Stored files found damaged and not yet replaced, for /metrics (ServedOperations.damagedFiles). */
  readonly damagedFiles?: () => number;
  /** The store's block cache figures, for /metrics; absent without a store. */
  readonly storeCache?: () => BlockCacheFigures;
  /** Live days' committed rows and freshness, per dataset, for /metrics (none when not given). */
  readonly live?: () => ReadonlyMap<string, LiveFigures>;
}

export { BODY_LIMIT_BYTES } from './requestBody.js';

export interface App {
  readonly koa: Koa;
  /** Slots held by responses still in flight (released on shutdown). */
  readonly heldSlots: ReadonlySet<Slot>;
  readonly metrics: ServeMetrics;
}

export function createApp(deps: AppDeps): App {
  const { config, log, state } = deps;
  const warnState = (err: unknown, what: string) => log.warn({ err: databaseErrorForLog(err) }, what);
  const heldSlots = new Set<Slot>();
  // Old days' counters can never matter again; an unreachable database only delays this.
  state.purgeBefore(deps.clock.nowMs()).catch((err: unknown) => warnState(err, 'purging old daily counts failed'));

  const router = new Router();
  addHealthRoute(router, { catalog: deps.catalog, state });
  addAccountRoute(router, { state, rateLimitPerSec: config.rateLimitPerSec, clock: deps.clock });
  addConsoleRoutes(router);
  addApiRoute(router, {
    state,
    slots: new SlotLeases(state, config.leaseMs, warnState),
    heldSlots,
    rateLimitPerSec: config.rateLimitPerSec,
    clock: deps.clock,
    calendarWarning: new CalendarWarning(log),
    operations: deps.operations,
  });

  const app = new Koa();
  const metrics = new ServeMetrics({
    slotsHeld: () => heldSlots.size,
    lateWaiting: deps.lateWaiting,
    damagedFiles: deps.damagedFiles,
    live: deps.live,
    storeCache: deps.storeCache,
  });
  // The log and the counters first: they see every request, its final status and the bytes sent.
  app.use(requestLog(log));
  app.use(metrics.middleware());
  // Inside them (they count the coded bytes), outside every body it may code.
  app.use(compression());
  app.use(metrics.route());
  app.use(openapiRoute());
  app.use(answerErrors(log));
  app.use(requestBody());
  app.use(router.routes());
  app.use(unrouted(methodsOf(router)));
  logResponseErrors(app, log);
  return { koa: app, heldSlots, metrics };
}

/** The one method each routed path takes (for 405 and its Allow header), read off the router. */
function methodsOf(router: Router): (path: string) => string | null {
  const methods = new Map<string, string>();
  for (const layer of router.stack) {
    const method = layer.methods.find((m) => m !== 'HEAD');
    if (method && typeof layer.path === 'string') methods.set(layer.path, method);
  }
  return (path) => methods.get(path) ?? null;
}
