/** Row text kept in the background of a long-running process (rowTextKeeper.ts). */
import { keepRowText, type RowTextKept, type RowTextKeeping } from './rowTextKeeper.js';
import { RowTextPool } from './rowTextPool.js';

/**
 * keepRowText as a background task of a long-running process (the ingestor, the demo): a pass
 * after each seal, one at a time; a poke during a pass runs one more after it. `stop()` ends a
 * pass between files and waits for it. Files are made by one worker thread (rowTextPool.ts),
 * so the process's own event loop (a consumer, a server) is not held up by them and one core
 * is left to it.
 */
export class BackgroundRowText {
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private readonly pool = new RowTextPool(1);

  constructor(
    private readonly keeping: Omit<RowTextKeeping, 'stop' | 'maker' | 'concurrency'>,
    private readonly onPass: (kept: RowTextKept, ms: number) => void,
    private readonly onError: (e: unknown) => void,
  ) {}

  /** A pass now, or once more after the one running. */
  poke(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      do {
        this.again = false;
        const started = Date.now();
        this.onPass(await keepRowText({ ...this.keeping, stop: () => this.stopped, maker: this.pool.make }), Date.now() - started);
      } while (this.again && !this.stopped);
    })()
      .catch(this.onError)
      .finally(() => (this.running = null));
  }

  /** Resolves once no pass runs (the current one ends at its next file). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
    await this.pool.close();
  }

  /** Resolves once the passes asked so far are done (tests, the demo's shutdown). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }
}
