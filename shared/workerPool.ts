/**
 * The one worker-thread pool (seal, feed replay, Kafka decode, row JSON) and the one message
 * protocol its workers speak. The main thread's side is WorkerPool; a worker module's side is
 * serveWorker(handler). No other module starts a Worker (test/shared/workerPool.test.ts checks).
 *
 * - Threads: `size` of them, started now or, with `lazy`, on first use (a server that answers
 *   from its cache never starts them).
 * - Dispatch: each request goes to the worker with the fewest in flight; any number may be in
 *   flight on one worker (a worker that awaits file reads serves several at once). Callers
 *   bound what they send (the seal's limiter, the replay's window, the decode queue's depth).
 * - Order: replies come back as workers finish. One worker whose handler is synchronous
 *   answers in the order it was sent (its port is FIFO and it finishes each request before
 *   reading the next): the Kafka decoder, one worker, relies on that.
 * - Progress: a handler may send progress values before its reply (the seal's "file written");
 *   they reach the request's `onProgress`, in order, before it resolves.
 * - Transfer: a request's and a reply's buffers may be moved instead of copied.
 * - Process lifetime: a worker is unref'd while idle and ref'd while it owes a reply, so an
 *   idle or forgotten pool never holds a process open and one awaiting a worker never exits.
 * - Errors: a handler's failure is that request's rejection, as its own class
 *   (shared/workerErrors.ts); the worker lives on.
 *
 * A worker that dies (an uncaught error, process.exit, out of memory, terminated) — the one
 * rule: every request it held rejects with one WorkerDiedError (its name, exit code and, when
 * the thread threw, that error as `cause`); nothing is retried, because the pool cannot know
 * whether a request is safe to run twice and a request that killed one worker would likely
 * kill the next. The pool replaces the dead worker for later requests (a fresh thread started
 * on the next dispatch to its slot), so one bad request cannot disable a long-running server's
 * pool for the rest of its life. What a death means beyond its requests is the caller's to
 * decide: a seal or a replay fails on the first rejection; the Kafka decoder wraps it in a
 * stopping IngestError (ingest/kafka/decoder.ts); the row-JSON pool's page fails and the next
 * page gets a fresh worker.
 */
import { parentPort, Worker, type TransferListItem } from 'node:worker_threads';
import { errorFromWire, errorToWire, type WireError } from './workerErrors.js';

export interface WorkerPoolOptions {
  /** Names the pool's threads in errors: "seal worker". */
  readonly name: string;
  /** The worker module; it calls serveWorker(). */
  readonly url: URL;
  readonly size: number;
  readonly workerData?: unknown;
  /** Start the threads on first use instead of now. */
  readonly lazy?: boolean;
}

export interface RunOptions<P> {
  /** Buffers of the request moved to the worker (unusable here afterwards). */
  readonly transfer?: readonly TransferListItem[];
  /** Each progress value the handler sends before its reply. */
  readonly onProgress?: (progress: P) => void;
}

/** A worker of the pool stopped while it owed replies; each of them rejects with this. */
export class WorkerDiedError extends Error {
  override name = 'WorkerDiedError';

  constructor(
    /** The pool's name for its workers. */
    readonly worker: string,
    readonly exitCode: number,
    cause?: unknown,
  ) {
    super(`${worker} died (exit code ${exitCode})${cause instanceof Error ? `: ${cause.message}` : ''}`, cause === undefined ? undefined : { cause });
  }
}

/** The pool was closed: requests it held and later ones reject with this. */
export class WorkerPoolClosedError extends Error {
  override name = 'WorkerPoolClosedError';

  constructor(readonly worker: string) {
    super(`${worker} pool is closed`);
  }
}

/** Main thread → worker. */
interface RequestMessage {
  readonly id: number;
  readonly req: unknown;
}

/** Worker → main thread. */
type ReplyMessage =
  | { readonly id: number; readonly kind: 'done'; readonly value: unknown }
  | { readonly id: number; readonly kind: 'progress'; readonly value: unknown }
  | { readonly id: number; readonly kind: 'error'; readonly error: WireError };

interface Slot {
  worker: Worker | null;
  inFlight: number;
}

interface Owed {
  readonly slot: Slot;
  readonly resolve: (value: never) => void;
  readonly reject: (e: Error) => void;
  readonly onProgress: ((progress: never) => void) | undefined;
}

export class WorkerPool<Req, Res, P = never> {
  private readonly slots: Slot[];
  private readonly owed = new Map<number, Owed>();
  private nextId = 0;
  private closed = false;

  constructor(private readonly options: WorkerPoolOptions) {
    this.slots = Array.from({ length: Math.max(1, options.size) }, () => ({ worker: null, inFlight: 0 }));
    if (!options.lazy) for (const slot of this.slots) this.start(slot);
  }

