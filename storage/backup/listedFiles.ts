/**
 * What a backup copies besides the SQLite files, read from their snapshots (never from the
 * live files, which may have moved on): the immutable files the catalog lists, and the staging
 * segments ingest.db lists with their committed lengths. The queries are the catalog's and
 * staging's own (storage/catalog.ts, storage/staging/stagingReader.ts); this opens the
 * snapshots for them.
 */
import { CatalogReader, openCatalog, type ListedFile } from '../catalog.js';
import { openDb, type Db } from '../../shared/sqlite.js';
import { StagingReader, type StagedSegment } from '../staging/stagingReader.js';
import { offloadedDays } from '../store/storeCatalog.js';

function withSnapshot<T>(db: Db, read: (db: Db) => T): T {
  try {
    return read(db);
  } finally {
    db.close();
  }
}

/** Every file the catalog snapshot lists (CatalogReader.listedFiles). */
export function catalogFiles(catalogSnapshot: string): ListedFile[] {
  return withSnapshot(openCatalog(catalogSnapshot, true), (db) => new CatalogReader(db).listedFiles());
}

/** The days the catalog snapshot holds as offloaded to the store (their files are not on the disk). */
export function offloadedDaysOf(catalogSnapshot: string): Set<string> {
  return withSnapshot(openCatalog(catalogSnapshot, true), offloadedDays);
}

/** The days the catalog snapshot holds as sealed, as `dataset|YYYYMMDD`. */
export function sealedDays(catalogSnapshot: string): Set<string> {
  return withSnapshot(openCatalog(catalogSnapshot, true), (db) => new Set(new CatalogReader(db).sealedDays().map((d) => `${d.dataset}|${d.tradedate}`)));
}

/** The staging segments ingest.db's snapshot lists (none when it has no staging table yet). */
export function stagedSegments(ingestSnapshot: string): StagedSegment[] {
  return withSnapshot(openDb(ingestSnapshot, { readonly: true }), (db) => StagingReader.segments(db));
}
