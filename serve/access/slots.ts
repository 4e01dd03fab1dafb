import { randomBytes } from 'node:crypto';
import type { Db } from '../../shared/sqlite.js';

/**
 * The one-request-in-progress rule (decisions §4): a row per (account, interface) in
 * service.db, so it holds across API keys and across server processes on the data directory.
 *
 * A slot is a lease: it carries an expiry on the wall clock, renewed by its holder every
 * third of the lease while the response is still being written, so a holder that crashed
 * (and can no longer release) stops blocking the account once the lease runs out. Taking a
 * slot is one UPSERT that only overwrites an expired row, so of two racing processes exactly
 * one sees `changes === 1`.
 */
export interface SlotOptions {
  readonly leaseMs: number;
  /** Wall clock (epoch ms); real time so that every process agrees on expiry. */
  readonly wallMs: () => number;
}

export class SlotTable {
  private readonly acquireStmt;
  private readonly renewStmt;
  private readonly releaseStmt;
  private readonly holderPrefix = `${process.pid}.${randomBytes(4).toString('hex')}.`;
  private seq = 0;

  constructor(db: Db, private readonly opts: SlotOptions) {
    this.acquireStmt = db.prepare(
      `INSERT INTO slots (account_id, apiname, holder, expires_at_ms) VALUES (:account, :api, :holder, :expires)
       ON CONFLICT (account_id, apiname) DO UPDATE SET holder = excluded.holder, expires_at_ms = excluded.expires_at_ms
       WHERE slots.expires_at_ms <= :now`,
    );
    this.renewStmt = db.prepare('UPDATE slots SET expires_at_ms = ? WHERE account_id = ? AND apiname = ? AND holder = ?');
    this.releaseStmt = db.prepare('DELETE FROM slots WHERE account_id = ? AND apiname = ? AND holder = ?');
  }

  /** The slot, or null when another request holds a live lease on it. */
  tryAcquire(accountId: number, api: string): Slot | null {
    const now = this.opts.wallMs();
    const holder = this.holderPrefix + ++this.seq;
    const res = this.acquireStmt.run({ account: accountId, api, holder, expires: now + this.opts.leaseMs, now });
    if (res.changes !== 1) return null;
    return new Slot(this, accountId, api, holder, this.opts.leaseMs);
  }

  /** Extends a lease; false when it was lost (expired and taken by another request). */
  renew(accountId: number, api: string, holder: string): boolean {
    return this.renewStmt.run(this.opts.wallMs() + this.opts.leaseMs, accountId, api, holder).changes === 1;
  }

  release(accountId: number, api: string, holder: string): void {
    this.releaseStmt.run(accountId, api, holder);
  }
}

/** A held slot. `release` is idempotent; until then the lease is renewed in the background. */
export class Slot {
  private timer: NodeJS.Timeout | null;
  private released = false;
  /** Set when a renewal found the lease gone (the process stalled longer than the lease). */
  lost = false;

  constructor(
    private readonly table: SlotTable,
    readonly accountId: number,
    readonly api: string,
    readonly holder: string,
    leaseMs: number,
  ) {
    this.timer = setInterval(() => this.renew(), Math.max(50, Math.floor(leaseMs / 3)));
    // A held slot must never keep a stopping process alive.
    this.timer.unref();
  }

  private renew(): void {
    if (this.released) return;
    try {
      if (!this.table.renew(this.accountId, this.api, this.holder)) this.lost = true;
    } catch {
      // A busy database at renewal time is retried at the next tick; the lease has slack.
    }
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.table.release(this.accountId, this.api, this.holder);
  }

  get isReleased(): boolean {
    return this.released;
  }
}
