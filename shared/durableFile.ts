/**
 * The project's one durable write: a file that, once the call returns, is whole on disk under
 * its final name, or absent (or, when it replaces one, the old file is still there whole). A
 * temporary name carrying the writer's pid, fsync, rename. The caller fsyncs the directory
 * (once for many files) before naming the file anywhere. Used for the lake's files, backups'
 * copies and the calendar's closures alike.
 */
import { open, rename, unlink, type FileHandle } from 'node:fs/promises';

/** The temporary name `finalPath` is written under: doctor removes dead writers' temps by it. */
function tempPathOf(finalPath: string): string {
  return `${finalPath}.tmp-${process.pid}`;
}

export async function writeDurably(finalPath: string, data: Uint8Array): Promise<void> {
  await replaceDurably(finalPath, (fh) => fh.writeFile(data));
}

/**
 * `fill` writes the file through its handle (and may check what it wrote); then fsync and
 * rename. Whatever `fill` returns is returned; if it throws (a check that failed), nothing is
 * installed and the temporary file is gone.
 */
export async function replaceDurably<T>(finalPath: string, fill: (fh: FileHandle) => Promise<T>): Promise<T> {
  const tmp = tempPathOf(finalPath);
  try {
    const fh = await open(tmp, 'w');
    let result: T;
    try {
      result = await fill(fh);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, finalPath);
    return result;
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
