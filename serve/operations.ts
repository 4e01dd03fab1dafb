/**
 * Every operation the server answers, made once per app from the services they read through.
 * The one memory budget (`--cache-mb`) is split here (reading/memoryBudget.ts splitBudget), so
 * no cache is sized anywhere else: the detail cache (FileColumnCache: columns, rows, footers,
 * verdicts, row-text indexes, day listings), the boundary candidate rows of tick_history
 * (BoundaryIndex), the row-JSON workers' footers and the damage records.
 */
import type { CatalogReader } from '../storage/catalog.js';
import type { Logger } from '../shared/logger.js';
import type { Operation } from './http/operation.js';
import { DamagedFileError } from '../storage/damagedFile.js';
import { FileColumnCache } from './reading/fileColumns.js';
import { DamageRecords } from './reading/damageRecords.js';
import { splitBudget } from './reading/memoryBudget.js';
import { LiveStaging } from './reading/liveStaging.js';
import { CursorCodec } from './detailedHistory/cursor.js';
import { RowJsonPool } from './detailedHistory/rowJsonPool.js';
import { RowTextSource } from './detailedHistory/rowTextSource.js';
import { detailedHistoryOperation } from './detailedHistory/operation.js';
import { tickHistoryOperation } from './tickHistory/operation.js';
import { barOperation } from './bars/operation.js';
import { tradecalOperation } from './bars/tradecal.js';
import { BAR_API_NAMES } from './access/plans.js';
import { LakeFiles } from '../storage/lakeFiles.js';
import { StoreBlockCache } from '../storage/store/blockCache.js';
import type { ObjectStore } from '../storage/store/objectStore.js';
import { storedObjectLookup } from '../storage/store/storeCatalog.js';

export interface OperationsDeps {
  readonly dataDir: string;
  readonly catalog: CatalogReader;
  /** The detailed-history cursor signing key (from the state store: the same on every site). */
  readonly cursorKey: Buffer;
  /** The memory budget of every cache together, bytes. */
  readonly cacheBytes: number;
  /** Row-JSON worker threads; 0 makes rows on the main thread. */
  readonly jsonThreads: number;
  /**
   * The store offloaded days are read from, and its block cache's disk bound; null or absent:
   * local files only. Made by the caller (openObjectStore: the AWS SDK is loaded only then).
   */
  readonly store?: { readonly store: ObjectStore; readonly cacheBytes: number } | null;
  /** Where damaged stored files are reported: once each, with the path. */
  readonly log: Logger;
}

export interface ServedOperations {
  readonly operations: readonly Operation[];
  /** The column cache, for the bench's per-file memory figure. */
  readonly columns: FileColumnCache;
  /** Stored files found damaged and not yet replaced (for /metrics). */
  damagedFiles(): number;
  /** The store's block cache (for /metrics); null without a store. */
  readonly storeCache: StoreBlockCache | null;
  /** Stops the row-JSON workers. */
  close(): Promise<void>;
}

export function createOperations(deps: OperationsDeps): ServedOperations {
  const shares = splitBudget(deps.cacheBytes, deps.jsonThreads);
  const store = deps.store?.store ?? null;
  const storeCache = store && deps.store ? new StoreBlockCache(deps.dataDir, store, deps.store.cacheBytes) : null;
  const lake = new LakeFiles(deps.dataDir, storeCache === null ? null : { cache: storeCache, stored: storedObjectLookup(deps.catalog.db) });
  // A damaged file is logged once, when found; each request it refuses is a 503 counted in /metrics.
  const columns = new FileColumnCache(
    deps.dataDir,
    shares.detailBytes,
    (err) =>
      deps.log.error(
        { file: err.path, reason: err.message },
        'stored file damaged; its symbol-day answers 503 until it is repaired: run tickvault doctor, then tickvault repair',
      ),
    new DamageRecords(shares.damageBytes),
    lake,
  );
  const rowJson = deps.jsonThreads > 0 ? new RowJsonPool({ dataDir: deps.dataDir, footerBytes: shares.workerFooterBytes }, deps.jsonThreads) : null;
  // A damaged row text costs speed, not answers (pages come from the file): logged once per file.
  const rowText = new RowTextSource(columns, (file, reason) =>
    deps.log.error({ file, reason }, 'row text damaged; pages of this file are made from its Parquet file; run tickvault doctor --rebuild'),
  );
  const live = new LiveStaging(deps.dataDir, columns.lru);
  const detailed = { dataDir: deps.dataDir, catalog: deps.catalog, columns, cursors: new CursorCodec(deps.cursorKey), rowJson, rowText, live };
  const operations = [
    detailedHistoryOperation('level2_quote_history', detailed),
    detailedHistoryOperation('level2_trade_history', detailed),
    detailedHistoryOperation('level2_order_history', detailed),
    tickHistoryOperation({
      dataDir: deps.dataDir,
      catalog: deps.catalog,
      columns,
      boundaryBytes: shares.boundaryBytes,
      onDamagedPart: (err) => deps.log.error({ err, file: err.path }, 'boundary part damaged; answering from the files; run tickvault doctor'),
      live,
    }),
    ...BAR_API_NAMES.map((api) => barOperation(api, { dataDir: deps.dataDir, catalog: deps.catalog, lru: columns.lru, live, lake })),
    tradecalOperation(),
  ];
  return {
    operations: operations.map((op) => reportingDamage(op, columns)),
    columns,
    damagedFiles: () => columns.integrity.damagedCount,
    storeCache,
    close: async () => {
      await rowJson?.close();
      live.close();
      storeCache?.close();
      store?.close();
    },
  };
}

/**
 * Damage an operation met while reading (a page that does not decode, a time column that does
 * not parse) is remembered like damage the SHA-256 check found, so the file's later requests
 * are refused at once and it is logged once (fileIntegrity.ts).
 */
function reportingDamage(op: Operation, columns: FileColumnCache): Operation {
  return {
    ...op,
    async handle(req, ctx) {
      try {
        return await op.handle(req, ctx);
      } catch (e) {
        if (e instanceof DamagedFileError) await columns.integrity.found(e);
        throw e;
      }
    },
  };
}
