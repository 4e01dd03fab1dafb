/**
 * Writing a file of the lake so that, once the call returns, it is whole on disk under its
 * final name or absent: a temporary name carrying the writer's pid, fsync, rename. The caller
 * fsyncs the directory (once for many files) before naming the file anywhere.
 */
import { open, rename, unlink } from 'node:fs/promises';

export async function writeDurably(finalPath: string, data: Uint8Array): Promise<void> {
  const tmp = `${finalPath}.tmp-${process.pid}`;
  const fh = await open(tmp, 'w');
  try {
    try {
      await fh.writeFile(data);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, finalPath);
  } catch (e) {
    // A full disk must not keep the part written (it holds the space a rerun needs), nor
    // leave doctor a temp to warn about; a read-only one refuses the unlink too (then it stays
    // for the next writer, which removes its dead writers' temps).
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
}

/** Makes the renames inside `dir` durable. */
export async function fsyncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}
