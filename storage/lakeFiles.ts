/**
 * Where a server reads a catalogued file's bytes: the data directory, or, for a file whose
 * local copy `tickvault offload` removed, the store's copy through the block cache
 * (storage/store/blockCache.ts). The readers (Parquet footers and row groups, row text frames,
 * boundary parts, downloads) take a LakeFile, a ByteSource with its size, and never learn
 * which; the one difference that matters, how its bytes are checked, is `remote` (a local file
 * is hashed whole at its first touch, a remote one block by block as it is read).
 *
 * The local copy wins whenever it is there (a day not offloaded, a file restated after its day
 * was): the store is asked only after the open found nothing, and only for a path the catalog
 * records as stored with the catalog's own SHA-256.
 */
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { ByteSource } from './parquet/byteSource.js';
import type { StoreBlockCache } from './store/blockCache.js';
import type { StoredObject } from './store/storeCatalog.js';

export interface LakeFile extends ByteSource {
  readonly path: string;
  readonly size: number;
  /** Read from the store (through the cache), not the local disk. */
  readonly remote: boolean;
  close(): Promise<void>;
}

/** The store side: the cache, and what the catalog records as stored (null: not stored). */
export interface RemoteFiles {
  readonly cache: StoreBlockCache;
  stored(path: string): StoredObject | null;
}

export class LakeFiles {
  constructor(
    readonly dataDir: string,
    readonly remote: RemoteFiles | null = null,
  ) {}

  /** Opens the file at catalog path `path`; throws the local open's error when neither side has it. */
  async open(path: string): Promise<LakeFile> {
    try {
      const fh = await open(join(this.dataDir, path), 'r');
      const size = (await fh.stat()).size;
      return { path, size, remote: false, read: (b, o, l, p) => fh.read(b, o, l, p), close: () => fh.close() };
    } catch (e) {
      const stored = (e as NodeJS.ErrnoException).code === 'ENOENT' ? this.remote?.stored(path) : null;
      if (!stored) throw e;
      return remoteFile(this.remote!.cache, stored);
    }
  }

  /** Runs `fn` with the file open, closes it. */
  async with<T>(path: string, fn: (file: LakeFile) => Promise<T>): Promise<T> {
    const file = await this.open(path);
    try {
      return await fn(file);
    } finally {
      await file.close();
    }
  }

  /** The store's record of `path` when its local copy is gone, else null (a local file, or no store). */
  async remoteCopy(path: string): Promise<StoredObject | null> {
    if (this.remote === null) return null;
    try {
      await (await open(join(this.dataDir, path), 'r')).close();
      return null;
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === 'ENOENT' ? this.remote.stored(path) : null;
    }
  }
}

/** The whole file as a stream of `chunkBytes` reads, closed at its end or when destroyed. */
export function lakeFileStream(f: LakeFile, chunkBytes: number): Readable {
  async function* chunks(): AsyncGenerator<Buffer> {
    try {
      for (let at = 0; at < f.size;) {
        const buf = Buffer.allocUnsafe(Math.min(chunkBytes, f.size - at));
        const { bytesRead } = await f.read(buf, 0, buf.length, at);
        if (bytesRead === 0) throw new Error(`${f.path} ended at byte ${at} of ${f.size}`);
        at += bytesRead;
        yield bytesRead === buf.length ? buf : buf.subarray(0, bytesRead);
      }
    } finally {
      await f.close();
    }
  }
  return Readable.from(chunks(), { objectMode: false, highWaterMark: chunkBytes });
}

function remoteFile(cache: StoreBlockCache, obj: StoredObject): LakeFile {
  return {
    path: obj.key,
    size: obj.bytes,
    remote: true,
    read: async (buffer, offset, length, position) => {
      const bytes = await cache.read(obj, position, length);
      bytes.copy(buffer, offset);
      return { bytesRead: bytes.length };
    },
    close: () => Promise.resolve(),
  };
}
