/**
 * `tickvault attach --store s3://BUCKET/PREFIX --data-dir DIR` (issue 50): a new data directory
 * that serves every day stored in the bucket without copying a file. Its catalog is made from
 * the days' manifests (dayManifest.ts): each day's catalog rows as the uploading host listed
 * them, and each object's size, SHA-256 and block digests, so `serve --store` on DIR reads
 * them as it reads offloaded days (every block checked), and two hosts attached to one bucket
 * list the same files with the same digests (`doctor --digests`).
 *
 * A manifest is taken only when its bytes have the SHA-256 recorded with its upload (the
 * object's metadata) and every file row it lists has its object with the row's SHA-256. Each
 * day goes in in one transaction, marked offloaded and stored, with none of the marks a local
 * listing makes (bars or uploads due): nothing of it is local to make them from.
 */
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { buffer } from 'node:stream/consumers';
import { Limiter } from '../../shared/limiter.js';
import type { Statement } from 'better-sqlite3';
import type { Db } from '../../shared/sqlite.js';
import { openCatalog } from '../catalog.js';
import { layoutFor } from '../layout.js';
import { decodeManifest, ManifestError, type DayManifest } from './dayManifest.js';
import type { ObjectStore } from './objectStore.js';
import { catalogDayTables } from './storeCatalog.js';
import { restoreNewestState } from './storeBackup.js';

export interface Attached {
  readonly days: number;
  /** Files listed (current and earlier versions, boundary parts, bar files, row text). */
  readonly objects: number;
  /** Their bytes, in the store. */
  readonly bytes: number;
  /** The newest complete `backup --to s3://…` whose state (accounts, keys, staging) was restored, or null. */
  readonly state: { readonly stamp: string; readonly files: number } | null;
}

const MANIFEST_KEY = /^_manifest\/date=(\d{8})\/manifest\.json\.gz$/;

/** The directory is not a new one: attach never mixes a bucket into an existing lake. */
export class AttachError extends Error {
  override name = 'AttachError';
}

export async function attach(o: { readonly dataDir: string; readonly store: ObjectStore; readonly nowMs: () => number }): Promise<Attached> {
  if (existsSync(o.dataDir) && readdirSync(o.dataDir).length > 0) {
    throw new AttachError(`${o.dataDir} is not empty: attach makes a new data directory (give a new or empty one)`);
  }
  const keys = (await o.store.list('_manifest/')).filter((k) => MANIFEST_KEY.test(k)).sort();
  const limiter = new Limiter(8);
  const manifests = await Promise.all(keys.map((k) => limiter.run(() => readManifest(o.store, k))));
  mkdirSync(o.dataDir, { recursive: true });
  const db = openCatalog(layoutFor(o.dataDir).catalogDb);
  try {
    let objects = 0;
    let bytes = 0;
    const insert = rowInserter(db);
    for (const { manifest: m, sha256 } of manifests) {
      listDay(db, insert, m, sha256, o.nowMs());
      objects += m.objects.length;
      bytes += m.objects.reduce((s, x) => s + x.bytes, 0);
    }
    return { days: manifests.length, objects, bytes, state: await restoreNewestState(o.store, o.dataDir) };
  } finally {
    db.close();
  }
}

async function readManifest(store: ObjectStore, key: string): Promise<{ readonly manifest: DayManifest; readonly sha256: string }> {
  const facts = await store.head(key);
  if (facts === null) throw new ManifestError(`${key} was listed but is gone from the store`);
  const bytes = await buffer(await store.getStream(key));
  const sha = createHash('sha256').update(bytes).digest('hex');
  if (facts.sha256 === undefined || sha !== facts.sha256) {
    throw new ManifestError(`${key} in the store is damaged: its SHA-256 ${sha} is not the one recorded with its upload (${facts.sha256 ?? 'none'})`);
  }
  const m = decodeManifest(bytes, key);
  const day = MANIFEST_KEY.exec(key)![1];
  if (m.tradedate !== day) throw new ManifestError(`${key} describes ${m.tradedate}, not ${day}`);
  const objects = new Map(m.objects.map((x) => [x.key, x.sha256]));
  for (const row of [...(m.tables.files ?? []), ...(m.tables.file_versions ?? [])]) {
    const path = row.path as string;
    if (objects.get(path) !== row.sha256) throw new ManifestError(`${key} lists ${path} without its object in the store (or with another SHA-256)`);
  }
  return { manifest: m, sha256: sha };
}

/** Inserts a row of a catalog table: one statement per table and column list, prepared once. */
function rowInserter(db: Db): (table: string, row: Record<string, unknown>) => void {
  const known = new Set(catalogDayTables(db));
  const statements = new Map<string, Statement>();
  return (table, row) => {
    if (!known.has(table)) throw new ManifestError(`a manifest has a table ${table} this tickvault does not know; upgrade tickvault`);
    const cols = Object.keys(row);
    const key = `${table}(${cols.join(',')})`;
    let stmt = statements.get(key);
    if (stmt === undefined) {
      stmt = db.prepare(`INSERT OR REPLACE INTO "${table}" (${cols.map((c) => `"${c}"`).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`);
      statements.set(key, stmt);
    }
    stmt.run(...cols.map((c) => row[c]));
  };
}

/** One day's rows, its stored objects and its marks, in one transaction. */
function listDay(db: Db, insert: (table: string, row: Record<string, unknown>) => void, m: DayManifest, manifestSha256: string, atMs: number): void {
  db.transaction(() => {
    for (const [table, rows] of Object.entries(m.tables)) for (const row of rows) insert(table, row);
    const put = db.prepare('INSERT OR REPLACE INTO stored_objects (key, bytes, sha256, blocks, stored_at_ms) VALUES (?, ?, ?, ?, ?)');
    for (const x of m.objects) put.run(x.key, x.bytes, x.sha256, x.blocks, atMs);
    db.prepare('INSERT OR REPLACE INTO stored_days (tradedate, objects, bytes, manifest_sha256, stored_at_ms) VALUES (?, ?, ?, ?, ?)').run(
      m.tradedate,
      m.objects.length,
      m.objects.reduce((s, x) => s + x.bytes, 0),
      manifestSha256,
      atMs,
    );
    db.prepare('INSERT OR REPLACE INTO offloaded_days (tradedate, offloaded_at_ms) VALUES (?, ?)').run(m.tradedate, atMs);
    // The listing's triggers marked the day for bars and uploads: both are made, in the store.
    db.prepare('DELETE FROM store_due WHERE tradedate = ?').run(m.tradedate);
    db.prepare('DELETE FROM bar_stale WHERE tradedate = ?').run(m.tradedate);
  })();
}
