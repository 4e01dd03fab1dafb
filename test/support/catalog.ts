/**
 * Asks a data directory's catalog a question through CatalogReader (opened read only, closed
 * after). Before the catalog exists, or while its tables are still being created by another
 * process, the answer is `empty`: tests poll with this while an ingest process starts.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CatalogReader, openCatalog } from '../../storage/catalog.js';

export function readCatalog<T>(dataDir: string, ask: (catalog: CatalogReader) => T, empty: T): T {
  const path = join(dataDir, 'catalog.db');
  if (!existsSync(path)) return empty;
  let db;
  try {
    db = openCatalog(path, true);
  } catch {
    return empty;
  }
  try {
    return ask(new CatalogReader(db));
  } catch (e) {
    if (/no such table/.test(String(e))) return empty;
    throw e;
  } finally {
    db.close();
  }
}
