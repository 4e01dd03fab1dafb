import type { ServerResponse } from 'node:http';
import Koa, { type Context, type Next } from 'koa';
import Router from '@koa/router';
import type { CatalogReader } from '../../storage/catalog.js';
import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/logger.js';
import { ApiError, busy, forbidden, internal, stateUnavailable, tooManyRequests, unauthorized, type ErrorReason } from './apiError.js';
import { parseApiRequest } from './apiRequest.js';
import { requestBody } from './requestBody.js';
import { errorEnvelope, JSON_TYPE } from './envelope.js';
import { answerableSpan } from '../reading/answerableDates.js';
import { onResponseDone } from './responseDone.js';
import type { Account } from '../access/accounts.js';
import { CursorCodec } from '../level2/cursor.js';
import { FileColumnCache } from '../reading/fileColumns.js';
import { RowJsonPool } from '../level2/rowJsonPool.js';
import { STATE_RETRY_AFTER_SEC, stateErrorSummary, StateUnavailableError, type StateStore } from '../access/stateStore.js';
import type { Operation, OperationContext, OperationResult, OperationServices } from './operation.js';
import { checkAccess, PLAN_NAMES, PLANS, type ApiName } from '../access/plans.js';
import type { ServeConfig } from './serveConfig.js';
import { SlotLeases, type Slot } from '../access/slots.js';
import { serveExtras, type ServeMetrics } from './metrics.js';
import { accountKeyOf, accountSummary } from './accountRoute.js';
import { addConsoleRoutes } from './consoleRoute.js';

/**
 * The HTTP surface: `POST /api` (the envelope, authentication, limits, dispatch by apiname)
 * `POST /account` (accountRoute.ts), `GET /console` (consoleRoute.ts) and `GET /healthz`. Only cli/serveCommand.ts listens; tests and benches may too.
 *
 * Order of checks for POST /api (each failure stops the request):
 *   body is JSON ≤ 1 MiB (400/413) → body members and apiname (400) → apikey (401)
 *   → per-second limit (429) → the operation's params and fields (400)
 *   → plan access and history depth (403) → trial daily calls (429)
 *   → one-request slot (503, level2 only) → data (Parquet quota 429 when streaming starts).
 */
export interface AppDeps {
  readonly dataDir: string;
  readonly catalog: CatalogReader;
  /** Accounts, limits, slots: SQLite in the data directory or PostgreSQL (stateStore.ts). */
  readonly state: StateStore;
  /** The level-2 cursor signing key (from the state store: the same for every site). */
  readonly cursorKey: Buffer;
  readonly config: ServeConfig;
  /** Service clock: business dates (latest trading day, Beijing day of the counters). */
  readonly clock: Clock;
  readonly log: Logger;
  readonly operations: readonly Operation[];
}

export { BODY_LIMIT_BYTES } from './requestBody.js';
const INTERNAL_MESSAGE = 'internal server error';
const stateMessage = 'the service cannot reach its accounts and limits database just now; nothing was counted, retry shortly';
const PARQUET_PLANS = PLAN_NAMES.filter((p) => PLANS[p].parquetPerDay > 0).join(', ');


export interface App {
  readonly koa: Koa;
  /** Per-process services, exposed for the bench and shutdown. */
  readonly services: OperationServices;
  /** Slots held by responses still in flight (released on shutdown). */
  readonly heldSlots: ReadonlySet<Slot>;
  readonly metrics: ServeMetrics;
}

