/**
 * A live SQLite file copied safely: SQLite's online backup API (better-sqlite3 `backup`), never
 * a file copy, which could catch a page half-written or miss the WAL's committed frames. The
 * copy is one consistent snapshot: every page in one step, under one read transaction, so a
 * writer committing meanwhile (a server counting requests, an ingestor staging) neither
 * restarts the backup nor shows in it. In WAL mode the read blocks no writer.
 */
import { rename, rm } from 'node:fs/promises';
import Database from 'better-sqlite3';

/** Pages per backup step: all of them, so the copy is one snapshot (see above). */
const ALL_PAGES = 0x7fffffff;

/** Copies the database at `src` to `dest` (which must not exist); resolves to its pages. */
export async function snapshotSqlite(src: string, dest: string): Promise<{ readonly pages: number }> {
  const db = new Database(src, { readonly: true, fileMustExist: true });
  const tmp = `${dest}.tmp-${process.pid}`;
  try {
    db.pragma('busy_timeout = 10000');
    const done = await db.backup(tmp, { progress: () => ALL_PAGES });
    // The backup's connection has closed the copy: renamed, it is whole under its final name or absent.
    await rename(tmp, dest);
    return { pages: done.totalPages };
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  } finally {
    db.close();
  }
}
