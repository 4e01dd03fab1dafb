import type { Dataset } from '../shared/schema.js';
import { sealDay, type Encoder, type SealResult } from './daySealer.js';
import type { IngestStores } from './stores.js';

/** Seals a list of `dataset|tradedate` days in date order, reporting rows as files land. */
export async function sealDays(
  stores: IngestStores,
  encode: Encoder,
  days: Iterable<string>,
  nowMs: () => number,
  onRows?: (rows: number) => void,
): Promise<SealResult[]> {
  const results: SealResult[] = [];
  const ordered = [...days].sort((a, b) => a.split('|')[1].localeCompare(b.split('|')[1]) || a.localeCompare(b));
  for (const key of ordered) {
    const [dataset, tradedate] = key.split('|') as [Dataset, string];
    const deps = { dataDir: stores.layout.dataDir, catalog: stores.catalog, staging: stores.staging, encode, nowMs, onFile: onRows };
    results.push(await sealDay(deps, dataset, tradedate));
  }
  stores.late.forget();
  return results;
}
