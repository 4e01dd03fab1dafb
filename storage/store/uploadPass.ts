/**
 * One pass of uploads (issue 50): every due day's files go to the store under their catalog
 * paths, each verified, then the day's manifest; then the day is marked stored. Idempotent and
 * resumable: a file the catalog already records as stored (same SHA-256) is not touched, and
 * one the store already holds with the right bytes (an upload a crash interrupted before its
 * record) is recorded without sending it again (a HEAD, its size and ETag).
 *
 * A file is sent only once its local bytes are the catalog's (SHA-256): a damaged local file is
 * never copied into the store; its day stays due and the failure names `tickvault repair`.
 * A store that is down (a retriable StoreError) ends the pass: nothing is marked that was not
 * verified, and the next pass carries on where this one stopped.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Limiter } from '../../shared/limiter.js';
import type { Db } from '../../shared/sqlite.js';
import { rowTextRelPath } from '../layout.js';
import { encodeManifest, manifestKey, MANIFEST_FORMAT, MANIFEST_VERSION } from './dayManifest.js';
import { objectDigests } from './objectDigests.js';
import type { ObjectStore } from './objectStore.js';
import { StoreCatalog, type DayObject, type DueDay, type StoredObject } from './storeCatalog.js';

export interface UploadPassOptions {
  readonly dataDir: string;
  /** catalog.db, writable (the records of stored files). */
  readonly catalog: Db;
  readonly store: ObjectStore;
  readonly nowMs: () => number;
  /** Uploads at once (default 8: small files are round trips, not bandwidth). */
  readonly concurrency?: number;
  /** Asked between days: true ends the pass there (a stopping ingestor). */
  readonly stop?: () => boolean;
  /** After each file is stored or found stored: its bytes and whether they were sent. */
  readonly onFile?: (bytes: number, sent: boolean) => void;
}

export interface UploadsDone {
  /** Days marked stored by this pass. */
  readonly days: number;
  /** Files sent. */
  readonly files: number;
  /** Their bytes. */
  readonly bytes: number;
  /** Files found already in the store with the right bytes (recorded, not sent). */
  readonly found: number;
  /** Files not stored, each with one line why; their days stay due. */
  readonly failed: readonly { readonly key: string; readonly reason: string }[];
  /** Days still due after the pass. */
  readonly due: number;
}

/** The pass was asked to stop (between files): what it stored so far is recorded. */
class PassStopped extends Error {
  override name = 'PassStopped';
}

/** A local file that must not go to the store: missing or not the catalog's bytes. */
class LocalFileFault extends Error {
  override name = 'LocalFileFault';
}

export async function uploadPass(o: UploadPassOptions): Promise<UploadsDone> {
  const catalog = new StoreCatalog(o.catalog);
  const limiter = new Limiter(o.concurrency ?? 8);
  const totals = { days: 0, files: 0, bytes: 0, found: 0 };
  const failed: { key: string; reason: string }[] = [];

  const storeOne = async (obj: DayObject, optional: boolean): Promise<StoredObject | null> => {
    if (o.stop?.()) throw new PassStopped();
    const known = catalog.stored(obj.key);
    if (known !== null && (obj.sha256 === null || known.sha256 === obj.sha256)) return known;
    let bytes: Buffer;
    try {
      bytes = await readFile(join(o.dataDir, obj.key));
    } catch (e) {
      // Row text the window removed meanwhile is simply not stored; a listed file must be there.
      if (optional && (e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw new LocalFileFault(
        `${obj.key} cannot be read here (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); run tickvault doctor, then tickvault repair`,
      );
    }
    const d = objectDigests(bytes);
    if (obj.sha256 !== null && d.sha256 !== obj.sha256) {
      throw new LocalFileFault(`${obj.key} is damaged here (its SHA-256 ${d.sha256} is not the catalog's): not stored; run tickvault repair`);
    }
    const there = await o.store.head(obj.key);
    let sent = false;
    if (there === null || there.bytes !== bytes.length || there.etag !== d.etag) {
      await o.store.put(obj.key, bytes, d);
      sent = true;
    }
    const stored: StoredObject = { key: obj.key, bytes: bytes.length, sha256: d.sha256, blocks: d.blocks };
    catalog.recordStored(stored, o.nowMs());
    if (sent) {
      totals.files++;
      totals.bytes += bytes.length;
    } else totals.found++;
    o.onFile?.(bytes.length, sent);
    return stored;
  };

  const storeDay = async (due: DueDay): Promise<void> => {
    const listed = catalog.dayObjects(due.tradedate);
    const rowText = catalog.dayFilePaths(due.tradedate).map((p) => ({ key: rowTextRelPath(p), sha256: null }));
    let dayFailed = false;
    const results = await Promise.all(
      [...listed.map((obj) => ({ obj, optional: false })), ...rowText.map((obj) => ({ obj, optional: true }))].map(({ obj, optional }) =>
        limiter.run(async () => {
          try {
            return await storeOne(obj, optional);
          } catch (e) {
            if (!(e instanceof LocalFileFault)) throw e;
            failed.push({ key: obj.key, reason: e.message });
            dayFailed = true;
            return null;
          }
        }),
      ),
    );
    if (dayFailed) return;
    const objects = results.filter((r): r is StoredObject => r !== null);
    const manifest = encodeManifest({
      format: MANIFEST_FORMAT,
      version: MANIFEST_VERSION,
      tradedate: due.tradedate,
      tables: catalog.dayRows(due.tradedate),
      objects,
    });
    const key = manifestKey(due.tradedate);
    const d = objectDigests(manifest);
    await o.store.put(key, manifest, d);
    catalog.recordStored({ key, bytes: manifest.length, sha256: d.sha256, blocks: d.blocks }, o.nowMs());
    const bytes = objects.reduce((s, x) => s + x.bytes, 0);
    if (catalog.finishDay(due, { objects: objects.length, bytes, manifestSha256: d.sha256, storedAtMs: o.nowMs() })) totals.days++;
  };

  try {
    for (const due of catalog.dueDays()) {
      if (o.stop?.()) break;
      await storeDay(due);
    }
  } catch (e) {
    if (!(e instanceof PassStopped)) throw e;
  }
  return { ...totals, failed, due: catalog.dueDays().length };
}
