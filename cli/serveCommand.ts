/**
 * `tickvault serve`: the query server. Prints `listening on http://HOST:PORT` on stdout once
 * bound (with --port 0 that is how a caller learns the port); stops on SIGTERM/SIGINT after
 * letting in-flight responses finish (at most a few seconds).
 */
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import { CatalogReader, openCatalogToServe } from '../storage/catalog.js';
import { layoutFor } from '../storage/layout.js';
import { createApp } from '../serve/http/app.js';
import { createOperations } from '../serve/operations.js';
import { databaseErrorForLog } from '../shared/postgres/pool.js';
import { loadServeConfig, SERVE_OPTIONS } from '../serve/http/serveConfig.js';
import { lateMessagesWaiting, liveFigures } from '../serve/reading/stagingFigures.js';
import { openStateStore } from '../serve/access/openState.js';
import { STATE_URL_OPTION, STORE_OPTION, resolveOption } from '../shared/config.js';
import type { Command } from './command.js';
import { requireDataDir } from './dataDirCheck.js';
import { asOpenFault } from '../ingest/diskFault.js';
import { warnNearKnownRangeEnd } from './calendarWarning.js';
import { docOf } from './helpText.js';

const DRAIN_MS = 5000;

/** Why a full or read-only data directory stops the server at start, and what helps. */
const SERVE_OPEN_ADVICE =
  'SQLite writes an index beside each database even to read it, and the server writes service.db on every request; free space (or make it writable) and start the server again';

export const serveCommand: Command = {
  name: 'serve',
  summary: 'run the query server (POST /api, GET /healthz)',
  usage:
    'tickvault serve [--port 8080] [--host 127.0.0.1] [--rate-limit 20] [--lease-seconds 30] [--cache-mb 768] [--json-threads N] [--state-url URL]\n' +
    '                [--store s3://BUCKET/PREFIX] [--store-cache-mb 1024] [--data-dir DIR]',
  options: Object.fromEntries([...Object.values(SERVE_OPTIONS), STATE_URL_OPTION, STORE_OPTION].map((o) => [o.flag, { type: 'string' as const }])),
  help: [
    docOf(SERVE_OPTIONS.port, 'N'),
    docOf(SERVE_OPTIONS.host, 'ADDR'),
    docOf(SERVE_OPTIONS.rateLimit, 'N'),
    docOf(SERVE_OPTIONS.leaseSeconds, 'S'),
    docOf(SERVE_OPTIONS.cacheMb, 'MB'),
    docOf(SERVE_OPTIONS.jsonThreads, 'N', 'one per core, at most 4'),
    docOf(STATE_URL_OPTION, 'URL', 'service.db in the data directory'),
    { ...docOf(STORE_OPTION, STORE_OPTION.value, 'none'), help: `${STORE_OPTION.help}; offloaded days are read from it` },
    docOf(SERVE_OPTIONS.storeCacheMb, 'MB'),
  ],
  positionals: 'none',
  async run(ctx) {
    const config = loadServeConfig(ctx.flags, ctx.env);
    const stateUrl = resolveOption(STATE_URL_OPTION, ctx.flags, ctx.env);
    const layout = layoutFor(ctx.config.dataDir);
    requireDataDir(layout.dataDir);
    warnNearKnownRangeEnd(ctx);
    // The catalog is the sealer's; a server started before it has tables sets them up empty.
    const catalogDb = (() => {
      try {
        return openCatalogToServe(layout.catalogDb);
      } catch (e) {
        throw asOpenFault(layout.dataDir, e, SERVE_OPEN_ADVICE);
      }
    })();
    // Unreachable PostgreSQL: one clear line and a non-zero exit, before anything listens.
    const state = await openStateStore({
      url: stateUrl,
      dataDir: layout.dataDir,
      onPoolError: (err) => ctx.log.warn({ err: databaseErrorForLog(err) }, 'state database connection lost; reconnecting on the next request'),
      // Once when writes start failing and once when they work again, not once per request.
      onDiskFault: (fault) =>
        fault === null
          ? ctx.log.info({ path: layout.serviceDb }, 'service.db takes writes again; requests are counted and served')
          : ctx.log.error({ err: fault, path: fault.path, cause: fault.diskCause }, 'service.db refuses writes; API requests get 503 until there is room'),
    }).catch((e: unknown) => {
      catalogDb.close();
      throw asOpenFault(layout.dataDir, e, SERVE_OPEN_ADVICE);
    });
    const cursorKey = await state.cursorKey().catch(async (e: unknown) => {
      await state.close();
      catalogDb.close();
      throw e;
    });
    const catalog = new CatalogReader(catalogDb);
    const served = createOperations({
      dataDir: layout.dataDir,
      catalog,
      cursorKey,
      cacheBytes: config.cacheBytes,
      jsonThreads: config.jsonThreads,
      // Loaded only with a store: the AWS SDK costs a server without one ~0.45 s and ~30 MB at start.
      store:
        config.store === null
          ? null
          : { store: new (await import('../storage/store/objectStore.js')).ObjectStore(config.store), cacheBytes: config.storeCacheBytes },
      log: ctx.log,
    });
    const app = createApp({
      catalog,
      state,
      config,
      clock: ctx.config.clock,
      log: ctx.log,
      operations: served.operations,
      lateWaiting: () => lateMessagesWaiting(layout.ingestDb),
      live: () => liveFigures(layout.ingestDb, layout.dataDir, ctx.config.clock.nowMs()),
      damagedFiles: served.damagedFiles,
      ...(served.storeCache === null ? {} : { storeCache: () => served.storeCache!.figures }),
    });
    const server = createServer(app.koa.callback());
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    }).catch(async (e: unknown) => {
      await state.close();
      catalogDb.close();
      if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') {
        throw new Error(
          `port ${config.port} on ${config.host} is already in use (another tickvault serve or demo?); choose another with --port N, or --port 0 for a free one`,
        );
      }
      throw e;
    });
    const addr = server.address() as AddressInfo;
    const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
    const url = `http://${host}:${addr.port}`;
    // Handlers go in before the ready line: a caller may send SIGTERM the moment it reads it.
    const stopped = new Promise<void>((resolve) => {
      const stop = (signal: string) => {
        ctx.log.info({ signal }, 'stopping');
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => {
          server.closeAllConnections();
          resolve();
        }, DRAIN_MS).unref();
      };
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
    });
    ctx.log.info(
      { url, dataDir: layout.dataDir, state: state.where, rateLimit: config.rateLimitPerSec, leaseMs: config.leaseMs, cacheBytes: config.cacheBytes },
      'listening',
    );
    ctx.out(`listening on ${url}`);
    await stopped;
    await Promise.all([...app.heldSlots].map((slot) => slot.release()));
    await served.close();
    await state.close();
    catalogDb.close();
    return 0;
  },
};
