import { latestTradingDay, tradingDaysBack } from '../../calendar/tradingCalendar.js';

/**
 * The plan table of decisions §4, as data, and the pure window arithmetic on it. Nothing here
 * touches a database: counting lives in limits.ts.
 */
export type ApiName = 'level2_quote_history' | 'tick_history';
export const API_NAMES: readonly ApiName[] = ['level2_quote_history', 'tick_history'];

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
  /** level2_quote_history Parquet files per Beijing day. */
  readonly parquetPerDay: number;
}

const NONE: OperationAccess = { allowed: false, depthTradingDays: null, dailyCalls: null };
const ALL: OperationAccess = { allowed: true, depthTradingDays: null, dailyCalls: null };
const TRIAL: OperationAccess = { allowed: true, depthTradingDays: null, dailyCalls: 100 };
const LATEST_30: OperationAccess = { allowed: true, depthTradingDays: 30, dailyCalls: null };

export const PLANS: Readonly<Record<PlanName, Plan>> = {
  free: { name: 'free', access: { level2_quote_history: NONE, tick_history: NONE }, parquetPerDay: 0 },
  standard: { name: 'standard', access: { level2_quote_history: NONE, tick_history: ALL }, parquetPerDay: 0 },
  trial: { name: 'trial', access: { level2_quote_history: TRIAL, tick_history: TRIAL }, parquetPerDay: 0 },
  professional: { name: 'professional', access: { level2_quote_history: LATEST_30, tick_history: ALL }, parquetPerDay: 30 },
  'weekly-card': { name: 'weekly-card', access: { level2_quote_history: LATEST_30, tick_history: ALL }, parquetPerDay: 30 },
  flagship: { name: 'flagship', access: { level2_quote_history: ALL, tick_history: ALL }, parquetPerDay: 300 },
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
