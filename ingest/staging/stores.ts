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
  /** The catalog's read queries, prepared once for the process (the sealer asks every tick). */
  readonly catalogReader: CatalogReader;
  readonly staging: Staging;
  readonly late: LateGuard;
  close(): void;
}

export function openIngestStores(dataDir: string, nowMs: () => number): IngestStores {
  mkdirSync(dataDir, { recursive: true });
  const layout = layoutFor(dataDir);
  const catalog = openCatalog(layout.catalogDb);
  const staging = Staging.open(layout.ingestDb, nowMs);
  const catalogReader = new CatalogReader(catalog);
  return {
    layout,
    catalog,
    catalogReader,
    staging,
    late: new LateGuard(catalogReader),
    close() {
      staging.close();
      catalog.close();
    },
  };
}
