/**
 * Decouples decoding from kafkajs's fetch loop. kafkajs fetches, then waits until every batch
 * of that fetch has been handled before fetching again; handing batches to this queue and
 * returning at once lets the next fetch run while earlier batches are decoded.
 *
 * Each batch is cut into slices; a slice goes through `send` (starts decoding, e.g. in a
 * worker thread) and then `complete` (takes the result on this thread). Up to `depth` slices
 * are in flight, and they complete strictly in the order they were queued: per partition,
 * results reach the group commit in offset order. `room()` bounds what waits here.
 */
export interface QueueOptions {
  /** Queued messages beyond which producers wait in room() (default 100,000). */
  readonly maxMessages?: number;
  /** Messages per slice (default 5,000). */
  readonly sliceMessages?: number;
  /** Slices decoding at once (default 2). */
  readonly depth?: number;
}

export interface QueueItem<T> {
  readonly messages: readonly T[];
}

export interface SliceStages<T, I extends QueueItem<T>, R> {
  send(item: I, from: number, to: number): Promise<R>;
  complete(item: I, from: number, to: number, result: R): void;
  /** Every queued slice is completed and none waits: nothing more is on its way for now. */
  drained?(): void;
}

interface InFlight<I, R> {
  readonly item: I;
  readonly from: number;
  readonly to: number;
  readonly result: Promise<R>;
}

export class BatchQueue<T, I extends QueueItem<T>, R> {
  private readonly items: I[] = [];
  /** Next slice start within items[0]. */
  private cursor = 0;
  private queued = 0;
  private running: Promise<void> | null = null;
  private waiters: (() => void)[] = [];
  private idleWaiters: (() => void)[] = [];
  private readonly maxMessages: number;
  private readonly sliceMessages: number;
  private readonly depth: number;

  constructor(
    private readonly stages: SliceStages<T, I, R>,
    private readonly onError: (e: unknown) => void,
    opts: QueueOptions = {},
  ) {
    this.maxMessages = opts.maxMessages ?? 100_000;
    this.sliceMessages = opts.sliceMessages ?? 5000;
    this.depth = Math.max(1, opts.depth ?? 2);
  }

  /** Messages queued and not yet completed. */
  get size(): number {
    return this.queued;
  }

  push(item: I): void {
    if (item.messages.length === 0) return;
    this.items.push(item);
    this.queued += item.messages.length;
    this.running ??= this.run();
  }

  /** Resolves once fewer than maxMessages wait. */
  room(): Promise<void> {
    if (this.queued < this.maxMessages) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Resolves once everything queued so far is completed (or dropped after an error). */
  idle(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Forgets what is queued and not yet sent (never recorded: Kafka delivers it again). */
  clear(): void {
    this.items.length = 0;
    this.cursor = 0;
    this.queued = 0;
    this.release();
  }

  private release(): void {
    if (this.queued < this.maxMessages) for (const w of this.waiters.splice(0)) w();
  }

  private nextSlice(): { item: I; from: number; to: number } | null {
    while (this.items.length > 0 && this.cursor >= this.items[0].messages.length) {
      this.items.shift();
      this.cursor = 0;
    }
    if (this.items.length === 0) return null;
    const item = this.items[0];
    const from = this.cursor;
    const to = Math.min(item.messages.length, from + this.sliceMessages);
    this.cursor = to;
    return { item, from, to };
  }

  private async run(): Promise<void> {
    const inFlight: InFlight<I, R>[] = [];
    try {
      for (;;) {
        while (inFlight.length < this.depth) {
          const s = this.nextSlice();
          if (!s) break;
          inFlight.push({ ...s, result: this.stages.send(s.item, s.from, s.to) });
        }
        const head = inFlight.shift();
        if (!head) {
          this.stages.drained?.();
          break;
        }
        const result = await head.result;
        this.stages.complete(head.item, head.from, head.to, result);
        this.queued = Math.max(0, this.queued - (head.to - head.from));
        this.release();
      }
    } catch (e) {
      // Slices still in flight are abandoned; their promises must not surface as unhandled.
      for (const f of inFlight) f.result.catch(() => undefined);
      this.clear();
      this.onError(e);
    } finally {
      this.running = null;
      for (const w of this.idleWaiters.splice(0)) w();
    }
  }
}
