import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const created: string[] = [];
let hooked = false;

/** A fresh temporary directory, removed at process exit unless KEEP_TEST_DIRS is set. */
export function tempDir(prefix = 'tickvault-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  created.push(dir);
  if (!hooked && !process.env.KEEP_TEST_DIRS) {
    hooked = true;
    process.on('exit', () => {
      for (const d of created) rmSync(d, { recursive: true, force: true });
    });
  }
  return dir;
}
