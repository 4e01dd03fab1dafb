/**
 * ZSTD, the one codec of the lake's files: compression of Parquet pages and decompression off
 * the main thread (libuv's thread pool, native library), and a synchronous pure-JS
 * decompressor for the general reader, whose codec interface is synchronous.
 *
 * @mongodb-js/zstd 1.2.x's `index.js` wrapper drops the level argument (every call compresses
 * at zstd's default, 3), while its napi binding honours it; so the binding is called directly,
 * falling back to the wrapper if a future layout of the package hides it.
 */
import { compress as wrapperCompress, decompress as nativeDecompress } from '@mongodb-js/zstd';
import { decompress as fzstdDecompress } from 'fzstd';
import { createRequire } from 'node:module';

type Compress = (data: Buffer, level: number) => Promise<Buffer>;

function loadBinding(): Compress | undefined {
  try {
    const binding = createRequire(import.meta.url)('@mongodb-js/zstd/bindings.js') as { compress?: unknown };
    return typeof binding.compress === 'function' ? (binding.compress as Compress) : undefined;
  } catch {
    return undefined;
  }
}

const binding = loadBinding();

export function zstdCompress(data: Buffer, level: number): Promise<Buffer> {
  if (!binding) return wrapperCompress(data, level);
  // napi errors carry no JS stack; rethrow as an Error that says where it came from.
  return binding(data, level).catch((e: unknown) => {
    throw new Error(`zstd: ${e instanceof Error ? e.message : String(e)}`);
  });
}

/** Decompresses one or more concatenated frames in the thread pool (their contents, concatenated). */
export function zstdDecompress(data: Buffer): Promise<Buffer> {
  return nativeDecompress(data);
}

/** Decompresses synchronously on this thread (pure JS): for decoders that need a synchronous codec. */
export function zstdDecompressSync(data: Uint8Array): Uint8Array {
  return fzstdDecompress(data);
}