export function createApp(deps: AppDeps): App {
  const { config, log, state } = deps;
  const slots = new SlotLeases(state, config.leaseMs, (err, what) => log.warn({ err: stateErrorSummary(err) }, what));
  const services: OperationServices = {
    dataDir: deps.dataDir,
    catalog: deps.catalog,
    columns: new FileColumnCache(deps.dataDir, config.cacheBytes),
    cursors: new CursorCodec(deps.cursorKey),
    rowJson: config.jsonThreads > 0 ? new RowJsonPool({ dataDir: deps.dataDir }, config.jsonThreads) : null,
  };
  const operations = new Map<string, Operation>(deps.operations.map((op) => [op.apiname, op]));
  const apinames: ReadonlySet<string> = new Set(operations.keys());
  const heldSlots = new Set<Slot>();
  // Old days' counters can never matter again; an unreachable database only delays this.
  state.purgeBefore(deps.clock.nowMs()).catch((err: unknown) => log.warn({ err: stateErrorSummary(err) }, 'purging old daily counts failed'));

  const app = new Koa();
  // Request log, metrics, GET /metrics, GET /openapi.json (serve/metrics.ts): outermost, so
  // they see every request and its final status.
  const extras = serveExtras({ log, slotsHeld: () => heldSlots.size });
  for (const m of extras.middleware) app.use(m);
  // Everything reaching a client goes through this envelope; nothing else writes errors.
  app.use(async (ctx: Context, next: Next) => {
    try {
      await next();
    } catch (caught) {
      const e = caught instanceof StateUnavailableError ? stateUnavailable(stateMessage, STATE_RETRY_AFTER_SEC) : caught;
      const err = e instanceof ApiError ? e : null;
      // For the request log and the metrics: which rule refused the request.
      (ctx.state as { errorReason?: ErrorReason }).errorReason = err?.expose ? err.reason : 'internal';
      if (!err || !err.expose) {
        log.error({ err: e, path: ctx.path }, 'request failed');
        ctx.status = 500;
        ctx.type = JSON_TYPE;
        ctx.body = errorEnvelope(500, INTERNAL_MESSAGE);
        return;
      }
      if (err.opts.retryAfterSec !== undefined) ctx.set('Retry-After', String(err.opts.retryAfterSec));
      ctx.status = err.code;
      ctx.type = JSON_TYPE;
      ctx.body = errorEnvelope(err.code, err.message);
    }
  });
  app.use(requestBody());

  const router = new Router();
  // 503 while the shared state is unreachable, so a load balancer sends clients to a site
  // that can answer; the body says which part failed.
  const catalogPing = deps.catalog.db.prepare('SELECT 1');
  router.get('/healthz', async (ctx) => {
    catalogPing.get();
    ctx.type = JSON_TYPE;
    try {
      await state.ping();
      ctx.body = '{"status":"ok"}';
    } catch (e) {
      if (!(e instanceof StateUnavailableError)) throw e;
      ctx.status = 503;
      ctx.set('Retry-After', String(STATE_RETRY_AFTER_SEC));
      ctx.body = JSON.stringify({ status: 'unavailable', state: state.kind, message: e.message });
    }
  });

  // The account page's data: the plan, what it allows, what is left today. Counts against no
  // limit: it is how a client finds out where it stands (accountRoute.ts).
  router.post('/account', async (ctx) => {
    const key = accountKeyOf(ctx.request.body);
    const account = await state.authenticate(key);
    if (!account) throw unauthorized('apikey is unknown or revoked');
    ctx.state.accountId = account.id;
    const summary = await accountSummary(account, state, config.rateLimitPerSec, deps.clock.nowMs());
    ctx.type = JSON_TYPE;
    ctx.body = JSON.stringify({ code: 200, message: 'success', data: summary });
  });
  const consolePaths = addConsoleRoutes(router);

  router.post('/api', async (ctx) => {
    const nowMs = deps.clock.nowMs();
    const calendarWarning = pastKnownRangeWarning(nowMs);
    if (calendarWarning) ctx.set('Warning', `299 tickvault "${calendarWarning}"`);
    const req = parseApiRequest(ctx.request.body, apinames);
    if (req.apikey === undefined || req.apikey === '') throw unauthorized('apikey is required');
    const account = await state.authenticate(req.apikey);
    if (!account) throw unauthorized('apikey is unknown or revoked');
    // For request logging and metrics middleware: the account, never the key.
    ctx.state.accountId = account.id;
    const rate = await state.hitRate(account.id, config.rateLimitPerSec);
    if (!rate.ok) throw tooManyRequests('rate', `more than ${config.rateLimitPerSec} requests per second for this account`, rate.retryAfterSec);

    const op = operations.get(req.apiname)!;
    const api = op.apiname;
    let authorized = false;
    let slot: Slot | null = null;
    const abort = new AbortController();
    // The release under way, also to a second caller: the response's last byte waits for it
    // whichever path began it (an error after the slot was taken releases before its answer).
    const releaseSlot = (): Promise<void> | undefined => {
      if (!slot) return undefined;
      // A failed release is logged by the slot (the promise still resolves); the lease then lapses on its own.
      const released = slot.release();
      heldSlots.delete(slot);
      return released;
    };
    onResponseDone(ctx.res, (aborted) => {
      if (aborted) abort.abort();
      void releaseSlot();
    });

    const opCtx: OperationContext = {
      account,
      nowMs,
      services,
      log,
      signal: abort.signal,
      async authorize(dates, opts) {
        if (authorized) throw internal(`${api}: authorize called twice`);
        await authorize(account, api, dates, nowMs, opts?.parquet === true, opts?.accessOf ?? api);
        authorized = true;
      },
      async acquireSlot() {
        if (slot) return;
        const s = await slots.tryAcquire(account.id, api);
        if (!s) throw busy(`this account already has a ${api} request in progress; it is not queued`, 1);
        slot = s;
        heldSlots.add(s);
        // Released when the last byte is written or the connection closes, whichever first.
        onLastByteWritten(ctx.res, releaseSlot);
        if (ctx.req.socket?.destroyed) void releaseSlot();
      },
      async chargeParquet() {
        const taken = await state.takeDaily(account.id, api, 'parquet', account.plan.parquetPerDay, nowMs);
        if (!taken.ok) {
          throw tooManyRequests(
            'quota',
            `the ${account.plan.name} plan's ${account.plan.parquetPerDay} Parquet files per Beijing day on ${api} are used up`,
            taken.retryAfterSec,
          );
        }
      },
    };

    let result: OperationResult;
    try {
      result = await op.handle(req, opCtx);
      if (!authorized) throw internal(`${api} returned without plan checks`);
    } catch (e) {
      void releaseSlot();
      throw e;
    }
    writeResult(ctx, result);
  });

  /** Plan access, history depth, trial count (decisions §4), in that order. */
  async function authorize(account: Account, api: ApiName, dates: readonly string[], nowMs: number, parquet: boolean, accessOf: ApiName): Promise<void> {
    const plan = account.plan;
    const verdict = checkAccess(plan, accessOf, dates, nowMs);
    if (!verdict.ok) {
      const data = accessOf === api ? api : `${accessOf} data (asked through ${api})`;
      if (verdict.reason === 'no-access') throw forbidden(`the ${plan.name} plan has no access to ${data}`);
      throw forbidden(
        `tradedate ${verdict.date} is outside the ${plan.name} plan's history depth${accessOf === api ? '' : ` for ${accessOf} data`} ` +
          `(the latest ${plan.access[accessOf].depthTradingDays} trading days, from ${verdict.earliest})`,
      );
    }
    // A plan without downloads can never get one: that is access (403), not a quota to wait
    // for (429 with a Retry-After of hours would invite a retry that cannot succeed).
    if (parquet && plan.parquetPerDay === 0) {
      throw forbidden(`the ${plan.name} plan has no Parquet downloads of ${api}; use format=json or a plan with downloads (${PARQUET_PLANS})`);
    }
    const daily = plan.access[api].dailyCalls;
    if (daily !== null) {
      const taken = await state.takeDaily(account.id, api, 'calls', daily, nowMs);
      if (!taken.ok) throw tooManyRequests('trial', `the ${plan.name} plan's ${daily} calls per Beijing day on ${api} are used up`, taken.retryAfterSec);
    }
  }

  /**
   * When the clock has run past the calendar's known range, the latest trading day is a weekday
   * the calendar cannot vouch for: every answer says so (an HTTP Warning, so the envelope
   * stays what clients parse), and the log says so once a day.
   */
  let warnedFor = '';
  function pastKnownRangeWarning(nowMs: number): string | null {
    const span = answerableSpan(nowMs);
    if (span.last === span.knownLast) return null;
    const text = `the latest trading day ${span.last} is past the trading calendar's known range (through ${span.knownLast}); closures after it are unknown`;
    if (warnedFor !== span.last) {
      warnedFor = span.last;
      log.warn({ latest: span.last, knownLast: span.knownLast }, text);
    }
    return text;
  }

  app.use(router.routes());
  app.use(async (ctx: Context) => {
    // Unrouted: 405 for a known path with the wrong method, else 404, both as envelopes.
    const method = ctx.path === '/api' || ctx.path === '/account' ? 'POST' : ctx.path === '/healthz' || consolePaths.has(ctx.path) ? 'GET' : null;
    ctx.status = method ? 405 : 404;
    if (method) ctx.set('Allow', method);
    ctx.type = JSON_TYPE;
    ctx.body = errorEnvelope(ctx.status, method ? `use ${method} ${ctx.path}` : 'no such endpoint; queries go to POST /api');
  });
  // Errors after the response started (Koa reports them here): a client that went away
  // mid-body is routine, not a fault.
  const GONE = new Set(['ERR_STREAM_PREMATURE_CLOSE', 'ERR_STREAM_DESTROYED', 'EPIPE', 'ECONNRESET', 'ECONNABORTED']);
  app.on('error', (err: unknown) => {
    const code = (err as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && GONE.has(code)) log.debug({ code }, 'client went away mid-response');
    else log.warn({ err }, 'response error');
  });
  return { koa: app, services, heldSlots, metrics: extras.metrics };
}

