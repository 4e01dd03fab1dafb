/**
 * ZSTD compression of Parquet pages off the main thread (libuv's thread pool).
 *
 * @mongodb-js/zstd 1.2.x's `index.js` wrapper drops the level argument (every call compresses
 * at zstd's default, 3), while its napi binding honours it; so the binding is called directly,
 * falling back to the wrapper if a future layout of the package hides it.
 */
import { compress as wrapperCompress } from '@mongodb-js/zstd';
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
