/**
 * One structured log line per request, written when the response has been sent (or the
 * client went away), so `ms` includes streaming a Parquet file:
 *
 *   {"ns":"serve","msg":"request","method":"POST","path":"/api","apiname":"level2_quote_history",
 *    "account":3,"code":200,"rows":3,"bytes":2170,"ms":4.1}
 *
 * Never the API key: the body is not logged, only its `apiname`; the account is the id the
 * app put in `ctx.state.accountId` after authenticating. `rows` is what the body says it carries
 * (responseBody.ts: a page's pieces, a download, a coded page), else
 * counted in a JSON body held in memory. API requests log at info; health, metrics and
 * document fetches at debug (a scraper every 15 s is not news).
 */
import type { Context, Middleware, Next } from 'koa';
import type { Logger } from '../../shared/logger.js';
import { API_NAMES, type ApiName } from '../access/plans.js';
import { bodyRows, CodedBody } from './responseBody.js';
import { onResponseDone } from './responseDone.js';
import type { ErrorReason } from './apiError.js';

export interface RequestSummary {
  readonly method: string;
  readonly path: string;
  /** The body's apiname when it is a known one, 'unknown' for any other POST /api, null elsewhere. */
  readonly apiname: ApiName | 'unknown' | null;
  /** Authenticated account id; null before authentication (400/401 and earlier failures). */
  readonly account: number | null;
  readonly code: number;
  /** Rows in `data.items` of a JSON answer or in a Parquet file; null for errors and when unknown. */
  readonly rows: number | null;
  /** Response body bytes (Content-Length); null when unknown. */
  readonly bytes: number | null;
  readonly ms: number;
  /** The connection closed before the response was completely written. */
  readonly aborted: boolean;
  /** The envelope message of an error answer. */
  readonly error?: string;
  /** Which rule refused the request (ApiError.reason), for any answer but 200. */
  readonly reason?: ErrorReason;
}

const KNOWN: ReadonlySet<string> = new Set(API_NAMES);

export function isApiRequest(ctx: Context): boolean {
  return ctx.method === 'POST' && ctx.path === '/api';
}

/** The request's apiname as a bounded label: known names only, whatever the client sent. */
export function apinameOf(ctx: Context): ApiName | 'unknown' | null {
  if (!isApiRequest(ctx)) return null;
  const body = (ctx.request as { body?: unknown }).body;
  const name = typeof body === 'object' && body !== null ? (body as { apiname?: unknown }).apiname : undefined;
  return typeof name === 'string' && KNOWN.has(name) ? (name as ApiName) : 'unknown';
}

/**
 * Rows of a JSON envelope (text, or UTF-8 bytes as the level2 fast path writes them) without
 * parsing it: rows are flat arrays of numbers, nulls and bracket-free strings (codes, dates,
 * times), so inside `"items":[…]` each row holds exactly one `]`, and the last row's is the
 * first of `]]`. Counting that byte with native search costs about 0.6 ms for a 10,000-row
 * (3 MB) page, a fraction of producing it.
 */
export function countItems(body: string | Buffer): number | null {
  const start = body.indexOf('"items":[');
  if (start < 0) return null;
  const first = start + '"items":['.length;
  if (body.indexOf(']', first) === first) return 0;
  const last = body.indexOf(']]', first);
  if (last < 0) return null;
  let n = 0;
  if (typeof body === 'string') {
    for (let i = body.indexOf(']', first); i >= 0 && i <= last; i = body.indexOf(']', i + 1)) n++;
  } else {
    // A numeric needle is a plain memchr; a string needle would be re-encoded on every call.
    for (let i = body.indexOf(0x5d, first); i >= 0 && i <= last; i = body.indexOf(0x5d, i + 1)) n++;
  }
  return n;
}

function errorMessage(body: unknown): string | undefined {
  if (!isJsonBody(body) || body.length > 4096) return undefined;
  try {
    const m = (JSON.parse(body.toString()) as { message?: unknown }).message;
    return typeof m === 'string' ? m : undefined;
  } catch {
    return undefined;
  }
}

/** Bodies the app writes from memory (envelopes); a file download is a stream. */
function isJsonBody(body: unknown): body is string | Buffer {
  return typeof body === 'string' || Buffer.isBuffer(body);
}

/**
 * Everything the log line and the metrics need, read off a finished request. `countRows`
 * false skips the one part that scans the body (the metrics do not use it).
 */
export function summarize(ctx: Context, apiname: ApiName | 'unknown' | null, startedNs: bigint, aborted: boolean, countRows = true): RequestSummary {
  const code = ctx.status;
  const state = ctx.state as { accountId?: unknown; errorReason?: ErrorReason };
  // A compressed answer keeps its text beside it (compression.ts): rows and messages are read there.
  const body: unknown = ctx.body instanceof CodedBody ? ctx.body.plain : ctx.body;
  const rows = bodyRows(ctx.body);
  const accountId = state.accountId;
  const length = ctx.response.length;
  return {
    method: ctx.method,
    path: ctx.path,
    apiname,
    account: typeof accountId === 'number' ? accountId : null,
    code,
    rows: !countRows || code !== 200 ? null : (rows ?? (isJsonBody(body) ? countItems(body) : null)),
    bytes: typeof length === 'number' ? length : null,
    ms: Math.round(Number(process.hrtime.bigint() - startedNs) / 1e4) / 100,
    aborted,
    ...(code !== 200 ? { error: errorMessage(body), reason: state.errorReason } : {}),
  };
}

export function requestLog(log: Logger): Middleware {
  return async (ctx: Context, next: Next) => {
    const api = isApiRequest(ctx);
    // Skip all the work when the line would be dropped anyway.
    if (!log.isLevelEnabled(api ? 'info' : 'debug')) return next();
    const startedNs = process.hrtime.bigint();
    onResponseDone(ctx.res, (aborted) => {
      const s = summarize(ctx, apinameOf(ctx), startedNs, aborted);
      const line = { ...s, ...(s.aborted ? {} : { aborted: undefined }) };
      if (api) log.info(line, 'request');
      else log.debug(line, 'request');
    });
    await next();
  };
}
