/**
 * `GET /healthz`: 200 once the process can serve; 503 while the shared state is unreachable,
 * so a load balancer sends clients to a site that can answer (the body says which part failed).
 */
import type Router from '@koa/router';
import type { CatalogReader } from '../../storage/catalog.js';
import { STATE_RETRY_AFTER_SEC, StateUnavailableError, type StateStore } from '../access/stateStore.js';
import { JSON_TYPE } from './envelope.js';

export function addHealthRoute(router: Router, deps: { readonly catalog: CatalogReader; readonly state: StateStore }): void {
  const catalogPing = deps.catalog.db.prepare('SELECT 1');
  router.get('/healthz', async (ctx) => {
    catalogPing.get();
    ctx.type = JSON_TYPE;
    try {
      await deps.state.ping();
      ctx.body = '{"status":"ok"}';
    } catch (e) {
      if (!(e instanceof StateUnavailableError)) throw e;
      ctx.status = 503;
      ctx.set('Retry-After', String(STATE_RETRY_AFTER_SEC));
      ctx.body = JSON.stringify({ status: 'unavailable', state: deps.state.kind, message: e.message });
    }
  });
}
