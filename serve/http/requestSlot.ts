/**
 * The one-request-in-progress slot of one POST /api request (api-contract "Plans and
 * limits"): taken by the operation through its context, released exactly once — before the
 * answer's last byte goes out (responseBody.ts holds that byte back until the release has
 * reached the shared state), when the request fails (the error's answer waits for it too), or
 * when the client disconnects. A client that has every byte may send its next request at
 * once, to another site, and must find the slot free there.
 */
import type { ServerResponse } from 'node:http';
import type { ApiName } from '../access/plans.js';
import type { Slot, SlotLeases } from '../access/slots.js';
import { busy } from './apiError.js';

export class RequestSlot {
  private slot: Slot | null = null;

  constructor(
    private readonly leases: SlotLeases,
    /** The app's slots in flight (released on shutdown; the metrics count them). */
    private readonly held: Set<Slot>,
    private readonly accountId: number,
    private readonly api: ApiName,
  ) {}

  /** Takes the slot, or throws 503 when a live lease elsewhere holds it (never queued). */
  async acquire(res: ServerResponse): Promise<void> {
    if (this.slot) return;
    const s = await this.leases.tryAcquire(this.accountId, this.api);
    if (!s) throw busy(`this account already has a ${this.api} request in progress; it is not queued`, 1);
    this.slot = s;
    this.held.add(s);
    // The client left while the slot was being taken: nothing will be written.
    if (res.destroyed) void this.release();
  }

  /**
   * Frees the slot (if taken); resolves when the shared state has it free. A failed release is
   * logged by the slot and still resolves; the lease then lapses on its own. Every call after
   * the first gets the first call's promise.
   */
  release(): Promise<void> {
    if (!this.slot) return Promise.resolve();
    this.held.delete(this.slot);
    return this.slot.release();
  }
}
