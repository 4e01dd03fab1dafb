/**
 * Reading the POST body: JSON whatever the Content-Type, at most BODY_LIMIT_BYTES after
 * decompression, Content-Encoding identity, gzip, deflate or br.
 *
 * Everything that can go wrong while reading a body is the client's doing: a corrupt or
 * truncated compressed stream, bytes that are not JSON, a body that is too large. Those are
 * 400, 413 or 415, never 500. The parser runs with a no-op `next`, so an error thrown here
 * can only have come from reading the body, not from the handlers after it.
 */
import type { IncomingMessage } from 'node:http';
import type { Context, Middleware, Next } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { badBody, type ApiError } from './apiError.js';

export const BODY_LIMIT_BYTES = 1024 * 1024;

/** Encodings the body may carry (the ones the body parser can undo). */
export const BODY_ENCODINGS: readonly string[] = ['identity', 'gzip', 'deflate', 'br'];

/**
 * How much of a refused body is still read and discarded so that the client, which is
 * usually still writing it, gets to read our answer instead of a reset connection. Beyond
 * this the connection is closed.
 */
const DRAIN_LIMIT_BYTES = 64 * 1024 * 1024;
const DRAIN_LIMIT_MS = 10_000;

const parseJson = koaBody({
  json: true,
  jsonStrict: true,
  jsonLimit: BODY_LIMIT_BYTES,
  urlencoded: false,
  text: false,
  multipart: false,
  parsedMethods: [HttpMethodEnum.POST],
  patchNode: false,
});

function encodingOf(ctx: Context): string {
  const raw = ctx.get('content-encoding').trim().toLowerCase();
  return raw === '' ? 'identity' : raw;
}

/** The client's fault, worded for the envelope; the parser's own errors say little. */
function bodyError(e: unknown, encoding: string): ApiError {
  const status = (e as { status?: unknown } | null)?.status;
  const type = (e as { type?: unknown } | null)?.type;
  if (status === 413 || type === 'entity.too.large') {
    return badBody(413, `request body exceeds ${BODY_LIMIT_BYTES} bytes (1 MiB)${encoding === 'identity' ? '' : ' once decompressed'}`);
  }
  if (status === 415) return unsupportedEncoding(encoding);
  const code = (e as { code?: unknown } | null)?.code;
  // zlib's errors (Z_DATA_ERROR, Z_BUF_ERROR, brotli's ERR__ERROR_…) carry no HTTP status.
  if (typeof code === 'string' && /^(Z_|ERR__|ERR_BROTLI|ERR_ZLIB)/.test(code)) {
    return badBody(400, `request body is not valid ${encoding} data (Content-Encoding: ${encoding})`);
  }
  return badBody(400, 'request body must be a JSON object');
}

function unsupportedEncoding(encoding: string): ApiError {
  const shown = encoding.length > 40 ? `${encoding.slice(0, 40)}…` : encoding;
  return badBody(415, `Content-Encoding ${JSON.stringify(shown)} is not supported; send ${BODY_ENCODINGS.join(', ')}`);
}

/**
 * Reads and discards what is left of a refused request body, up to the drain limits, so that
 * the answer is read by a client still sending. Past the limits the connection is closed.
 */
function drain(req: IncomingMessage): Promise<void> {
  if (req.complete || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let seen = 0;
    const finish = () => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', finish);
      req.off('close', finish);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > DRAIN_LIMIT_BYTES) {
        req.socket.destroy();
        finish();
      }
    };
    const timer = setTimeout(() => {
      req.socket.destroy();
      finish();
    }, DRAIN_LIMIT_MS);
    req.unpipe();
    req.on('data', onData);
    req.once('end', finish);
    req.once('close', finish);
    req.resume();
  });
}

export function requestBody(): Middleware {
  return async (ctx: Context, next: Next) => {
    if (ctx.method !== 'POST') return next();
    // The body is JSON whatever Content-Type the client sent (curl -d sends a form type).
    if (!ctx.is('application/json')) ctx.request.headers['content-type'] = 'application/json';
    const encoding = encodingOf(ctx);
    let failure: ApiError | null = BODY_ENCODINGS.includes(encoding) ? null : unsupportedEncoding(encoding);
    if (!failure) {
      // Content codings are case-insensitive; the decompressor matches them exactly.
      ctx.req.headers['content-encoding'] = encoding;
      try {
        await parseJson(ctx, async () => {});
      } catch (e) {
        failure = bodyError(e, encoding);
      }
    }
    if (failure) {
      // The connection is not reused after a refused body: what is left of it is unread.
      ctx.set('Connection', 'close');
      await drain(ctx.req);
      throw failure;
    }
    return next();
  };
}
