/**
 * One immutable file of the lake copied into a backup: read once, hashed while written, the
 * copy written durably (shared/durableFile.ts), so it is whole under its final name or absent; a copy
 * whose bytes do not match the SHA-256 the catalog lists is never installed (the source is
 * damaged: the backup names it instead of preserving the damage).
 */
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { replaceDurably } from '../../shared/durableFile.js';

const CHUNK = 1 << 20;

export interface CopyResult {
  readonly bytes: number;
  readonly sha256: string;
}

/** The file's bytes differ from what the catalog lists. */
export class DigestMismatchError extends Error {
  override name = 'DigestMismatchError';
  constructor(
    readonly path: string,
    readonly want: string,
    readonly got: string,
  ) {
    super(`${path}: SHA-256 ${got} differs from the catalog's ${want} (the source file is damaged)`);
  }
}

/**
 * Copies `src` to `dest`: at most `limit` bytes (a staging segment's committed length), all of
 * them when null. With `sha256`, a mismatch throws DigestMismatchError and leaves no `dest`.
 */
export async function copyVerified(
  src: string,
  dest: string,
  opts: { readonly sha256?: string | null; readonly limit?: number | null; readonly label?: string } = {},
): Promise<CopyResult> {
  const from = await open(src, 'r');
  try {
    const limit = opts.limit ?? Number.POSITIVE_INFINITY;
    async function* chunks(): AsyncGenerator<Buffer> {
      const buf = Buffer.allocUnsafe(CHUNK);
      for (let at = 0; ;) {
        const want = Math.min(CHUNK, limit - at);
        if (want <= 0) return;
        const { bytesRead } = await from.read(buf, 0, want, at);
        if (bytesRead === 0) return;
        at += bytesRead;
        yield buf.subarray(0, bytesRead);
      }
    }
    return await writeVerified(chunks(), dest, { ...opts, label: opts.label ?? src });
  } finally {
    await from.close();
  }
}

/**
 * Writes the bytes of `chunks` (a file read, a download from the store) durably to `dest`,
 * hashing them as they go; with `sha256`, a mismatch throws DigestMismatchError and leaves no `dest`.
 */
export async function writeVerified(
  chunks: AsyncIterable<Uint8Array>,
  dest: string,
  opts: { readonly sha256?: string | null; readonly limit?: number | null; readonly label: string },
): Promise<CopyResult> {
  return replaceDurably(dest, async (to) => {
    const hash = createHash('sha256');
    let bytes = 0;
    for await (const chunk of chunks) {
      await to.write(chunk, 0, chunk.length, bytes);
      hash.update(chunk);
      bytes += chunk.length;
    }
    const sha256 = hash.digest('hex');
    if (opts.sha256 && sha256 !== opts.sha256) throw new DigestMismatchError(opts.label, opts.sha256, sha256);
    if (opts.limit !== undefined && opts.limit !== null && bytes < opts.limit) {
      throw new Error(`${opts.label}: ${bytes} bytes, fewer than the ${opts.limit} its database lists`);
    }
    return { bytes, sha256 };
  });
}
