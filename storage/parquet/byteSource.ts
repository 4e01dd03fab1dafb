/**
 * What the readers need of a file: positioned reads. A `FileHandle` is one (the server's main
 * thread, which must never block); `withSyncFile` gives another, for worker threads, where a
 * blocking read of a page-cached file costs ~10 µs against ~200 µs for an open, read and
 * close through libuv's thread pool (measured here).
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

export interface ByteSource {
  /** The file, where the source knows it: named in a DamagedFileError. */
  readonly path?: string;
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
}

/** Runs `fn` with a blocking source over `path`; for worker threads only. */
export async function withSyncFile<T>(path: string, fn: (source: ByteSource, bytes: number) => Promise<T>): Promise<T> {
  const fd = openSync(path, 'r');
  try {
    const source: ByteSource = {
      path,
      read: (buffer, offset, length, position) => Promise.resolve({ bytesRead: readSync(fd, buffer, offset, length, position) }),
    };
    return await fn(source, fstatSync(fd).size);
  } finally {
    closeSync(fd);
  }
}

/** A source over bytes already in memory (a file read whole, a download). */
export function bufferSource(bytes: Uint8Array, path?: string): ByteSource {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return {
    path,
    read: (target, offset, length, position) => Promise.resolve({ bytesRead: buf.copy(target, offset, position, position + length) }),
  };
}
