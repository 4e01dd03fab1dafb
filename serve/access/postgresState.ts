import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { CURSOR_KEY_BYTES } from './cursorKey.js';
import { DuplicateKeyError, hashKey, hintOf, newKey, type Account, type AccountListing } from './accounts.js';
import { secondsToNextBeijingDay } from './limits.js';
import { isPlanName, PLANS, type ApiName, type PlanName } from './plans.js';
import { migratePostgres } from '../../shared/postgres/schema.js';
import { createPool, describePgError, isUnavailable, redactUrl, type PoolOptions } from '../../shared/postgres/pool.js';
import { StateUnavailableError, type Admission, type DailyKind, type StateStore } from './stateStore.js';

/** Connection settings (shared/postgres/pool.ts: a lost database must be a 503 within seconds, never a hang). */
export type PostgresStateOptions = PoolOptions;

/**
 * The shared state in PostgreSQL, for several hosts or sites serving one API. Every admission
 * is one statement (an upsert whose row lock serialises concurrent processes), and all lease
 * and window time is the database's `clock_timestamp()`: sites' clocks may disagree by seconds,
 * the database has one clock. Statements are named, so each connection prepares them once.
 */
export class PostgresStateStore implements StateStore {
  readonly kind = 'postgres' as const;
  readonly where: string;
  private trips = 0;

  private constructor(
    private readonly pool: pg.Pool,
    url: string,
  ) {
    this.where = redactUrl(url);
  }

  /** Connects, creates or migrates the schema; StateUnavailableError when the database cannot be reached. */
  static async open(opts: PostgresStateOptions): Promise<PostgresStateStore> {
    const pool = createPool(opts);
    const store = new PostgresStateStore(pool, opts.url);
    try {
      await store.run(() => migratePostgres(pool));
    } catch (e) {
      await pool.end().catch(() => undefined);
      throw e;
    }
    return store;
  }

  get roundTrips(): number {
    return this.trips;
  }

  /** One round trip; connection-level failures become StateUnavailableError. */
  private async query<R extends pg.QueryResultRow>(name: string, text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    this.trips++;
    return this.run(() => this.pool.query<R>({ name, text, values }));
  }

