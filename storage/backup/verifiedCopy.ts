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
    return await replaceDurably(dest, async (to) => {
      const hash = createHash('sha256');
      let bytes = 0;
      const buf = Buffer.allocUnsafe(CHUNK);
      const limit = opts.limit ?? Number.POSITIVE_INFINITY;
      for (;;) {
        const want = Math.min(CHUNK, limit - bytes);
        if (want <= 0) break;
        const { bytesRead } = await from.read(buf, 0, want, bytes);
        if (bytesRead === 0) break;
        await to.write(buf, 0, bytesRead, bytes);
        hash.update(buf.subarray(0, bytesRead));
        bytes += bytesRead;
      }
      const sha256 = hash.digest('hex');
      if (opts.sha256 && sha256 !== opts.sha256) throw new DigestMismatchError(opts.label ?? src, opts.sha256, sha256);
      if (opts.limit !== undefined && opts.limit !== null && bytes < opts.limit) {
        throw new Error(`${opts.label ?? src}: ${bytes} bytes, fewer than the ${opts.limit} its database lists`);
      }
      return { bytes, sha256 };
    });
  } finally {
    await from.close();
  }
}
