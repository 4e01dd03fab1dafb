/**
 * The bucket behind `--store` (issue 50), the one place that speaks S3. Objects are named by
 * the catalog's own relative paths under the store's prefix, so the bucket is the same hive
 * tree as a data directory and DuckDB, Spark or Trino read it without us.
 *
 * Checksums are ours, not the SDK's: AWS SDK v3 sends a CRC32 trailer by default that older
 * S3-compatible stores (Swift's s3api, MinIO before 2024) refuse, so the client only sends
 * checksums an operation requires, and every single PUT carries Content-MD5, which every
 * S3 store verifies before it keeps the object (a mismatch is `BadDigest`, nothing kept).
 * Multipart parts go through @aws-sdk/lib-storage; their ETag (the MD5 of the parts' MD5s) is
 * compared with the one computed here (objectDigests.ts multipartEtag), which verifies the
 * same. Every failure is a StoreError: one line, and whether trying later may work.
 */
import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { StoreConfig } from '../../shared/config.js';
import { MULTIPART_PART_BYTES, MULTIPART_THRESHOLD_BYTES, type ObjectDigests } from './objectDigests.js';
import { StoreError } from './storeError.js';

export { StoreError } from './storeError.js';

/** What the store holds under a key. */
export interface ObjectFacts {
  readonly bytes: number;
  /** Without quotes. */
  readonly etag: string;
  /** The SHA-256 recorded at upload (user metadata), when there is one. */
  readonly sha256: string | undefined;
}

