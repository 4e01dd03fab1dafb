import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh temporary directory, removed at process exit unless KEEP_TEST_DIRS is set. */
export function tempDir(prefix = 'tickvault-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (!process.env.KEEP_TEST_DIRS) process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
