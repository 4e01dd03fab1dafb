/**
 * The plan checks of one request (api-contract "Plans and limits"), in this order: access to
 * the interface (403), history depth of every date read (403), Parquet downloads at all (403),
 * then the trial plan's daily calls (429, counted here: a call that passes the checks counts,
 * data or no data).
 */
import type { Account } from '../access/accounts.js';
import { checkAccess, PLAN_NAMES, PLANS, type ApiName } from '../access/plans.js';
import type { StateStore } from '../access/stateStore.js';
import { forbidden, tooManyRequests } from './apiError.js';

const PARQUET_PLANS = PLAN_NAMES.filter((p) => PLANS[p].parquetPerDay > 0).join(', ');

export interface PlanCheck {
  readonly account: Account;
  /** The interface asked (calls are counted on it). */
  readonly api: ApiName;
  /** Access and depth are checked as for this interface (tick_history's stock ticks are level-2 data). */
  readonly accessOf: ApiName;
  readonly dates: readonly string[];
  readonly nowMs: number;
  /** The request asks for a Parquet download. */
  readonly parquet: boolean;
}

export async function checkPlan(state: StateStore, c: PlanCheck): Promise<void> {
  const { account, api, accessOf } = c;
  const plan = account.plan;
  const verdict = checkAccess(plan, accessOf, c.dates, c.nowMs);
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
  if (c.parquet && plan.parquetPerDay === 0) {
    throw forbidden(`the ${plan.name} plan has no Parquet downloads of ${api}; use format=json or a plan with downloads (${PARQUET_PLANS})`);
  }
  const daily = plan.access[api].dailyCalls;
  if (daily !== null) {
    const taken = await state.takeDaily(account.id, api, 'calls', daily, c.nowMs);
    if (!taken.ok) throw tooManyRequests('trial', `the ${plan.name} plan's ${daily} calls per Beijing day on ${api} are used up`, taken.retryAfterSec);
  }
}
