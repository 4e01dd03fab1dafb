/**
 * Late messages waiting in quarantine, per dataset (api-contract: Corrections), for /metrics:
 * read from the data directory's ingest.db at each scrape, read only (the ingestor writes it;
 * a server never does). A data directory without ingest.db (a copy of the lake, a mirror
 * target before its first run) has none.
 */
import { existsSync } from 'node:fs';
import { openDb } from '../../shared/sqlite.js';
import { DATASETS, type Dataset } from '../../shared/schema.js';
import { StagingReader } from '../../storage/staging/stagingReader.js';

export function lateMessagesWaiting(ingestDb: string): Map<Dataset, number> {
  const out = new Map<Dataset, number>(DATASETS.map((d) => [d, 0]));
  if (!existsSync(ingestDb)) return out;
  const db = openDb(ingestDb, { readonly: true });
  try {
    for (const [key, n] of StagingReader.lateCounts(db)) {
      const dataset = key.split('|')[0] as Dataset;
      if (out.has(dataset)) out.set(dataset, out.get(dataset)! + n);
    }
  } catch (e) {
    // An ingest.db from before quarantine existed has no table: nothing waits in it.
    if (!/no such table/.test((e as Error).message)) throw e;
  } finally {
    db.close();
  }
  return out;
}
