/**
 * `POST /api`: the envelope's body, then in this order (each failure stops the request):
 *   body is JSON ≤ 1 MiB (400/413, requestBody.ts) → body members and apiname (400)
 *   → apikey (401) → per-second limit (429) → the operation's params and fields (400)
 *   → plan access and history depth (403) → trial daily calls (429, planCheck.ts)
 *   → one-request slot (503; the detailed history interfaces) → data (Parquet quota 429
 *     when a download starts).
 * The operation does the middle of that through its context (operation.ts); this route
 * authenticates, limits, hands over, and makes sure the plan checks were not skipped.
 */
import type Router from '@koa/router';
import type { Clock } from '../../shared/clock.js';
import type { Slot, SlotLeases } from '../access/slots.js';
import type { StateStore } from '../access/stateStore.js';
import { internal, tooManyRequests, unauthorized } from './apiError.js';
import { parseApiRequest } from './apiRequest.js';
import type { CalendarWarning } from './calendarWarning.js';
import type { Operation, OperationContext, OperationResult } from './operation.js';
import { checkPlan } from './planCheck.js';
import { RequestSlot } from './requestSlot.js';
import { setResultBody } from './responseBody.js';
import { onResponseDone } from './responseDone.js';

export interface ApiRouteDeps {
  readonly state: StateStore;
  readonly slots: SlotLeases;
  /** Slots held by responses in flight (the app releases them on shutdown). */
  readonly heldSlots: Set<Slot>;
  readonly rateLimitPerSec: number;
  readonly clock: Clock;
  readonly calendarWarning: CalendarWarning;
  readonly operations: readonly Operation[];
}

export function addApiRoute(router: Router, deps: ApiRouteDeps): void {
  const { state, rateLimitPerSec } = deps;
  const operations = new Map<string, Operation>(deps.operations.map((op) => [op.apiname, op]));
  const apinames: ReadonlySet<string> = new Set(operations.keys());

  router.post('/api', async (ctx) => {
    const nowMs = deps.clock.nowMs();
    const warning = deps.calendarWarning.headerAt(nowMs);
    if (warning) ctx.set('Warning', warning);
    const req = parseApiRequest(ctx.request.body, apinames);
    if (req.apikey === undefined || req.apikey === '') throw unauthorized('apikey is required');
    const account = await state.authenticate(req.apikey);
    if (!account) throw unauthorized('apikey is unknown or revoked');
    // For request logging and metrics middleware: the account, never the key.
    ctx.state.accountId = account.id;
    const rate = await state.hitRate(account.id, rateLimitPerSec);
    if (!rate.ok) throw tooManyRequests('rate', `more than ${rateLimitPerSec} requests per second for this account`, rate.retryAfterSec);

    const op = operations.get(req.apiname)!;
    const api = op.apiname;
    const slot = new RequestSlot(deps.slots, deps.heldSlots, account.id, api);
    // The client gone before the end: nothing more will be written, the slot is free at once.
    onResponseDone(ctx.res, () => void slot.release());
    let authorized = false;
    const opCtx: OperationContext = {
      account,
      nowMs,
      async authorize(dates, opts) {
        if (authorized) throw internal(`${api}: authorize called twice`);
        await checkPlan(state, { account, api, accessOf: opts?.accessOf ?? api, dates, nowMs, parquet: opts?.parquet === true });
        authorized = true;
      },
      acquireSlot: () => slot.acquire(ctx.res),
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
      // The error's answer goes out only once the slot is free in the shared state.
      await slot.release();
      throw e;
    }
    await setResultBody(ctx, result, () => slot.release());
  });
}
