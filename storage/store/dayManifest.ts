/**
 * A day's manifest in the bucket (pure): the day's catalog rows and the stored objects with
 * their digests, so that a host attached to the bucket lists the day as this one does without
 * any local file (`tickvault attach`). Written after the day's files are stored and verified,
 * itself uploaded with Content-MD5 and recorded with its SHA-256. JSON, gzipped (a whole
 * market's day is ~15,000 file rows; their minute counts compress well); blobs as base64.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import type { StoredObject } from './storeCatalog.js';

export const MANIFEST_FORMAT = 'tickvault-day-manifest';
export const MANIFEST_VERSION = 1;

export interface DayManifest {
  readonly format: typeof MANIFEST_FORMAT;
  readonly version: number;
  readonly tradedate: string;
  /** Catalog rows of the day by table; a blob is `{ "base64": "…" }`. */
  readonly tables: Readonly<Record<string, readonly Record<string, unknown>[]>>;
  readonly objects: readonly StoredObject[];
}

/** Where a day's manifest is, relative to the store's prefix (apart from the datasets' folders). */
export function manifestKey(tradedate: string): string {
  return `_manifest/date=${tradedate}/manifest.json.gz`;
}

export function encodeManifest(m: DayManifest): Buffer {
  const tables: Record<string, Record<string, unknown>[]> = {};
  for (const [table, rows] of Object.entries(m.tables)) tables[table] = rows.map(blobsAsBase64);
  const objects = m.objects.map((o) => blobsAsBase64({ key: o.key, bytes: o.bytes, sha256: o.sha256, blocks: o.blocks }));
  // Level 6 (the default): ~4x on a market's day in a few ms; the same bytes on every host.
  return gzipSync(JSON.stringify({ format: m.format, version: m.version, tradedate: m.tradedate, tables, objects }));
}

export class ManifestError extends Error {
  override name = 'ManifestError';
}

export function decodeManifest(bytes: Uint8Array, key: string): DayManifest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(gunzipSync(bytes).toString('utf8'), (_k, value: unknown) =>
      value !== null && typeof value === 'object' && Object.keys(value).length === 1 && typeof (value as { base64?: unknown }).base64 === 'string'
        ? Buffer.from((value as { base64: string }).base64, 'base64')
        : value,
    );
  } catch (e) {
    throw new ManifestError(`${key} is not a day manifest: ${(e as Error).message}`);
  }
  const m = parsed as Partial<DayManifest>;
  if (m.format !== MANIFEST_FORMAT) throw new ManifestError(`${key} is not a day manifest (format ${String(m.format)})`);
  if (m.version !== MANIFEST_VERSION)
    throw new ManifestError(`${key} is a manifest of version ${String(m.version)}; this tickvault reads version ${MANIFEST_VERSION}`);
  if (typeof m.tradedate !== 'string' || typeof m.tables !== 'object' || !Array.isArray(m.objects))
    throw new ManifestError(`${key} lacks its day, tables or objects`);
  return m as DayManifest;
}

function blobsAsBase64(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) out[k] = Buffer.isBuffer(v) ? { base64: v.toString('base64') } : v;
  return out;
}
