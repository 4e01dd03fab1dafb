import { mkdirSync } from 'node:fs';
import { CatalogReader, openCatalog } from '../../storage/catalog.js';
import { layoutFor, type Layout } from '../../storage/layout.js';
import type { Db } from '../../shared/sqlite.js';
import { LateGuard } from '../seal/lateGuard.js';
import { Staging } from './segments.js';

/** The ingest side's handles on a data directory: catalog, staging, late-message guard. */
export interface IngestStores {
  readonly layout: Layout;
  readonly catalog: Db;
  readonly staging: Staging;
  readonly late: LateGuard;
  close(): void;
}

export function openIngestStores(dataDir: string, nowMs: () => number): IngestStores {
  mkdirSync(dataDir, { recursive: true });
  const layout = layoutFor(dataDir);
  const catalog = openCatalog(layout.catalogDb);
  const staging = Staging.open(layout.ingestDb, nowMs);
  return {
    layout,
    catalog,
    staging,
    late: new LateGuard(new CatalogReader(catalog)),
    close() {
      staging.close();
      catalog.close();
    },
  };
}