/** A connection that takes longer than this is a store that is down: give up and retry later. */
const CONNECT_MS = 3_000;
/** No byte for this long on an open request: the same. */
const IDLE_MS = 30_000;
/** Network errors that mean the store (or the way to it) is down, not that the request is wrong. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'TimeoutError']);

export class ObjectStore {
  private readonly client: S3Client;

  constructor(readonly config: StoreConfig) {
    // The SDK prints a notice on Node 20 about its releases after January 2027 (the lockfile
    // pins this one): a warning of its own on stderr of every command that would break each
    // failure's one line. Its documented switch, set before the first client.
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
    this.client = new S3Client({
      region: config.region,
      endpoint: config.endpoint,
      // Path style: S3-compatible stores on an address of their own have no bucket subdomains.
      forcePathStyle: config.endpoint !== undefined,
      credentials: config.credentials,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // One retry for a blip; a store that is down is retried by the caller's next pass.
      maxAttempts: 2,
      requestHandler: { connectionTimeout: CONNECT_MS, requestTimeout: IDLE_MS },
    });
  }

  /** The object's key: the store's prefix and the file's catalog path. */
  key(path: string): string {
    return this.config.prefix + path;
  }

  /** What the store holds at `path`, or null when nothing. */
  async head(path: string): Promise<ObjectFacts | null> {
    try {
      const r = await this.client.send(new HeadObjectCommand({ Bucket: this.config.bucket, Key: this.key(path) }));
      return { bytes: r.ContentLength ?? 0, etag: unquote(r.ETag), sha256: r.Metadata?.sha256 };
    } catch (e) {
      if (statusOf(e) === 404) return null;
      throw this.failure(e, `look up ${path}`);
    }
  }

  /**
   * Puts `bytes` at `path` with their SHA-256 as metadata, verified: resolves to the store's
   * ETag once it is the one `d` computed from the bytes (a StoreError otherwise). A file up to
   * MULTIPART_THRESHOLD_BYTES is one PUT with Content-MD5; a larger one is sent in parts.
   */
  async put(path: string, bytes: Buffer, d: Pick<ObjectDigests, 'md5' | 'sha256' | 'etag'>): Promise<string> {
    const etag = await this.send(path, bytes, d.md5, d.sha256);
    if (etag !== d.etag) throw new StoreError(`the store kept other bytes for ${path} (ETag ${etag}, expected ${d.etag})`, true);
    return etag;
  }

  private async send(path: string, bytes: Buffer, md5: Buffer, sha256: string): Promise<string> {
    const common = { Bucket: this.config.bucket, Key: this.key(path), Metadata: { sha256 }, ContentType: contentTypeOf(path) };
    try {
      if (bytes.length <= MULTIPART_THRESHOLD_BYTES) {
        const r = await this.client.send(new PutObjectCommand({ ...common, Body: bytes, ContentLength: bytes.length, ContentMD5: md5.toString('base64') }));
        return unquote(r.ETag);
      }
      const upload = new Upload({
        client: this.client,
        params: { ...common, Body: bytes },
        partSize: MULTIPART_PART_BYTES,
        queueSize: 4,
        leavePartsOnError: false,
      });
      const r = await upload.done();
      return unquote(r.ETag);
    } catch (e) {
      throw this.failure(e, `upload ${path}`);
    }
  }

  /** Bytes [start, end) of the object at `path`. */
  async getRange(path: string, start: number, end: number): Promise<Buffer> {
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: this.config.bucket, Key: this.key(path), Range: `bytes=${start}-${end - 1}` }));
      const bytes = Buffer.from(await r.Body!.transformToByteArray());
      if (bytes.length !== end - start) throw new StoreError(`the store gave ${bytes.length} bytes of ${path} for a range of ${end - start}`, true);
      return bytes;
    } catch (e) {
      throw e instanceof StoreError ? e : this.failure(e, `read ${path}`);
    }
  }

  /** The whole object at `path` as a stream (a download, a repair). */
  async getStream(path: string): Promise<Readable> {
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: this.config.bucket, Key: this.key(path) }));
      return r.Body as Readable;
    } catch (e) {
      throw this.failure(e, `read ${path}`);
    }
  }

  /** Every catalog path stored under `under` (a folder of the tree, e.g. `_manifest/`). */
  async list(under: string): Promise<string[]> {
    const out: string[] = [];
    let token: string | undefined;
    try {
      do {
        const r = await this.client.send(new ListObjectsV2Command({ Bucket: this.config.bucket, Prefix: this.key(under), ContinuationToken: token }));
        for (const o of r.Contents ?? []) if (o.Key !== undefined) out.push(o.Key.slice(this.config.prefix.length));
        token = r.IsTruncated ? r.NextContinuationToken : undefined;
      } while (token !== undefined);
    } catch (e) {
      throw this.failure(e, `list ${under}`);
    }
    return out;
  }

  /** Removes one object (not DeleteObjects: Swift's s3api wants a Content-MD5 that SDK v3 no longer sends). */
  async delete(path: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.config.bucket, Key: this.key(path) }));
    } catch (e) {
      throw this.failure(e, `remove ${path}`);
    }
  }

  close(): void {
    this.client.destroy();
  }

  /** A failure as one line naming the store and what was tried. */
  private failure(e: unknown, what: string): StoreError {
    const where = `${this.config.url} (${this.config.endpoint ?? 'AWS S3'})`;
    const status = statusOf(e);
    const code = codeOf(e);
    if (status === undefined) {
      return new StoreError(`could not ${what}: the store at ${where} is unreachable (${code ?? (e as Error).message})`, true, { cause: e });
    }
    const name = e instanceof S3ServiceException ? e.name : 'error';
    if (status === 403) return new StoreError(`could not ${what}: the store at ${where} refused the credentials (${name})`, false, { cause: e });
    if (name === 'NoSuchBucket') return new StoreError(`could not ${what}: ${where} has no bucket ${this.config.bucket}`, false, { cause: e });
    return new StoreError(`could not ${what}: the store at ${where} answered ${status} ${name}`, status >= 500 || status === 429 || status === 408, {
      cause: e,
    });
  }
}

function statusOf(e: unknown): number | undefined {
  const meta = (e as { $metadata?: { httpStatusCode?: number } }).$metadata;
  if (meta?.httpStatusCode !== undefined) return meta.httpStatusCode;
  return undefined;
}

function codeOf(e: unknown): string | undefined {
  for (let c: unknown = e; c !== undefined && c !== null; c = (c as { cause?: unknown }).cause) {
    const code = (c as { code?: unknown }).code ?? (c as { name?: unknown }).name;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
    if (c === (c as { cause?: unknown }).cause) break;
  }
  return (e as { code?: string }).code;
}

function unquote(etag: string | undefined): string {
  return (etag ?? '').replace(/^"|"$/g, '');
}

function contentTypeOf(path: string): string {
  if (path.endsWith('.parquet')) return 'application/vnd.apache.parquet';
  if (path.endsWith('.json')) return 'application/json';
  return 'application/octet-stream';
}
