/**
 * The one-request-in-progress rule (api-contract: Plans and limits): one slot per (account, interface) in the
 * shared state, so it holds across API keys, server processes and sites.
 *
 * A slot is a lease: it carries an expiry on the store's clock, renewed by its holder every
 * third of the lease while the response is still being written, so a holder that crashed
 * (and can no longer release) stops blocking the account once the lease runs out. Taking a
 * slot is one statement that only overwrites an expired lease, so of two racing processes
 * exactly one wins.
 */
import { randomBytes } from 'node:crypto';
import type { StateStore } from './stateStore.js';

export class SlotLeases {
  private readonly holderPrefix = `${process.pid}.${randomBytes(4).toString('hex')}.`;
  private seq = 0;

  constructor(
    private readonly store: StateStore,
    readonly leaseMs: number,
    private readonly onError: (e: unknown, what: string) => void = () => undefined,
  ) {}

  /** The slot, or null when another request holds a live lease on it. */
  async tryAcquire(accountId: number, api: string): Promise<Slot | null> {
    const holder = this.holderPrefix + ++this.seq;
    if (!(await this.store.acquireSlot(accountId, api, holder, this.leaseMs))) return null;
    return new Slot(this.store, accountId, api, holder, this.leaseMs, this.onError);
  }
}

/** A held slot. `release` is idempotent; until then the lease is renewed in the background. */
export class Slot {
  private timer: NodeJS.Timeout | null;
  /** The release under way or done: every later call gets the same promise. */
  private released: Promise<void> | null = null;
  private renewing = false;
  /** Set when a renewal found the lease gone (the process stalled longer than the lease). */
  lost = false;

  constructor(
    private readonly store: StateStore,
    readonly accountId: number,
    readonly api: string,
    readonly holder: string,
    private readonly leaseMs: number,
    private readonly onError: (e: unknown, what: string) => void,
  ) {
    this.timer = setInterval(() => void this.renew(), Math.max(50, Math.floor(leaseMs / 3)));
    // A held slot must never keep a stopping process alive.
    this.timer.unref();
  }

  private async renew(): Promise<void> {
    // One renewal at a time: a slow database must not pile them up.
    if (this.released || this.renewing) return;
    this.renewing = true;
    try {
      if (!(await this.store.renewSlot(this.accountId, this.api, this.holder, this.leaseMs))) this.lost = true;
    } catch (e) {
      // Retried at the next tick; the lease has slack for two missed renewals.
      this.onError(e, 'slot renewal failed');
    } finally {
      this.renewing = false;
    }
  }

  /**
   * Frees the slot; resolves once the store has it free (the app holds a response's last
   * byte until then, so a client paging at once, at any site, finds it free). If the store
   * cannot be reached, the lease lapses on its own. A second call resolves with the first,
   * not before: a response written after a release began (an error after the slot was
   * taken) must still wait for it to reach the store.
   */
  release(): Promise<void> {
    if (this.released) return this.released;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.released = this.store.releaseSlot(this.accountId, this.api, this.holder).catch((e: unknown) => this.onError(e, 'slot release failed'));
    return this.released;
  }
}
