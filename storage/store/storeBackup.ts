/**
 * `tickvault backup --to s3://BUCKET/PREFIX` and its restore by `tickvault attach` (issue 50):
 * the bucket then holds everything a new host needs. In this order, for the reason the local
 * backup has (storage/backup/backupDataDir.ts):
 *   1. the state, snapshotted as a local backup makes it (service.db without its in-flight
 *      slots, cursor.key and the small files, ingest.db and the staging segments it lists,
 *      catalog.db), into a temporary directory;
 *   2. every sealed day's files and manifest, uploaded and verified (uploadPass.ts), after the
 *      staging snapshot: a day sealed in between is in the bucket (its staging in the copy too,
 *      which the next seal on the restored host finds sealed, as after a crash);
 *   3. the state's files under `_backup/<UTC stamp>/`, each with Content-MD5 and its SHA-256,
 *      and last `_backup/<stamp>/complete.json` listing them: a backup without it is unfinished
 *      and never restored.
 * `attach` makes the lake's catalog from the manifests and, when the bucket has a complete
 * backup, restores the newest one's state beside it (never its catalog.db: the manifests list
 * every day it listed, and later ones).
 */
import { mkdtemp, mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { writeVerified } from '../backup/verifiedCopy.js';
import { backupDataDir } from '../backup/backupDataDir.js';
import type { Db } from '../../shared/sqlite.js';
import { objectDigests } from './objectDigests.js';
import type { ObjectStore } from './objectStore.js';
import { StoreError } from './storeError.js';
import { uploadPass, type UploadsDone } from './uploadPass.js';

const BACKUPS = '_backup/';
const COMPLETE = 'complete.json';
/** Never restored: the manifests make the catalog (see above). */
const NOT_RESTORED = new Set(['catalog.db']);

interface BackupListing {
  readonly format: 'tickvault-state-backup';
  readonly createdAtMs: number;
  readonly files: readonly { readonly path: string; readonly bytes: number; readonly sha256: string }[];
}

export interface StoreBackupDone {
  readonly stamp: string;
  readonly uploads: UploadsDone;
  readonly stateFiles: number;
  readonly stateBytes: number;
}

export async function backupToStore(o: {
  readonly dataDir: string;
  readonly catalog: Db;
  readonly store: ObjectStore;
  readonly nowMs: () => number;
}): Promise<StoreBackupDone> {
  const tmp = await mkdtemp(join(tmpdir(), 'tickvault-state-'));
  try {
    const copy = join(tmp, 'state');
    await backupDataDir(o.dataDir, copy, () => undefined, 'state');
    const uploads = await uploadPass({ dataDir: o.dataDir, catalog: o.catalog, store: o.store, nowMs: o.nowMs });
    const stamp = new Date(o.nowMs())
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d+Z$/, 'Z');
    const files: { path: string; bytes: number; sha256: string }[] = [];
    for (const path of await filesUnder(copy)) {
      const bytes = await readFile(join(copy, path));
      const d = objectDigests(bytes);
      await o.store.put(`${BACKUPS}${stamp}/${path}`, bytes, d);
      files.push({ path, bytes: bytes.length, sha256: d.sha256 });
    }
    const listing: BackupListing = { format: 'tickvault-state-backup', createdAtMs: o.nowMs(), files };
    const done = Buffer.from(JSON.stringify(listing));
    await o.store.put(`${BACKUPS}${stamp}/${COMPLETE}`, done, objectDigests(done));
    return { stamp, uploads, stateFiles: files.length, stateBytes: files.reduce((s, f) => s + f.bytes, 0) };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** Restores the newest complete backup's state into `dataDir` (a new one); null when the bucket has none. */
export async function restoreNewestState(store: ObjectStore, dataDir: string): Promise<{ readonly stamp: string; readonly files: number } | null> {
  const complete = (await store.list(BACKUPS)).filter((k) => k.endsWith(`/${COMPLETE}`)).sort();
  const newest = complete.at(-1);
  if (newest === undefined) return null;
  const prefix = newest.slice(0, -COMPLETE.length);
  const listing = JSON.parse((await buffer(await store.getStream(newest))).toString('utf8')) as BackupListing;
  if (listing.format !== 'tickvault-state-backup') throw new StoreError(`${newest} is not a tickvault backup listing`, false);
  let files = 0;
  for (const f of listing.files) {
    if (NOT_RESTORED.has(f.path)) continue;
    const dest = join(dataDir, f.path);
    await mkdir(dirname(dest), { recursive: true });
    await writeVerified(await store.getStream(prefix + f.path), dest, { sha256: f.sha256, label: prefix + f.path });
    files++;
  }
  return { stamp: prefix.slice(BACKUPS.length, -1), files };
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}
