import { mkdirSync } from 'node:fs';
import { CatalogReader, openCatalog } from '../../storage/catalog.js';
import { layoutFor, type Layout } from '../../storage/layout.js';
import type { Db } from '../../shared/sqlite.js';
import { LateGuard } from '../seal/lateGuard.js';
import { Staging } from './segments.js';
import { asOpenFault } from '../diskFault.js';

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
  const layout = layoutFor(dataDir);
  let catalog: Db | null = null;
  let staging: Staging;
  try {
    mkdirSync(dataDir, { recursive: true });
    catalog = openCatalog(layout.catalogDb);
    staging = Staging.open(layout.ingestDb, nowMs);
  } catch (e) {
    catalog?.close();
    // A full disk says so at the first write, which is often this one (a database's WAL); a
    // read-only one, here.
    throw asOpenFault(dataDir, e);
  }
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