/**
 * Calls `fn` just before the response's last byte is handed to the socket: on `end()`, or on
 * the `write()` that completes Content-Length (a piped file's final chunk is written before
 * the stream's end event, and the client may already have it all by then). Waiting for
 * 'finish' instead would release after the client could have received everything, so a
 * client sending its next request at once would race the release and get a 503.
 *
 * When `fn` returns a promise (the release is a round trip to a shared database), the last
 * byte waits for it: a client that has every byte may send its next request at once, to
 * another site, and must find the slot free there too.
 */
function onLastByteWritten(res: ServerResponse, fn: () => Promise<void> | void): void {
  let written = 0;
  let gate: Promise<void> | null = null;
  const write = res.write;
  const end = res.end;
  const length = (): number => {
    const h = res.getHeader('content-length');
    return typeof h === 'number' ? h : typeof h === 'string' ? Number(h) : Infinity;
  };
  res.write = function (this: ServerResponse, ...args: Parameters<ServerResponse['write']>): boolean {
    if (gate) {
      void gate.then(() => write.apply(this, args));
      return true;
    }
    const chunk = args[0];
    written += typeof chunk === 'string' ? Buffer.byteLength(chunk) : (chunk as Uint8Array).byteLength;
    if (written >= length()) gate = fn() ?? null;
    if (gate) {
      void gate.then(() => write.apply(this, args));
      return true;
    }
    return write.apply(this, args);
  } as ServerResponse['write'];
  res.end = function (this: ServerResponse, ...args: Parameters<ServerResponse['end']>): ServerResponse {
    gate ??= fn() ?? null;
    if (gate) {
      void gate.then(() => end.apply(this, args));
      return this;
    }
    return end.apply(this, args);
  } as ServerResponse['end'];
}

function writeResult(ctx: Context, result: OperationResult): void {
  ctx.status = 200;
  switch (result.kind) {
    case 'rawJson': {
      ctx.type = JSON_TYPE;
      // For the request log: the row count of a body it cannot scan (a stream of pieces).
      if (result.rows !== undefined) ctx.state.rows = result.rows;
      const body = result.body;
      if (typeof body === 'string' || Buffer.isBuffer(body)) {
        ctx.body = body;
        return;
      }
      // Pieces go to the socket as they are: no per-request copy of a 1.6 MB page, and no
      // stream pipeline (with its listeners) for what is already in memory.
      const pieces = body as readonly Buffer[];
      ctx.length = pieces.reduce((n, p) => n + p.length, 0);
      ctx.respond = false;
      const res = ctx.res;
      res.cork();
      for (const p of pieces) res.write(p);
      res.end();
      return;
    }
    case 'stream':
      if (result.rows !== undefined) ctx.state.rows = result.rows;
      ctx.type = result.contentType;
      for (const [k, v] of Object.entries(result.headers)) ctx.set(k, v);
      ctx.length = result.length;
      ctx.body = result.body;
      return;
  }
}
