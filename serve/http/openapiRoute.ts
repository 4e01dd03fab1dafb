/**
 * GET /openapi.json: the OpenAPI 3.1 document of this server. Built once on first use (the
 * field lists and limits it is made of are constants) and served as the same text since.
 * A plain middleware rather than a router entry so it can be mounted in front of any app.
 */
import { readFileSync } from 'node:fs';
import type { Context, Middleware, Next } from 'koa';
import { buildOpenApi } from './openapi.js';

export const OPENAPI_PATH = '/openapi.json';

/** The package version, for `info.version` (package.json sits three levels above dist/serve/http/). */
function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}

let cached: string | null = null;

export function openapiText(): string {
  cached ??= JSON.stringify(buildOpenApi(packageVersion()));
  return cached;
}

export function openapiRoute(): Middleware {
  return async (ctx: Context, next: Next) => {
    if (ctx.path !== OPENAPI_PATH || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    ctx.type = 'application/json; charset=utf-8';
    // Clients (Swagger UI, Postman) often load it from another origin.
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.body = openapiText();
  };
}
