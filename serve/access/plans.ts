/**
 * The plan table of api-contract: Plans and limits, as data, and the pure window arithmetic on it. Nothing here
 * touches a database: counting lives in limits.ts.
 */
import { latestTradingDay, tradingDaysBack } from '../../calendar/tradingCalendar.js';

export type ApiName = 'level2_quote_history' | 'level2_trade_history' | 'level2_order_history' | 'tick_history' | BarApiName | 'tradecal';
/** The bars (api-contract: Bars): derived from the trades, with tick_history's plan access. */
export type BarApiName = 'minute' | 'daily' | 'weekly' | 'monthly' | 'daily_auc';
export const BAR_API_NAMES: readonly BarApiName[] = ['minute', 'daily', 'weekly', 'monthly', 'daily_auc'];
export const API_NAMES: readonly ApiName[] = [
  'level2_quote_history',
  'level2_trade_history',
  'level2_order_history',
  'tick_history',
  ...BAR_API_NAMES,
  'tradecal',
];

/**
 * The three detailed (level-2) history interfaces: one stock, one day, paged or as the stored
 * file, each with its own trial count, Parquet quota and in-flight slot (api-contract: Trades and orders, Plans and limits).
 */
export type DetailedApiName = 'level2_quote_history' | 'level2_trade_history' | 'level2_order_history';
export const DETAILED_API_NAMES: readonly DetailedApiName[] = ['level2_quote_history', 'level2_trade_history', 'level2_order_history'];

export type PlanName = 'free' | 'standard' | 'trial' | 'professional' | 'weekly-card' | 'flagship';
export const PLAN_NAMES: readonly PlanName[] = ['free', 'standard', 'trial', 'professional', 'weekly-card', 'flagship'];

export interface OperationAccess {
  readonly allowed: boolean;
  /** Latest N trading days (the Nth included); null = all history. */
  readonly depthTradingDays: number | null;
  /** Calls per Beijing day on this interface; null = not counted. */
  readonly dailyCalls: number | null;
}

export interface Plan {
  readonly name: PlanName;
  readonly access: Readonly<Record<ApiName, OperationAccess>>;
  /** Parquet files per Beijing day, on each detailed interface (counted per interface). */
  readonly parquetPerDay: number;
}

const NONE: OperationAccess = { allowed: false, depthTradingDays: null, dailyCalls: null };
const ALL: OperationAccess = { allowed: true, depthTradingDays: null, dailyCalls: null };
const TRIAL: OperationAccess = { allowed: true, depthTradingDays: null, dailyCalls: 100 };
const LATEST_30: OperationAccess = { allowed: true, depthTradingDays: 30, dailyCalls: null };

/** api-contract: Trades and orders: the trade and order interfaces follow level2_quote_history's row of §4. */
function detailed(level2: OperationAccess, tick: OperationAccess): Readonly<Record<ApiName, OperationAccess>> {
  // The bars follow tick_history's row; tradecal is open to every plan, counted as any interface on trial (api-contract: Bars).
  const bars = Object.fromEntries(BAR_API_NAMES.map((api) => [api, tick])) as Record<BarApiName, OperationAccess>;
  const tradecal = tick.dailyCalls !== null ? tick : ALL;
  return { level2_quote_history: level2, level2_trade_history: level2, level2_order_history: level2, tick_history: tick, ...bars, tradecal };
}

export const PLANS: Readonly<Record<PlanName, Plan>> = {
  free: { name: 'free', access: detailed(NONE, NONE), parquetPerDay: 0 },
  standard: { name: 'standard', access: detailed(NONE, ALL), parquetPerDay: 0 },
  trial: { name: 'trial', access: detailed(TRIAL, TRIAL), parquetPerDay: 0 },
  professional: { name: 'professional', access: detailed(LATEST_30, ALL), parquetPerDay: 30 },
  'weekly-card': { name: 'weekly-card', access: detailed(LATEST_30, ALL), parquetPerDay: 30 },
  flagship: { name: 'flagship', access: detailed(ALL, ALL), parquetPerDay: 300 },
};

export function isPlanName(text: unknown): text is PlanName {
  return typeof text === 'string' && (PLAN_NAMES as readonly string[]).includes(text);
}

/**
 * Earliest date a plan may read on an interface at `nowMs`, or null for all history.
 * "Latest N trading days, the Nth included": the latest trading day on or before today in
 * Beijing time counts as the first, so the window starts N-1 trading days before it.
 */
export function earliestAllowedDate(access: OperationAccess, nowMs: number): string | null {
  if (access.depthTradingDays === null) return null;
  return tradingDaysBack(latestTradingDay(nowMs), access.depthTradingDays - 1);
}

export type AccessVerdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: 'no-access' }
  | { readonly ok: false; readonly reason: 'too-old'; readonly date: string; readonly earliest: string };

/**
 * Access and history depth. Only the lower bound is a depth rule: a date after the latest
 * trading day is simply not stored yet (no data), not outside the plan.
 */
export function checkAccess(plan: Plan, api: ApiName, dates: readonly string[], nowMs: number): AccessVerdict {
  const access = plan.access[api];
  if (!access.allowed) return { ok: false, reason: 'no-access' };
  const earliest = earliestAllowedDate(access, nowMs);
  if (earliest !== null) {
    for (const date of dates) if (date < earliest) return { ok: false, reason: 'too-old', date, earliest };
  }
  return { ok: true };
}
