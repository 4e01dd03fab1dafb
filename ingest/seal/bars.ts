/**
 * The seal's last step (api-contract: Bars): the bars of every day whose trade or level-2 files
 * changed are made and listed (storage/bars/barKeeper.ts). Run by every path that lists files
 * (sealDays: replay, seal, import, mirror, demo; restate; the ingestor's seal tick), so a day is
 * never sealed without its bars for longer than a crash lasts. A disk fault is the seal's.
 */
import type { Db } from '../../shared/sqlite.js';
import { keepBars, type BarsKept } from '../../storage/bars/barKeeper.js';
import { atStage } from '../diskFault.js';

export type { BarsKept } from '../../storage/bars/barKeeper.js';

export function sealBars(dataDir: string, catalog: Db, nowMs: () => number): Promise<BarsKept> {
  return atStage('seal', dataDir, () => keepBars({ dataDir, catalog, nowMs }));
}
