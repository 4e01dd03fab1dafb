/**
 * An operation's result as the Koa response body: Koa's respond() writes every answer. What
 * this adds is the slot rule's one demand on the writing (requestSlot.ts): the slot is held
 * until the answer is written, and freed before its last byte goes out.
 *   - A body held in memory (text, bytes, or UTF-8 pieces) is complete before any byte goes
 *     out: the request's work is done, and what is left is the kernel's and the client's. The
 *     release is awaited first and the body handed over after (api-contract: Plans and limits).
 *   - A file stream goes through `holdLastChunk`: every byte but the last goes out at once; the
 *     last waits until everything before it has been handed to the connection's socket (not
 *     merely passed into a stream buffer, or into the response's own queue while earlier
 *     pipelined answers on the connection are unread) and the release has reached the shared
 *     state. The slot's lease is renewed all that time (slots.ts).
 */
import type { ServerResponse } from 'node:http';
import { pipeline, Readable, Transform, type TransformCallback, type TransformOptions } from 'node:stream';
import type { Context } from 'koa';
import { JSON_TYPE } from './envelope.js';
import type { OperationResult } from './operation.js';
import { isStoredRows, pieceLength, type JsonPiece } from './jsonPieces.js';

export async function setResultBody(ctx: Context, result: OperationResult, beforeLastByte: () => Promise<void>): Promise<void> {
  ctx.status = 200;
  if (result.kind === 'rawJson') {
    await beforeLastByte();
    ctx.type = JSON_TYPE;
    const body = result.body;
    if (typeof body === 'string' || Buffer.isBuffer(body)) {
      ctx.body = body;
      return;
    }
    // Pieces go out as they are: no per-request copy of a 1.6 MB page into one buffer.
    const pieces = body as readonly JsonPiece[];
    ctx.body = new PiecesBody(pieces, result.rows ?? null);
    ctx.length = pieces.reduce((n, p) => n + pieceLength(p), 0);
    return;
  }
  ctx.type = result.contentType;
  for (const [k, v] of Object.entries(result.headers)) ctx.set(k, v);
  const res = ctx.res;
  ctx.body = holdLastChunk(
    result.body,
    result.length,
    async (out) => {
      await handedToSocket(out, res);
      await beforeLastByte();
    },
    result.rows ?? null,
  );
  ctx.length = result.length;
}

/**
 * A JSON answer made of pieces (jsonPieces.ts) as the response body: a byte stream pushed as
 * fast as the socket takes it, and the pieces themselves, which compression.ts codes instead
 * of reading the stream. Stored pieces' texts are all asked for at the first read, so they are
 * made at once on the thread pool's threads, and each goes out when the stream reaches it; a
 * stream never read (compression answered from the pieces) asks for none.
 */
export class PiecesBody extends Readable {
  private next = 0;
  private waiting = false;
  private texts: (Promise<Buffer> | null)[] | null = null;

  constructor(
    readonly pieces: readonly JsonPiece[],
    /** The rows it carries, for the request log (null: count them from the text). */
    readonly rows: number | null = null,
  ) {
    super();
  }

  override _read(): void {
    if (this.waiting) return;
    const pieces = this.pieces;
    const texts = (this.texts ??= pieces.map((p) => {
      if (!isStoredRows(p)) return null;
      const made = p.text();
      // A stream destroyed before it reaches this piece never awaits it: not an unhandled rejection.
      made.catch(() => undefined);
      return made;
    }));
    while (this.next < pieces.length) {
      const p = pieces[this.next]!;
      const stored = texts[this.next];
      if (stored) {
        this.waiting = true;
        stored.then(
          (text) => {
            this.waiting = false;
            this.next++;
            if (this.push(text)) this._read();
          },
          (e: unknown) => this.destroy(e as Error),
        );
        return;
      }
      this.next++;
      if (!this.push(p as Buffer)) return;
    }
    this.push(null);
  }
}

/**
 * `source` passed through, its last byte (the one completing `length`, or the end should the
 * source stop short) held until `gate` resolves; every byte before it goes out at once, so
 * reading and writing overlap and as much as possible of the answer is on its way before the
 * gate is asked. Holding one byte rather than the last chunk read means a file of one chunk
 * still sends its headers and nearly all of its body under the hold. `gate` gets this stream,
 * to wait for what it has passed on. The source is destroyed with this stream (Koa destroys
 * the body when the response ends early), and a source error becomes this stream's error (Koa
 * reports it on the app's 'error' event).
 */
export function holdLastChunk(source: Readable, length: number, gate: (out: Transform) => Promise<void>, rows: number | null = null): HeldBody {
  let seen = 0;
  let held: Buffer | null = null;
  const release = (done: TransformCallback, last: Buffer | null): void => {
    gate(out).then(
      () => done(null, last ?? undefined),
      (e: unknown) => done(e as Error),
    );
  };
  const out: HeldBody = new HeldBody(rows, {
    // As large as the file stream's reads, so a chunk passes without waiting for room.
    highWaterMark: source.readableHighWaterMark,
    transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback) {
      seen += chunk.length;
      if (seen < length || held) return done(null, chunk);
      held = chunk.subarray(chunk.length - 1);
      if (chunk.length > 1) out.push(chunk.subarray(0, chunk.length - 1));
      release(done, held);
    },
    flush(done: TransformCallback) {
      if (held) return done();
      held = Buffer.alloc(0);
      release(done, null);
    },
  });
  pipeline(source, out, () => undefined);
  return out;
}

/**
 * A coded answer as the response body (compression.ts), with the text it codes when it was
 * coded whole: the request log reads rows and error messages from the text, not the coded
 * bytes. A page spliced into gzip keeps only its row count (`plain` null).
 */
export class CodedBody extends Readable {
  constructor(
    readonly coded: Buffer,
    readonly plain: Buffer | null,
    readonly rows: number | null,
  ) {
    super();
  }

  override _read(): void {
    this.push(this.coded);
    this.push(null);
  }
}

/** The rows a body of ours says it carries; null when it does not say (a text is counted instead). */
export function bodyRows(body: unknown): number | null {
  return body instanceof PiecesBody || body instanceof HeldBody || body instanceof CodedBody ? body.rows : null;
}

/** A download's body (holdLastChunk), knowing the rows of the file it carries for the request log. */
export class HeldBody extends Transform {
  constructor(
    readonly rows: number | null,
    opts: TransformOptions,
  ) {
    super(opts);
  }
}

/** How often a held download looks whether its bytes have left for the socket. */
const HANDED_POLL_MS = 5;

/**
 * Resolves once `out` holds nothing and the response has handed every byte written to it to
 * its socket, and the socket to the kernel: the response is the connection's current one (a
 * pipelined answer waits, buffered, behind the earlier ones) and neither it nor the socket
 * has bytes queued. Also resolves once the response is destroyed (its slot is then released
 * by the close anyway). Neither the response nor the socket says when a write completes without a
 * callback on each write (Koa's pipeline writes without one) or a 'drain' they emit only
 * after a refused write, so this looks on 'drain' and every few milliseconds while it waits.
 */
export function handedToSocket(out: Readable, res: ServerResponse): Promise<void> {
  const handed = () => res.destroyed || res.writableEnded || (out.readableLength === 0 && res.socket !== null && res.writableLength === 0);
  if (handed()) return Promise.resolve();
  return new Promise((resolve) => {
    const check = () => {
      if (!handed()) return;
      clearInterval(timer);
      res.off('drain', check);
      resolve();
    };
    const timer = setInterval(check, HANDED_POLL_MS);
    res.on('drain', check);
  });
}
