/**
 * `GET /healthz`: 200 once the process can serve; 503 while the shared state is unreachable,
 * or while its disk refuses writes (api-contract 72: the last state write failed so, and the
 * probe `ping` then makes failed too), so a load balancer sends clients to a site that can
 * answer. The body says which part failed and why.
 */
import type Router from '@koa/router';
import type { CatalogReader } from '../../storage/catalog.js';
import { STATE_DISK_RETRY_AFTER_SEC, STATE_RETRY_AFTER_SEC, StateDiskError, StateUnavailableError, type StateStore } from '../access/stateStore.js';
import { JSON_TYPE } from './envelope.js';
import { stateDiskMessage } from './errorAnswer.js';

export function addHealthRoute(router: Router, deps: { readonly catalog: CatalogReader; readonly state: StateStore }): void {
  router.get('/healthz', async (ctx) => {
    deps.catalog.ping();
    ctx.type = JSON_TYPE;
    try {
      await deps.state.ping();
      ctx.body = '{"status":"ok"}';
    } catch (e) {
      if (!(e instanceof StateUnavailableError)) throw e;
      ctx.status = 503;
      if (e instanceof StateDiskError) {
        ctx.set('Retry-After', String(STATE_DISK_RETRY_AFTER_SEC));
        ctx.body = JSON.stringify({
          status: 'unavailable',
          state: deps.state.kind,
          reason: 'disk',
          cause: e.diskCause,
          path: e.path,
          message: stateDiskMessage(e),
        });
        return;
      }
      ctx.set('Retry-After', String(STATE_RETRY_AFTER_SEC));
      ctx.body = JSON.stringify({ status: 'unavailable', state: deps.state.kind, message: e.message });
    }
  });
}
