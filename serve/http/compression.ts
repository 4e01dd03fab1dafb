/**
 * Compressed answers (api-contract: Compression): every body the server holds in memory — the
 * JSON of POST /api (a page's pieces included), /openapi.json, /metrics, the console's
 * assets — goes out in the best coding the request's Accept-Encoding allows, with
 * `Vary: Accept-Encoding`. Never a stream (a Parquet download is ZSTD inside already and
 * streams from disk), never a body under MIN_BYTES (the header and a frame cost more than they
 * save), never without Accept-Encoding (identity).
 *
 * Levels are the fast ones: a full-day level-2 page (1.58 MB) compresses ~5x at gzip 1, zstd 3
 * or brotli 1 in about 10 ms, where higher levels add a few percent for 5-7 times the CPU; over
 * a slow link the bytes decide, over a fast one the CPU does.
 */
import { promisify } from 'node:util';
import { brotliCompress as brotliCb, constants, gzip as gzipCb } from 'node:zlib';
import type { Context, Middleware, Next } from 'koa';
import { zstdCompress } from '../../storage/parquet/zstd.js';
import { gzipSpliced, hasStoredChunks } from './gzipSplice.js';
import { pieceLength, piecesText, type JsonPiece } from './jsonPieces.js';
import { bodyRows, CodedBody, PiecesBody } from './responseBody.js';

const gzip = promisify(gzipCb);
const brotliCompress = promisify(brotliCb);

export type ContentCoding = 'zstd' | 'br' | 'gzip' | 'identity';

/** Ours, best first, when the client weighs several alike: zstd and brotli beat gzip at the same speed. */
const PREFERENCE: readonly ContentCoding[] = ['zstd', 'br', 'gzip'];
/**
 * For a page whose rows row text holds compressed (gzipSplice.ts): gzip first, because its
 * bytes are already made — about brotli 1's size (334 KB against 323 KB for a full-day level-2
 * page) for none of its 5–10 ms.
 */
const STORED_GZIP_PREFERENCE: readonly ContentCoding[] = ['gzip', 'zstd', 'br'];

/** Below this a body goes as it is. */
export const MIN_BYTES = 1024;

/** Media types worth compressing (text); anything else (Parquet, images) is left alone. */
const COMPRESSIBLE = /^(application\/(json|javascript)|text\/)/i;

/**
 * The coding to answer in, from an Accept-Encoding header (RFC 9110 §12.5.3): the highest
 * q-value among the codings we have, ties broken by our preference; `*` stands for any coding
 * not named; q=0 refuses. No header, or nothing acceptable: identity.
 */
export function chooseCoding(acceptEncoding: string | undefined, preference: readonly ContentCoding[] = PREFERENCE): ContentCoding {
  if (acceptEncoding === undefined || acceptEncoding.trim() === '') return 'identity';
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    let q = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(p);
      if (m) q = Number(m[1]);
    }
    if (Number.isFinite(q)) weights.set(name.trim(), q);
  }
  let best: ContentCoding = 'identity';
  let bestQ = 0;
  for (const coding of preference) {
    const q = weights.get(coding) ?? weights.get('*') ?? 0;
    if (q > bestQ) {
      best = coding;
      bestQ = q;
    }
  }
  return best;
}

const outputBlock = (inputBytes: number) => Math.max(16 * 1024, inputBytes >> 2);

export async function compress(coding: Exclude<ContentCoding, 'identity'>, input: Buffer): Promise<Buffer> {
  switch (coding) {
    // Output in blocks of a quarter of the input, not zlib's 16 KiB: each block is a round trip
    // to libuv's threads (a full-day page would take ~20).
    case 'gzip':
      return gzip(input, { level: 1, chunkSize: outputBlock(input.length) });
    case 'br':
      return brotliCompress(input, {
        chunkSize: outputBlock(input.length),
        params: { [constants.BROTLI_PARAM_QUALITY]: 1, [constants.BROTLI_PARAM_SIZE_HINT]: input.length },
      });
    case 'zstd':
      return Buffer.from(await zstdCompress(input, 3));
  }
}

/** What the response holds in memory, as pieces (a page's, responseBody.ts), or null for a stream. */
function bodyPieces(ctx: Context): readonly JsonPiece[] | null {
  const body: unknown = ctx.body;
  if (body instanceof PiecesBody) return body.pieces;
  if (typeof body === 'string') return [Buffer.from(body)];
  if (Buffer.isBuffer(body)) return [body];
  return null;
}

export function compression(): Middleware {
  return async (ctx: Context, next: Next) => {
    await next();
    if (ctx.method === 'HEAD' || ctx.response.get('Content-Encoding')) return;
    if (!COMPRESSIBLE.test(ctx.response.type || '')) return;
    const pieces = bodyPieces(ctx);
    if (pieces === null) return;
    // The answer depends on the header from here on, whatever this request asked.
    ctx.vary('Accept-Encoding');
    if (pieces.reduce((n, p) => n + pieceLength(p), 0) < MIN_BYTES) return;
    const stored = hasStoredChunks(pieces);
    const coding = chooseCoding(ctx.get('Accept-Encoding') || undefined, stored ? STORED_GZIP_PREFERENCE : PREFERENCE);
    if (coding === 'identity') return;
    if (coding === 'gzip' && stored) {
      // A page (its row count travels with it): the log needs no text of it.
      const packed = await gzipSpliced(pieces);
      ctx.body = new CodedBody(packed, null, bodyRows(ctx.body));
      ctx.length = packed.length;
      ctx.set('Content-Encoding', coding);
      return;
    }
    const texts = await piecesText(pieces);
    const plain = texts.length === 1 ? texts[0]! : Buffer.concat(texts);
    const packed = await compress(coding, plain);
    ctx.body = new CodedBody(packed, plain, bodyRows(ctx.body));
    ctx.length = packed.length;
    ctx.set('Content-Encoding', coding);
  };
}
