/**
 * The one memory budget of a server process (`--cache-mb`), split here once into the byte
 * bounds of every cache the process keeps, so nothing a request leaves behind grows outside it:
 *
 *   - boundary rows of tick_history (BoundaryIndex): a whole market's day of candidates is
 *     ~170 MB, and a day's first boundary request must not evict the detail caches;
 *   - the detail cache (FileColumnCache's LRU): decoded columns, serialised rows, parsed
 *     footers, integrity verdicts, row-text indexes, tick_history's day listings and a live day's
 *     followed rows (stagingTail.ts) together, one recency order for all of them;
 *   - each row-JSON worker's own footers (a worker thread has a heap of its own);
 *   - what is remembered of damaged files, parts and row texts (so each is reported once).
 *
 * The remainder of a process's memory is the fixed overhead the bench states (code, V8,
 * SQLite, sockets, the requests in flight): it does not grow with the data directory.
 * Sizes are estimates of V8 heap use, held against measurements below (a factor well under 2).
 */

/** Boundary rows' share: at the default budget (768 MiB) 512 MiB, the size they had when set apart. */
export const BOUNDARY_SHARE = 2 / 3;
/** All row-JSON workers' footers together: 24 MiB at the default, ~1,200 level-2 footers a worker with two. */
export const WORKER_FOOTERS_SHARE = 1 / 32;
/** Damage records: 3 MiB at the default, ~10,000 damaged files remembered. */
export const DAMAGE_SHARE = 1 / 256;

export interface MemoryShares {
  readonly boundaryBytes: number;
  readonly detailBytes: number;
  /** Each worker's footer bound (0 when rows are made on the main thread). */
  readonly workerFooterBytes: number;
  readonly damageBytes: number;
}

export function splitBudget(cacheBytes: number, jsonThreads: number): MemoryShares {
  const boundaryBytes = Math.floor(cacheBytes * BOUNDARY_SHARE);
  const workerFooters = jsonThreads > 0 ? Math.floor(cacheBytes * WORKER_FOOTERS_SHARE) : 0;
  const damageBytes = Math.floor(cacheBytes * DAMAGE_SHARE);
  return {
    boundaryBytes,
    detailBytes: cacheBytes - boundaryBytes - workerFooters - damageBytes,
    workerFooterBytes: jsonThreads > 0 ? Math.floor(workerFooters / jsonThreads) : 0,
    damageBytes,
  };
}

/**
 * Heap of a parsed footer (storage/parquet/metadata.ts ParquetFooter) with `columns` columns
 * and `groups` row groups. Measured (500 footers each, heapUsed after gc): level 2 (50
 * columns, 5 groups) 20.5 KB, formula 20.6; trades (11, 15) 13.4 / 12.8; orders (10, 22) 17.7
 * / 16.8; index (32, 10) 24.1 / 24.0.
 */
export function footerHeapBytes(columns: number, groups: number): number {
  return 200 + 80 * columns + groups * (80 + 64 * columns);
}

/**
 * Heap of one file's entry in a day listing (serve/tickHistory/dayFiles.ts): the catalog row,
 * its minute counts and their cumulative starts. Measured over 40,000 level-2 files of 346
 * minutes: 870 B of heap and 1,876 B of array buffers a file; the formula gives 2,976.
 */
export function listedFileHeapBytes(minutes: number): number {
  return 900 + 6 * minutes;
}

/** Heap of a listed boundary part: its symbol list and its block directory. */
export function listedPartHeapBytes(symbols: number, blocks: number): number {
  return 200 + 64 * symbols + 80 * blocks;
}
