/**
 * An operation's result as the Koa response body: Koa's respond() writes every answer. What
 * this adds is the slot rule's one demand on the writing (requestSlot.ts): the last byte
 * waits for `beforeLastByte` (the slot's release) to resolve.
 *   - A body held in memory (text, bytes, or UTF-8 pieces) is complete before any byte goes
 *     out, so the release is awaited first and the body handed over after.
 *   - A file stream goes through `holdLastChunk`, which passes every chunk at once but the one
 *     that completes the Content-Length, which waits for the release: the slot stays held
 *     while a download streams.
 */
import { pipeline, Readable, Transform, type TransformCallback } from 'node:stream';
import type { Context } from 'koa';
import { JSON_TYPE } from './envelope.js';
import type { OperationResult } from './operation.js';
import { isStoredRows, pieceLength, type JsonPiece } from './jsonPieces.js';

export async function setResultBody(ctx: Context, result: OperationResult, beforeLastByte: () => Promise<void>): Promise<void> {
  ctx.status = 200;
  // For the request log: the rows of a body it cannot scan (a stream).
  if (result.rows !== undefined) ctx.state.rows = result.rows;
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
    // Kept for compression.ts, which codes the pieces themselves rather than the stream.
    ctx.state.jsonPieces = pieces;
    ctx.body = piecesStream(pieces);
    ctx.length = pieces.reduce((n, p) => n + pieceLength(p), 0);
    return;
  }
  ctx.type = result.contentType;
  for (const [k, v] of Object.entries(result.headers)) ctx.set(k, v);
  ctx.body = holdLastChunk(result.body, result.length, beforeLastByte);
  ctx.length = result.length;
}

/**
 * Pieces as a byte stream, pushed as fast as the socket takes them. Stored pieces' texts are
 * all asked for at the first read, so they are made at once on the thread pool's threads, and
 * each goes out when the stream reaches it; a stream never read (compression.ts answered from
 * the pieces) asks for none.
 */
export function piecesStream(pieces: readonly JsonPiece[]): Readable {
  let next = 0;
  let waiting = false;
  let texts: (Promise<Buffer> | null)[] | null = null;
  return new Readable({
    read() {
      if (waiting) return;
      texts ??= pieces.map((p) => {
        if (!isStoredRows(p)) return null;
        const made = p.text();
        // A stream destroyed before it reaches this piece never awaits it: not an unhandled rejection.
        made.catch(() => undefined);
        return made;
      });
      while (next < pieces.length) {
        const p = pieces[next]!;
        const stored = texts[next];
        if (stored) {
          waiting = true;
          stored.then(
            (text) => {
              waiting = false;
              next++;
              if (this.push(text)) this.read(0);
            },
            (e: unknown) => this.destroy(e as Error),
          );
          return;
        }
        next++;
        if (!this.push(p as Buffer)) return;
      }
      this.push(null);
    },
  });
}

/**
 * `source` passed through, the chunk that completes `length` bytes (or the end, should the
 * source stop short) held until `gate` resolves; chunks before it go out at once, so reading
 * and writing still overlap. The source is destroyed with this stream (Koa destroys the body
 * when the response ends early), and a source error becomes this stream's error (Koa reports
 * it on the app's 'error' event).
 */
export function holdLastChunk(source: Readable, length: number, gate: () => Promise<void>): Transform {
  let seen = 0;
  let gated = false;
  const out = new Transform({
    // As large as the file stream's reads, so a chunk passes without waiting for room.
    highWaterMark: source.readableHighWaterMark,
    transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback) {
      seen += chunk.length;
      if (seen < length) return done(null, chunk);
      gated = true;
      gate().then(
        () => done(null, chunk),
        (e: unknown) => done(e as Error),
      );
    },
    flush(done: TransformCallback) {
      if (gated) return done();
      gate().then(
        () => done(),
        (e: unknown) => done(e as Error),
      );
    },
  });
  pipeline(source, out, () => undefined);
  return out;
}
