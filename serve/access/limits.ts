/**
 * Counters shared by every server process through service.db (api-contract: Plans and limits): the per-second
 * request limit and the per-Beijing-day counts (trial calls, Parquet files). Each check is
 * one UPSERT, atomic under SQLite's write lock, so concurrent processes cannot overshoot.
 */
import type { Db } from '../../shared/sqlite.js';
import { beijingDate, beijingDayStartMs } from '../../shared/clock.js';
import type { ApiName } from './plans.js';
import type { Admission, DailyKind } from './stateStore.js';

export class Limits {
  private readonly rateHit;
  private readonly dailyHit;
  private readonly dailyGet;
  private readonly dailyPurge;

  constructor(db: Db) {
    // A new second resets the window; within it the count rises. Rejected requests count too:
    // a client hammering past the limit keeps itself limited.
    this.rateHit = db.prepare(
      `INSERT INTO rate_windows (account_id, second, n) VALUES (?, ?, 1)
       ON CONFLICT (account_id) DO UPDATE SET
         n = CASE WHEN second = excluded.second THEN n + 1 ELSE 1 END,
         second = excluded.second
       RETURNING n`,
    );
    // Increments only while below the limit: no RETURNING row means exhausted.
    this.dailyHit = db.prepare(
      `INSERT INTO daily_counts (account_id, apiname, kind, day, n) VALUES (:account, :api, :kind, :day, 1)
       ON CONFLICT (account_id, apiname, kind, day) DO UPDATE SET n = n + 1 WHERE n < :limit
       RETURNING n`,
    );
    this.dailyGet = db.prepare('SELECT n FROM daily_counts WHERE account_id = ? AND apiname = ? AND kind = ? AND day = ?');
    this.dailyPurge = db.prepare('DELETE FROM daily_counts WHERE day < ?');
  }

  /**
   * One request against the account's per-second budget, at wall-clock `wallMs` (real time,
   * the same in every process on the host, unlike a pinned service clock).
   */
  hitRate(accountId: number, perSecond: number, wallMs: number): Admission {
    const second = Math.floor(wallMs / 1000);
    // all(), not get(): get() stops at the RETURNING row and better-sqlite3 drops the error of
    // the commit that follows, so a write the disk refused would pass uncounted (measured on a
    // full tmpfs: the count stayed put and no error came). all() runs to the commit.
    const row = this.rateHit.all(accountId, second)[0] as { n: number };
    if (row.n <= perSecond) return { ok: true, count: row.n };
    return { ok: false, retryAfterSec: 1 };
  }

  /**
   * Takes one unit of a daily allowance for the Beijing day of `nowMs` (the service clock).
   * `limit` 0 is always exhausted. Retry-After points at the next Beijing midnight.
   */
  takeDaily(accountId: number, api: ApiName, kind: DailyKind, limit: number, nowMs: number): Admission {
    const day = beijingDate(nowMs);
    if (limit > 0) {
      const row = this.dailyHit.all({ account: accountId, api, kind, day, limit })[0] as { n: number } | undefined;
      if (row) return { ok: true, count: row.n };
    }
    return { ok: false, retryAfterSec: secondsToNextBeijingDay(nowMs) };
  }

  /** Today's count (for tests and `accounts list`). */
  daily(accountId: number, api: ApiName, kind: DailyKind, nowMs: number): number {
    const row = this.dailyGet.get(accountId, api, kind, beijingDate(nowMs)) as { n: number } | undefined;
    return row?.n ?? 0;
  }

  /** Drops counts of days before today (they can never matter again). */
  purgeBefore(nowMs: number): void {
    this.dailyPurge.run(beijingDate(nowMs));
  }
}

/** Whole seconds until the next 00:00 Beijing time, at least 1. */
export function secondsToNextBeijingDay(nowMs: number): number {
  // Beijing has had no daylight saving since 1991: a day is always 24 hours.
  const next = beijingDayStartMs(beijingDate(nowMs)) + 86_400_000;
  return Math.max(1, Math.ceil((next - nowMs) / 1000));
}
