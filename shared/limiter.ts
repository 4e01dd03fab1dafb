/**
 * At most `max` tasks at once; the rest wait in arrival order. The one concurrency limit of
 * the code base: the seal's buckets in flight (one per seal worker: ingest/seal/day.ts) and
 * the boundary row groups decoded at once (serve/tickHistory/boundary.ts).
 */
export class Limiter {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly max: number) {}

  /** `task`'s result, once it could start and has finished; a failure frees its place too. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.max) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running++;
    try {
      return await task();
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }
}
