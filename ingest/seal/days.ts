/**
 * Seals a list of `dataset|tradedate` days in date order, reporting rows as files land, then
 * makes the bars of the days that changed (bars.ts). Files
 * are written by a pool of seal workers (one per core); the catalog is written here. A full or
 * read-only disk comes back as the seal stage's one-line fault (ingest/diskFault.ts).
 */
import type { Dataset } from '../../shared/schema.js';
import { sealDay, type Encoder, type SealResult } from './day.js';
import { SealPool } from './pool.js';
import { atStage } from '../diskFault.js';
import type { IngestStores } from '../staging/stores.js';
import { sealBars, type BarsKept } from './bars.js';

export async function sealDays(
  stores: IngestStores,
  encode: Encoder,
  days: Iterable<string>,
  nowMs: () => number,
  onRows?: (rows: number) => void,
  onBars?: (kept: BarsKept, ms: number) => void,
): Promise<SealResult[]> {
  const ordered = [...days].sort((a, b) => a.split('|')[1].localeCompare(b.split('|')[1]) || a.localeCompare(b));
  const pool = new SealPool({ dataDir: stores.layout.dataDir, ingestDb: stores.layout.ingestDb });
  const results: SealResult[] = [];
  try {
    await atStage('seal', stores.layout.dataDir, async () => {
      for (const key of ordered) {
        const [dataset, tradedate] = key.split('|') as [Dataset, string];
        const deps = { dataDir: stores.layout.dataDir, catalog: stores.catalog, staging: stores.staging, encode, nowMs, onFile: onRows, pool };
        results.push(await sealDay(deps, dataset, tradedate));
      }
      // Once the days' files are listed, the bars of the days they changed (ingest/seal/bars.ts).
      const barsStarted = Date.now();
      const kept = await sealBars(stores.layout.dataDir, stores.catalog, nowMs);
      onBars?.(kept, Date.now() - barsStarted);
    });
  } finally {
    await pool.close();
  }
  stores.late.forget();
  return results;
}

/**
 * Of `dataset|tradedate` days whose rows were all late or already there, those not marked
 * sealed: a crash after some of their files were listed leaves that state, and sealing them
 * again (idempotent) finishes the job. Replay and import both end with this.
 */
export function unsealedDays(stores: IngestStores, days: Iterable<string>): string[] {
  return [...days].filter((d) => {
    const [dataset, tradedate] = d.split('|') as [Dataset, string];
    return !stores.catalogReader.isDaySealed(dataset, tradedate);
  });
}
