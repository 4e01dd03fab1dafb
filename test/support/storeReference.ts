/**
 * What a test checks a bucket against, independently of storage/store/: the files the catalog
 * vouches for, by plain SQL over catalog.db, and the bucket's keys and objects through a plain
 * S3 client (test/support/swift.ts s3ClientFor).
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';

/** Every file the catalog vouches for (current and earlier versions, boundary parts, bar files): path to SHA-256. */
export function catalogDigests(dataDir: string): Map<string, string> {
  const db = new Database(join(dataDir, 'catalog.db'), { readonly: true });
  try {
    const rows = db
      .prepare(
        `SELECT path, sha256 FROM files UNION SELECT path, sha256 FROM file_versions UNION SELECT path, sha256 FROM boundary_parts
         UNION SELECT minute_path, minute_sha256 FROM bar_days WHERE minute_path IS NOT NULL
         UNION SELECT daily_path, daily_sha256 FROM bar_days WHERE daily_path IS NOT NULL`,
      )
      .all() as { path: string; sha256: string }[];
    return new Map(rows.map((r) => [r.path, r.sha256]));
  } finally {
    db.close();
  }
}

/** Every key of the bucket under `prefix`, sorted. */
export async function bucketKeys(s3: S3Client, bucket: string, prefix: string): Promise<string[]> {
  const out: string[] = [];
  let token: string | undefined;
  do {
    const r = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
    for (const o of r.Contents ?? []) out.push(o.Key!);
    token = r.IsTruncated ? r.NextContinuationToken : undefined;
  } while (token);
  return out.sort();
}

/** The object's bytes. */
export async function bucketObject(s3: S3Client, bucket: string, key: string): Promise<Buffer> {
  const r = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return Buffer.from(await r.Body!.transformToByteArray());
}

export function sha256Of(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
