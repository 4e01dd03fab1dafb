/**
 * The detailed-history cursors' signing key (api-contract "Cursors"): one per service, so every
 * server process, before and after a restart, issues and accepts the same cursors. The
 * SQLite state keeps it as a file in the data directory (this module); the PostgreSQL state
 * keeps it in its secrets table. Either way it is CURSOR_KEY_BYTES random bytes.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';

export const CURSOR_KEY_BYTES = 32;

/**
 * The data directory's cursor key, created on first use. It is written to a private temporary
 * file and then hard-linked into place: link(2) fails with EEXIST like O_EXCL, and the name
 * only ever appears with its full content, so concurrent first starts agree on one key and
 * nobody reads a half-written file.
 */
export function loadOrCreateCursorKey(path: string): Buffer {
  const existing = readKey(path);
  if (existing) return existing;
  const tmp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeSync(fd, randomBytes(CURSOR_KEY_BYTES));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(tmp, path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  } finally {
    unlinkSync(tmp);
  }
  const key = readKey(path);
  if (!key) throw new Error(`${path} is not a valid cursor key`);
  return key;
}

function readKey(path: string): Buffer | null {
  let buf: Buffer;
  try {
    buf = readFileSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  if (buf.length !== CURSOR_KEY_BYTES) throw new Error(`${path} holds ${buf.length} bytes, expected ${CURSOR_KEY_BYTES}`);
  return buf;
}
