/**
 * Uploads beside a long-running process (the ingestor): a pass after each seal tick that
 * sealed a day, one at a time, a poke during a pass running one more after it. Staging and
 * sealing never wait for it: it runs on its own promise chain and the store's slowness only
 * delays it. A store that is down (a retriable StoreError) is tried again after `retryMs`,
 * and again, until a pass gets through; nothing is lost meanwhile (the days stay due in the
 * catalog, and the files stay on the local disk until `tickvault offload`).
 */
import { StoreError } from './objectStore.js';
import { StoreCatalog } from './storeCatalog.js';
import { uploadPass, type UploadPassOptions, type UploadsDone } from './uploadPass.js';

export interface StoreState {
  /** The last pass reached the store (or none has run yet). */
  readonly up: boolean;
  /** Why the last pass could not reach it, one line; null when it could. */
  readonly problem: string | null;
  /** Days due after the last pass. */
  readonly due: number;
}

export class BackgroundUploads {
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private current: StoreState = { up: true, problem: null, due: 0 };

  constructor(
    private readonly pass: Omit<UploadPassOptions, 'stop'>,
    private readonly onPass: (done: UploadsDone, ms: number) => void,
    /** A failed pass: the store down (retried after retryMs), or another fault (retried at the next poke). */
    private readonly onError: (e: unknown, state: StoreState) => void,
    private readonly retryMs = 30_000,
  ) {}

  get state(): StoreState {
    return this.current;
  }

  /** A pass now, or once more after the one running. */
  poke(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.retryTimer !== null) {
      clearTimeout(this.retryTimer);
      this.retryTimer = null;
    }
    this.running = (async () => {
      do {
        this.again = false;
        const started = Date.now();
        try {
          const done = await uploadPass({ ...this.pass, stop: () => this.stopped });
          this.current = { up: true, problem: null, due: done.due };
          this.onPass(done, Date.now() - started);
        } catch (e) {
          // A pass abandoned by a stop (its requests cut off as the ingestor closes): not the store's failure.
          if (this.stopped) return;
          const retriable = e instanceof StoreError && e.retriable;
          // Counted from the catalog, not the store: a store down from the first pass still shows its due days.
          this.current = { up: !(e instanceof StoreError), problem: (e as Error).message, due: this.dueNow() };
          this.onError(e, this.current);
          if (retriable && !this.stopped) this.retryTimer = setTimeout(() => this.poke(), this.retryMs).unref();
          return;
        }
      } while (this.again && !this.stopped);
    })().finally(() => (this.running = null));
  }

  /** No new pass; the running one ends between days. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    await this.running;
  }

  /** Days due now by the catalog alone (the last known count when it cannot be read). */
  private dueNow(): number {
    try {
      return new StoreCatalog(this.pass.catalog).dueDays().length;
    } catch {
      return this.current.due;
    }
  }

  /** Resolves once the passes asked so far are done (tests). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }
}
