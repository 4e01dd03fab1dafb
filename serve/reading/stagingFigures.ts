/**
 * What /metrics reports of staging, per dataset: late messages waiting in quarantine
 * (api-contract: Corrections) and the live days' rows and freshness (api-contract: The live
 * day). Read from the data directory's ingest.db at each scrape, read only (the ingestor
 * writes it; a server never does). A data directory without ingest.db (a copy of the lake, a
 * mirror target before its first run) has none of either.
 */
import { existsSync } from 'node:fs';
import { openDb, type Db } from '../../shared/sqlite.js';
import { beijingDayStartMs } from '../../shared/clock.js';
import { DATASETS, type Dataset } from '../../shared/schema.js';
import { StagingReader } from '../../storage/staging/stagingReader.js';

/** `read` over a read-only handle on ingest.db, closed after; `none` when there is nothing to read. */
function readIngestDb<T>(ingestDb: string, none: () => T, read: (db: Db) => T): T {
  if (!existsSync(ingestDb)) return none();
  const db = openDb(ingestDb, { readonly: true });
  try {
    return read(db);
  } catch (e) {
    // An ingest.db from before these tables existed has none of the rows they would hold.
    if (/no such table/.test((e as Error).message)) return none();
    throw e;
  } finally {
    db.close();
  }
}

export function lateMessagesWaiting(ingestDb: string): Map<Dataset, number> {
  const none = () => new Map<Dataset, number>(DATASETS.map((d) => [d, 0]));
  return readIngestDb(ingestDb, none, (db) => {
    const out = none();
    for (const [key, n] of StagingReader.lateCounts(db)) {
      const dataset = key.split('|')[0] as Dataset;
      if (out.has(dataset)) out.set(dataset, out.get(dataset)! + n);
    }
    return out;
  });
}

export interface LiveFigures {
  /** Records committed to staging for the dataset's live days, duplicates not resolved yet. */
  readonly rows: number;
  /**
   * `nowMs` minus the exchange time of the newest committed row of the dataset's latest live
   * day (StagingReader.newestStagedTimeMs); null when no live day has a committed row.
   */
  readonly newestRowAgeMs: number | null;
}

/** Per dataset, its live days' committed rows and the age of the newest of them at `nowMs`. */
export function liveFigures(ingestDb: string, dataDir: string, nowMs: number): Map<Dataset, LiveFigures> {
  const none = () => new Map<Dataset, LiveFigures>(DATASETS.map((d) => [d, { rows: 0, newestRowAgeMs: null }]));
  return readIngestDb(ingestDb, none, (db) => {
    const rows = new Map<Dataset, number>();
    const latest = new Map<Dataset, string>();
    // By date, so the last one seen of a dataset is its latest live day.
    for (const day of StagingReader.stagedDays(db)) {
      rows.set(day.dataset, (rows.get(day.dataset) ?? 0) + day.records);
      latest.set(day.dataset, day.tradedate);
    }
    const out = none();
    for (const dataset of DATASETS) {
      const day = latest.get(dataset);
      const newest = day === undefined ? null : StagingReader.newestStagedTimeMs(db, dataDir, dataset, day);
      out.set(dataset, { rows: rows.get(dataset) ?? 0, newestRowAgeMs: newest === null ? null : nowMs - (beijingDayStartMs(day!) + newest) });
    }
    return out;
  });
}
