/**
 * What an uploaded file's bytes are known by (pure): its SHA-256 (the catalog's), the ETag an S3
 * store must answer for them, and the SHA-256 of each fixed block. The ETag is how an upload is
 * verified without reading it back: a store computes it from the bytes it received and kept.
 * The block digests let a server check each byte range it reads from the store (a ranged GET
 * cannot be checked against a whole file's SHA-256); they are recorded with the upload and in
 * the bucket's manifest, made from the local bytes once their SHA-256 is the catalog's.
 */
import { createHash } from 'node:crypto';

/** A file above this is uploaded in parts. */
export const MULTIPART_THRESHOLD_BYTES = 16 * 1024 * 1024;
/** Each part but the last (S3's least is 5 MiB). */
export const MULTIPART_PART_BYTES = 8 * 1024 * 1024;
/**
 * The unit a server reads and checks from the store: a level-2 stock-day (~0.4 MB) is a few
 * blocks, a footer one, and 32 digest bytes per 128 KiB is 0.025% of the lake in the catalog.
 */
export const BLOCK_BYTES = 128 * 1024;
const DIGEST_BYTES = 32;

export interface ObjectDigests {
  readonly sha256: string;
  readonly md5: Buffer;
  /** The ETag an S3 store answers for these bytes sent as upload() sends them. */
  readonly etag: string;
  /** SHA-256 of each BLOCK_BYTES block (the last may be shorter), concatenated. */
  readonly blocks: Buffer;
}

export function objectDigests(bytes: Uint8Array): ObjectDigests {
  const md5 = createHash('md5').update(bytes).digest();
  return {
    sha256: createHash('sha256').update(bytes).digest('hex'),
    md5,
    etag: bytes.length <= MULTIPART_THRESHOLD_BYTES ? md5.toString('hex') : multipartEtag(bytes, MULTIPART_PART_BYTES),
    blocks: blockDigests(bytes),
  };
}

/** S3's multipart ETag: MD5 of the parts' binary MD5s, a dash, the number of parts. */
export function multipartEtag(bytes: Uint8Array, partBytes: number): string {
  const all = createHash('md5');
  let parts = 0;
  for (let at = 0; at < bytes.length; at += partBytes) {
    all.update(
      createHash('md5')
        .update(bytes.subarray(at, Math.min(at + partBytes, bytes.length)))
        .digest(),
    );
    parts++;
  }
  return `${all.digest('hex')}-${parts}`;
}

export function blockDigests(bytes: Uint8Array): Buffer {
  const count = Math.ceil(bytes.length / BLOCK_BYTES);
  const out = Buffer.allocUnsafe(count * DIGEST_BYTES);
  for (let b = 0; b < count; b++) {
    createHash('sha256')
      .update(bytes.subarray(b * BLOCK_BYTES, Math.min((b + 1) * BLOCK_BYTES, bytes.length)))
      .digest()
      .copy(out, b * DIGEST_BYTES);
  }
  return out;
}

/** Whether `block` (block number `index` of a file) is the one the digests were made from. */
export function blockMatches(blocks: Uint8Array, index: number, block: Uint8Array): boolean {
  const want = blocks.subarray(index * DIGEST_BYTES, (index + 1) * DIGEST_BYTES);
  return want.length === DIGEST_BYTES && createHash('sha256').update(block).digest().equals(want);
}
