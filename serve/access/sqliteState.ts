import type { Db } from '../../shared/sqlite.js';
import { loadOrCreateCursorKey } from './cursorKey.js';
import { AccountStore, type Account, type AccountListing } from './accounts.js';
import { Limits } from './limits.js';
import type { ApiName, PlanName } from './plans.js';
import { openServiceDb } from './serviceDb.js';
import { StateDiskWatch } from './stateDiskWatch.js';
import type { Admission, DailyKind, StateDiskError, StateStore } from './stateStore.js';

export interface SqliteStateOptions {
  /** service.db in the data directory. */
  readonly path: string;
  /** The cursor key file in the data directory (kept as a file: existing cursors stay valid). */
  readonly cursorKeyFile: string;
  /** FULL fsync per commit (the accounts command) instead of NORMAL (counters on the serving path). */
  readonly durable?: boolean;
  /** Wall clock for windows and leases: one host, so every process shares it. */
  readonly wallMs?: () => number;
  /** Writes started failing for a disk reason (the fault), or work again (null). */
  readonly onDiskFault?: (fault: StateDiskError | null) => void;
}

/**
 * The embedded state store: service.db, shared by every process of one host through SQLite's
 * write lock. Each admission is one statement, atomic under that lock. Calls are synchronous
 * underneath; the promises only fit the shared interface.
 *
 * Every write goes through the disk watch: on a full or read-only disk it throws
 * StateDiskError (503 with Retry-After, never a 500), and `ping` fails with the same until a
 * write succeeds again — while it fails, `ping` itself tries one (probeWrite), so the health
 * check comes back without waiting for a client's request.
 */
export class SqliteStateStore implements StateStore {
  readonly kind = 'sqlite' as const;
  readonly where: string;
  private trips = 0;
  private readonly db: Db;
  private readonly accounts: AccountStore;
  private readonly limits: Limits;
  private readonly wallMs: () => number;
  private readonly acquireStmt;
  private readonly renewStmt;
  private readonly releaseStmt;
  private readonly heldStmt;
  private readonly pingStmt;
  private readonly disk: StateDiskWatch;

  constructor(private readonly opts: SqliteStateOptions) {
    this.where = opts.path;
    this.db = openServiceDb(opts.path, { durable: opts.durable });
    this.accounts = new AccountStore(this.db);
    this.limits = new Limits(this.db);
    this.wallMs = opts.wallMs ?? Date.now;
    // Overwrites only an expired row: of two racing processes exactly one sees changes === 1.
    this.acquireStmt = this.db.prepare(
      `INSERT INTO slots (account_id, apiname, holder, expires_at_ms) VALUES (:account, :api, :holder, :expires)
       ON CONFLICT (account_id, apiname) DO UPDATE SET holder = excluded.holder, expires_at_ms = excluded.expires_at_ms
       WHERE slots.expires_at_ms <= :now`,
    );
    this.renewStmt = this.db.prepare('UPDATE slots SET expires_at_ms = ? WHERE account_id = ? AND apiname = ? AND holder = ?');
    this.releaseStmt = this.db.prepare('DELETE FROM slots WHERE account_id = ? AND apiname = ? AND holder = ?');
    this.heldStmt = this.db.prepare('SELECT 1 FROM slots WHERE account_id = ? AND apiname = ? AND expires_at_ms > ?');
    this.pingStmt = this.db.prepare('SELECT 1');
    this.disk = new StateDiskWatch(opts.path, opts.onDiskFault);
  }

  get roundTrips(): number {
    return this.trips;
  }

  async authenticate(key: string): Promise<Account | null> {
    this.trips++;
    return this.accounts.authenticate(key);
  }

  async hitRate(accountId: number, perSecond: number): Promise<Admission> {
    this.trips++;
    return this.disk.write(() => this.limits.hitRate(accountId, perSecond, this.wallMs()));
  }

  async takeDaily(accountId: number, api: ApiName, kind: DailyKind, limit: number, serviceNowMs: number): Promise<Admission> {
    this.trips++;
    return this.disk.write(() => this.limits.takeDaily(accountId, api, kind, limit, serviceNowMs));
  }

  async daily(accountId: number, api: ApiName, kind: DailyKind, serviceNowMs: number): Promise<number> {
    this.trips++;
    return this.limits.daily(accountId, api, kind, serviceNowMs);
  }

  async acquireSlot(accountId: number, api: string, holder: string, leaseMs: number): Promise<boolean> {
    this.trips++;
    const now = this.wallMs();
    return this.disk.write(() => this.acquireStmt.run({ account: accountId, api, holder, expires: now + leaseMs, now }).changes === 1);
  }

  async renewSlot(accountId: number, api: string, holder: string, leaseMs: number): Promise<boolean> {
    this.trips++;
    return this.disk.write(() => this.renewStmt.run(this.wallMs() + leaseMs, accountId, api, holder).changes === 1);
  }

  async releaseSlot(accountId: number, api: string, holder: string): Promise<void> {
    this.trips++;
    this.disk.write(() => this.releaseStmt.run(accountId, api, holder));
  }

  async slotHeld(accountId: number, api: string): Promise<boolean> {
    this.trips++;
    return this.heldStmt.get(accountId, api, this.wallMs()) !== undefined;
  }

  async cursorKey(): Promise<Buffer> {
    return loadOrCreateCursorKey(this.opts.cursorKeyFile);
  }

  async purgeBefore(serviceNowMs: number): Promise<void> {
    this.trips++;
    this.disk.write(() => this.limits.purgeBefore(serviceNowMs));
  }

  async createAccount(plan: PlanName, nowMs: number, key?: string): Promise<{ id: number; key: string }> {
    this.trips++;
    return this.disk.write(() => this.accounts.create(plan, nowMs, key));
  }

  async addKey(accountId: number, nowMs: number, key?: string): Promise<string | null> {
    this.trips++;
    return this.disk.write(() => this.accounts.addKey(accountId, nowMs, key));
  }

  async revokeKey(key: string, nowMs: number): Promise<boolean> {
    this.trips++;
    return this.disk.write(() => this.accounts.revoke(key, nowMs));
  }

  async listAccounts(): Promise<AccountListing[]> {
    this.trips++;
    return this.accounts.list();
  }

  async ping(): Promise<void> {
    this.pingStmt.get();
    // Only while writes fail: a healthy store is not written to by every health check.
    if (this.disk.current !== null) this.disk.write(() => this.probeWrite());
  }

  /**
   * A real one-page commit that changes nothing: the schema version rewritten with its own
   * value (no table of its own, so a server started on a full disk needs no schema write).
   */
  private probeWrite(): void {
    this.db
      .transaction(() => {
        const version = Number(this.db.pragma('user_version', { simple: true }));
        this.db.pragma(`user_version = ${version}`);
      })
      .immediate();
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