  get size(): number {
    return this.slots.length;
  }

  /** The reply to `req` from one of the workers. */
  run(req: Req, opts: RunOptions<P> = {}): Promise<Res> {
    if (this.closed) return Promise.reject(new WorkerPoolClosedError(this.options.name));
    let slot = this.slots[0];
    for (const s of this.slots) if (s.inFlight < slot.inFlight) slot = s;
    const worker = slot.worker ?? this.start(slot);
    const id = this.nextId++;
    return new Promise<Res>((resolve, reject) => {
      try {
        worker.postMessage({ id, req } satisfies RequestMessage, opts.transfer);
      } catch (e) {
        // Not sent (a value that cannot be cloned): nothing is owed.
        reject(e);
        return;
      }
      this.owed.set(id, { slot, resolve: resolve as (v: never) => void, reject, onProgress: opts.onProgress as ((p: never) => void) | undefined });
      if (slot.inFlight++ === 0) worker.ref();
    });
  }

  /** Stops every worker; what they held and every later request reject with WorkerPoolClosedError. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((s) => s.worker?.terminate()));
    this.rejectHeld(null, new WorkerPoolClosedError(this.options.name));
  }

  private start(slot: Slot): Worker {
    const worker = new Worker(this.options.url, { workerData: this.options.workerData });
    let thrown: Error | undefined;
    worker.on('message', (m: ReplyMessage) => this.onReply(m));
    // An uncaught error in the thread; its 'exit' follows, and rejects what it held.
    worker.on('error', (e) => (thrown ??= e));
    worker.on('exit', (code) => {
      if (slot.worker !== worker) return;
      slot.worker = null;
      slot.inFlight = 0;
      const name = this.options.name;
      this.rejectHeld(slot, this.closed ? new WorkerPoolClosedError(name) : new WorkerDiedError(name, code, thrown));
    });
    // After the listeners: adding a 'message' listener refs the worker's port again.
    worker.unref();
    slot.worker = worker;
    return worker;
  }

  private onReply(m: ReplyMessage): void {
    const owed = this.owed.get(m.id);
    if (!owed) return;
    if (m.kind === 'progress') {
      owed.onProgress?.(m.value as never);
      return;
    }
    this.owed.delete(m.id);
    if (--owed.slot.inFlight === 0) owed.slot.worker?.unref();
    if (m.kind === 'done') owed.resolve(m.value as never);
    else owed.reject(errorFromWire(m.error));
  }

  /** Rejects the requests held by `slot` (every slot: null), in the order they were sent. */
  private rejectHeld(slot: Slot | null, e: Error): void {
    for (const [id, owed] of this.owed) {
      if (slot !== null && owed.slot !== slot) continue;
      this.owed.delete(id);
      owed.reject(e);
    }
  }
}

/**
 * A worker module's side: answers each request with `handle`'s result (or its failure, as
 * errorToWire data). `progress` sends a value ahead of the reply; `transferOf` names the
 * reply's buffers to move rather than copy (they must be the worker's own: not Node's shared
 * Buffer pool). Does nothing on the main thread, so a worker module can also be imported
 * for its functions.
 */
export function serveWorker<Req, Res, P = never>(
  handle: (req: Req, progress: (p: P) => void) => Res | Promise<Res>,
  transferOf?: (res: Res) => readonly TransferListItem[],
): void {
  const port = parentPort;
  if (!port) return;
  const fail = (id: number, e: unknown): void => {
    try {
      port.postMessage({ id, kind: 'error', error: errorToWire(e) } satisfies ReplyMessage);
    } catch {
      // Fields or a cause that cannot be cloned: the name, message and stack still go.
      port.postMessage({ id, kind: 'error', error: errorToWire(e, true) } satisfies ReplyMessage);
    }
  };
  const reply = (id: number, value: Res): void => {
    try {
      port.postMessage({ id, kind: 'done', value } satisfies ReplyMessage, transferOf?.(value));
    } catch (e) {
      // Every request gets an answer, or its caller would wait forever.
      fail(id, e);
    }
  };
  port.on('message', ({ id, req }: RequestMessage) => {
    const progress = (value: P): void => port.postMessage({ id, kind: 'progress', value } satisfies ReplyMessage);
    let out: Res | Promise<Res>;
    try {
      out = handle(req as Req, progress);
    } catch (e) {
      fail(id, e);
      return;
    }
    // A synchronous handler's reply goes at once: the order of replies is the order of requests.
    if (out instanceof Promise)
      out.then(
        (v) => reply(id, v),
        (e: unknown) => fail(id, e),
      );
    else reply(id, out);
  });
}
