/**
 * What no route took: 405 with Allow for a known path asked with the wrong method, else 404,
 * both as envelopes (a client parsing every answer as one never meets HTML).
 */
import type { Context, Middleware } from 'koa';
import { errorEnvelope, JSON_TYPE } from './envelope.js';

/** `methodOf`: the one method a known path takes, or null for an unknown path. */
export function unrouted(methodOf: (path: string) => string | null): Middleware {
  return async (ctx: Context) => {
    const method = methodOf(ctx.path);
    ctx.status = method ? 405 : 404;
    if (method) ctx.set('Allow', method);
    ctx.type = JSON_TYPE;
    ctx.body = errorEnvelope(ctx.status, method ? `use ${method} ${ctx.path}` : 'no such endpoint; queries go to POST /api');
  };
}
