/**
 * `POST /account` (body `{"apikey": "…"}`): what the key's plan allows and what is left of
 * it today, for the console and for clients that want to look before they hit a 403 or 429.
 * The same envelope as /api; a missing, unknown or revoked key is 401. It never shows the key
 * or any other account, and it counts against no limit (it is how a client finds out where it
 * stands, so it must work when the limits are used up).
 */
import { DateTime } from 'luxon';
import { latestTradingDay } from '../../calendar/tradingCalendar.js';
import { BEIJING, beijingDate, beijingDayStartMs } from '../../shared/clock.js';
import type { Account } from '../access/accounts.js';
import { API_NAMES, DETAILED_API_NAMES, earliestAllowedDate, type ApiName } from '../access/plans.js';
import type { StateStore } from '../access/stateStore.js';
import type Router from '@koa/router';
import type { Clock } from '../../shared/clock.js';
import { badRequest, unauthorized } from './apiError.js';
import { JSON_TYPE, successData } from './envelope.js';

export interface OperationAllowance {
  readonly allowed: boolean;
  /** Dates readable now, Beijing calendar: `from` null = all history; `to` = the latest trading day. */
  readonly history: { readonly from: string | null; readonly to: string; readonly trading_days: number | null };
  /** Trial calls per Beijing day on this interface; null = not counted. */
  readonly daily_calls: Usage | null;
  /** Parquet files per Beijing day (level2_quote_history only). */
  readonly parquet_files: Usage | null;
  /** Whether a request of this account holds the interface's one in-progress slot now (null: no slot rule). */
  readonly in_flight: boolean | null;
}

export interface Usage {
  readonly limit: number;
  readonly used: number;
  readonly left: number;
}

export interface AccountSummary {
  readonly account_id: number;
  readonly plan: string;
  /** The service clock, ISO-8601 in Beijing time. */
  readonly now: string;
  readonly latest_trading_day: string;
  readonly rate_limit_per_second: number;
  /** When the daily counters start again: the next 00:00 Beijing time. */
  readonly counters_reset_at: string;
  readonly operations: Readonly<Record<ApiName, OperationAllowance>>;
}

/** The `apikey` of a /account body; 400 for a body that is not `{"apikey": string}`. */
export function accountKeyOf(body: unknown): string {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('the body must be a JSON object {"apikey": "…"}');
  const extra = Object.keys(body).filter((k) => k !== 'apikey');
  if (extra.length > 0) throw badRequest(`unknown body member ${JSON.stringify(extra[0].slice(0, 40))}; /account takes only apikey`);
  const key = (body as { apikey?: unknown }).apikey;
  if (key === undefined || key === null || key === '') throw unauthorized('apikey is required');
  if (typeof key !== 'string') throw badRequest('apikey must be a string');
  return key;
}

/** The interfaces with a Parquet quota and the one-request-in-progress rule. */
const DETAILED: ReadonlySet<ApiName> = new Set(DETAILED_API_NAMES);

export async function accountSummary(account: Account, state: StateStore, rateLimitPerSec: number, nowMs: number): Promise<AccountSummary> {
  const latest = latestTradingDay(nowMs);
  const plan = account.plan;
  const entries = await Promise.all(
    API_NAMES.map(async (api): Promise<[ApiName, OperationAllowance]> => {
      const access = plan.access[api];
      const usage = async (kind: 'calls' | 'parquet', limit: number): Promise<Usage> => {
        const used = await state.daily(account.id, api, kind, nowMs);
        return { limit, used, left: Math.max(0, limit - used) };
      };
      return [
        api,
        {
          allowed: access.allowed,
          history: { from: access.allowed ? earliestAllowedDate(access, nowMs) : null, to: latest, trading_days: access.depthTradingDays },
          daily_calls: access.dailyCalls === null ? null : await usage('calls', access.dailyCalls),
          parquet_files: DETAILED.has(api) ? await usage('parquet', plan.parquetPerDay) : null,
          in_flight: DETAILED.has(api) ? await state.slotHeld(account.id, api) : null,
        },
      ];
    }),
  );
  return {
    account_id: account.id,
    plan: plan.name,
    now: DateTime.fromMillis(nowMs, { zone: BEIJING }).startOf('second').toISO({ suppressMilliseconds: true }) ?? '',
    latest_trading_day: latest,
    rate_limit_per_second: rateLimitPerSec,
    counters_reset_at: DateTime.fromMillis(beijingDayStartMs(beijingDate(nowMs)) + 86_400_000, { zone: BEIJING }).toISO({ suppressMilliseconds: true }) ?? '',
    operations: Object.fromEntries(entries) as Record<ApiName, OperationAllowance>,
  };
}

/** Adds `POST /account`. It counts against no limit: it is how a client finds out where it stands. */
export function addAccountRoute(router: Router, deps: { readonly state: StateStore; readonly rateLimitPerSec: number; readonly clock: Clock }): void {
  router.post('/account', async (ctx) => {
    const key = accountKeyOf(ctx.request.body);
    const account = await deps.state.authenticate(key);
    if (!account) throw unauthorized('apikey is unknown or revoked');
    ctx.state.accountId = account.id;
    const summary = await accountSummary(account, deps.state, deps.rateLimitPerSec, deps.clock.nowMs());
    ctx.type = JSON_TYPE;
    ctx.body = successData(summary);
  });
}
