/**
 * `GET /console`: the debugging page (serve/http/console/), served from memory. The page is
 * plain HTML, CSS and an ES module — nothing to build — plus the charting library's standalone
 * bundle from node_modules, so the console works without any CDN or network.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import type Router from '@koa/router';

interface Asset {
  readonly type: string;
  readonly body: Buffer;
}

/** The page's files live beside the sources (dist/ holds only compiled TypeScript). */
const PAGE_DIR = fileURLToPath(new URL('../../../serve/http/console/', import.meta.url));

function loadAssets(): Map<string, Asset> {
  // The package exports only its ES entry; the standalone bundle sits beside its package.json.
  const lwc = join(dirname(createRequire(import.meta.url).resolve('lightweight-charts/package.json')), 'dist', 'lightweight-charts.standalone.production.js');
  return new Map<string, Asset>([
    ['/console', { type: 'text/html; charset=utf-8', body: readFileSync(`${PAGE_DIR}index.html`) }],
    ['/console/console.js', { type: 'text/javascript; charset=utf-8', body: readFileSync(`${PAGE_DIR}console.js`) }],
    ['/console/console.css', { type: 'text/css; charset=utf-8', body: readFileSync(`${PAGE_DIR}console.css`) }],
    ['/console/vendor/lightweight-charts.js', { type: 'text/javascript; charset=utf-8', body: readFileSync(lwc) }],
  ]);
}

/** Adds GET routes for the console's files (read once, here); returns their paths. */
export function addConsoleRoutes(router: Router): ReadonlySet<string> {
  const assets = loadAssets();
  for (const [path, asset] of assets) {
    router.get(path, (ctx) => {
      ctx.type = asset.type;
      // The page carries no secret; the key lives in the browser's storage, never in a URL.
      ctx.set('Cache-Control', 'no-cache');
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.body = asset.body;
    });
  }
  router.get('/console/', (ctx) => ctx.redirect('/console'));
  return new Set(assets.keys());
}
