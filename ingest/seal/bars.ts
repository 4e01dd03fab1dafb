/**
 * The seal's last step (api-contract: Bars): the bars of every day whose trade or level-2 files
 * changed are made and listed (storage/bars/barKeeper.ts), on every core. Run by every path that
 * lists files (sealDays: replay, seal, import, mirror, demo; restate; the ingestor's seal tick),
 * so a day is never sealed without its bars for longer than a crash lasts. A disk fault is the seal's.
 */
import { availableParallelism } from 'node:os';
import type { Db } from '../../shared/sqlite.js';
import { keepBars, type BarsKept } from '../../storage/bars/barKeeper.js';
import { dueBarDays } from '../../storage/bars/barCatalog.js';
import { BarPool } from '../../storage/bars/barPool.js';
import { atStage } from '../diskFault.js';

export type { BarsKept } from '../../storage/bars/barKeeper.js';

export async function sealBars(dataDir: string, catalog: Db, nowMs: () => number): Promise<BarsKept> {
  // Most calls find nothing due: no worker is started for them.
  if (dueBarDays(catalog).length === 0) return { days: 0, stocks: 0, bytes: 0, failed: [] };
  const pool = new BarPool(availableParallelism());
  try {
    return await atStage('seal', dataDir, () => keepBars({ dataDir, catalog, nowMs, maker: pool.make, concurrency: pool.size }));
  } finally {
    await pool.close();
  }
}