  private async run<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (isUnavailable(e)) throw new StateUnavailableError(`state database ${this.where} unreachable: ${describePgError(e)}`, { cause: e });
      throw e;
    }
  }

  async authenticate(key: string): Promise<Account | null> {
    const res = await this.query<{ id: string; plan: string }>(
      'tv_authenticate',
      `SELECT a.id, a.plan FROM tickvault.api_keys k JOIN tickvault.accounts a ON a.id = k.account_id
       WHERE k.key_hash = $1 AND k.revoked_at_ms IS NULL`,
      [hashKey(key)],
    );
    const row = res.rows[0];
    if (!row || !isPlanName(row.plan)) return null;
    return { id: Number(row.id), plan: PLANS[row.plan] };
  }

  async hitRate(accountId: number, perSecond: number): Promise<Admission> {
    // A later second resets the window. A request that computed an earlier second but waited
    // on the row lock behind a later one counts in the newer window (never moves it back).
    const res = await this.query<{ n: number }>(
      'tv_hit_rate',
      `INSERT INTO tickvault.rate_windows AS w (account_id, second, n)
       VALUES ($1, floor(extract(epoch FROM clock_timestamp()))::bigint, 1)
       ON CONFLICT (account_id) DO UPDATE SET
         n = CASE WHEN excluded.second > w.second THEN 1 ELSE w.n + 1 END,
         second = GREATEST(w.second, excluded.second)
       RETURNING n`,
      [accountId],
    );
    const n = res.rows[0].n;
    return n <= perSecond ? { ok: true, count: n } : { ok: false, retryAfterSec: 1 };
  }

  async takeDaily(accountId: number, api: ApiName, kind: DailyKind, limit: number, serviceNowMs: number): Promise<Admission> {
    if (limit <= 0) return { ok: false, retryAfterSec: secondsToNextBeijingDay(serviceNowMs) };
    // The day is the database clock's, shifted by the service clock's offset (zero unless
    // pinned): every site turns the day over at the same instant, Beijing midnight.
    const res = await this.query<{ n: number }>(
      'tv_take_daily',
      `INSERT INTO tickvault.daily_counts AS c (account_id, apiname, kind, day, n)
       VALUES ($1, $2, $3, ${DAY_SQL('$5')}, 1)
       ON CONFLICT (account_id, apiname, kind, day) DO UPDATE SET n = c.n + 1 WHERE c.n < $4
       RETURNING n`,
      [accountId, api, kind, limit, serviceNowMs - Date.now()],
    );
    const row = res.rows[0];
    if (row) return { ok: true, count: row.n };
    return { ok: false, retryAfterSec: secondsToNextBeijingDay(serviceNowMs) };
  }

  async daily(accountId: number, api: ApiName, kind: DailyKind, serviceNowMs: number): Promise<number> {
    const res = await this.query<{ n: number }>(
      'tv_daily',
      `SELECT n FROM tickvault.daily_counts WHERE account_id = $1 AND apiname = $2 AND kind = $3 AND day = ${DAY_SQL('$4')}`,
      [accountId, api, kind, serviceNowMs - Date.now()],
    );
    return res.rows[0]?.n ?? 0;
  }

  async acquireSlot(accountId: number, api: string, holder: string, leaseMs: number): Promise<boolean> {
    // Overwrites only a lapsed lease: of two racing sites exactly one gets rowCount 1.
    const res = await this.query(
      'tv_acquire_slot',
      `INSERT INTO tickvault.slots AS s (account_id, apiname, holder, expires_at)
       VALUES ($1, $2, $3, clock_timestamp() + $4 * interval '1 millisecond')
       ON CONFLICT (account_id, apiname) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
       WHERE s.expires_at <= clock_timestamp()`,
      [accountId, api, holder, leaseMs],
    );
    return res.rowCount === 1;
  }

  async renewSlot(accountId: number, api: string, holder: string, leaseMs: number): Promise<boolean> {
    const res = await this.query(
      'tv_renew_slot',
      `UPDATE tickvault.slots SET expires_at = clock_timestamp() + $4 * interval '1 millisecond'
       WHERE account_id = $1 AND apiname = $2 AND holder = $3`,
      [accountId, api, holder, leaseMs],
    );
    return res.rowCount === 1;
  }

  async releaseSlot(accountId: number, api: string, holder: string): Promise<void> {
    await this.query('tv_release_slot', 'DELETE FROM tickvault.slots WHERE account_id = $1 AND apiname = $2 AND holder = $3', [accountId, api, holder]);
  }

  async slotHeld(accountId: number, api: string): Promise<boolean> {
    const res = await this.query('tv_slot_held', 'SELECT 1 FROM tickvault.slots WHERE account_id = $1 AND apiname = $2 AND expires_at > clock_timestamp()', [
      accountId,
      api,
    ]);
    return res.rowCount === 1;
  }

  async cursorKey(): Promise<Buffer> {
    // The first process to start creates it; every later one, on any site, reads the same.
    await this.query('tv_cursor_key_init', `INSERT INTO tickvault.secrets (name, value) VALUES ('cursor-key', $1) ON CONFLICT (name) DO NOTHING`, [
      randomBytes(CURSOR_KEY_BYTES),
    ]);
    const res = await this.query<{ value: Buffer }>('tv_cursor_key', `SELECT value FROM tickvault.secrets WHERE name = 'cursor-key'`, []);
    const key = res.rows[0]?.value;
    if (!key || key.length !== CURSOR_KEY_BYTES) throw new Error(`the cursor key in ${this.where} is not ${CURSOR_KEY_BYTES} bytes`);
    return key;
  }

  async purgeBefore(serviceNowMs: number): Promise<void> {
    await this.query('tv_purge_daily', `DELETE FROM tickvault.daily_counts WHERE day < ${DAY_SQL('$1')}`, [serviceNowMs - Date.now()]);
  }

  async createAccount(plan: PlanName, nowMs: number, key: string = newKey()): Promise<{ id: number; key: string }> {
    return this.transaction(async (c) => {
      const res = await c.query<{ id: string }>('INSERT INTO tickvault.accounts (plan, created_at_ms) VALUES ($1, $2) RETURNING id', [plan, nowMs]);
      const id = Number(res.rows[0].id);
      await insertKey(c, id, key, nowMs);
      return { id, key };
    });
  }

  async addKey(accountId: number, nowMs: number, key: string = newKey()): Promise<string | null> {
    return this.transaction(async (c) => {
      const found = await c.query('SELECT 1 FROM tickvault.accounts WHERE id = $1 FOR SHARE', [accountId]);
      if (found.rowCount !== 1) return null;
      await insertKey(c, accountId, key, nowMs);
      return key;
    });
  }

  async revokeKey(key: string, nowMs: number): Promise<boolean> {
    const res = await this.query('tv_revoke', 'UPDATE tickvault.api_keys SET revoked_at_ms = $1 WHERE key_hash = $2 AND revoked_at_ms IS NULL', [
      nowMs,
      hashKey(key),
    ]);
    return res.rowCount === 1;
  }

  async listAccounts(): Promise<AccountListing[]> {
    const accounts = await this.query<{ id: string; plan: string; created_at_ms: string }>(
      'tv_list_accounts',
      'SELECT id, plan, created_at_ms FROM tickvault.accounts ORDER BY id',
      [],
    );
    const keys = await this.query<{ account_id: string; hint: string; created_at_ms: string; revoked_at_ms: string | null }>(
      'tv_list_keys',
      'SELECT account_id, hint, created_at_ms, revoked_at_ms FROM tickvault.api_keys ORDER BY account_id, created_at_ms, hint',
      [],
    );
    return accounts.rows.map((a) => ({
      id: Number(a.id),
      plan: a.plan,
      createdAtMs: Number(a.created_at_ms),
      keys: keys.rows
        .filter((k) => k.account_id === a.id)
        .map((k) => ({ hint: k.hint, createdAtMs: Number(k.created_at_ms), revokedAtMs: k.revoked_at_ms === null ? null : Number(k.revoked_at_ms) })),
    }));
  }

  async ping(): Promise<void> {
    await this.query('tv_ping', 'SELECT 1', []);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  private async transaction<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    this.trips++;
    return this.run(async () => {
      const c = await this.pool.connect();
      try {
        await c.query('BEGIN');
        const out = await fn(c);
        await c.query('COMMIT');
        return out;
      } catch (e) {
        await c.query('ROLLBACK').catch(() => undefined);
        throw e;
      } finally {
        c.release();
      }
    });
  }
}

/** The Beijing date (YYYYMMDD) of the database clock shifted by a parameter in ms. */
function DAY_SQL(offsetParam: string): string {
  return `to_char((clock_timestamp() + ${offsetParam}::bigint * interval '1 millisecond') AT TIME ZONE 'Asia/Shanghai', 'YYYYMMDD')`;
}

async function insertKey(c: pg.PoolClient, accountId: number, key: string, nowMs: number): Promise<void> {
  try {
    await c.query('INSERT INTO tickvault.api_keys (key_hash, account_id, hint, created_at_ms) VALUES ($1, $2, $3, $4)', [
      hashKey(key),
      accountId,
      hintOf(key),
      nowMs,
    ]);
  } catch (e) {
    if ((e as { code?: string }).code === '23505') throw new DuplicateKeyError();
    throw e;
  }
}
