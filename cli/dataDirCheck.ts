/**
 * Commands that only read a store (serve, doctor) refuse a missing data directory: a mistyped
 * --data-dir would otherwise look like an empty store. (demo, replay, seal, accounts and
 * calendar import create theirs.)
 */
import { statSync } from 'node:fs';
import { UsageError } from './command.js';

export function requireDataDir(dir: string): void {
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) throw new UsageError(`data directory not found: ${dir} (check --data-dir or TICKVAULT_DATA_DIR)`);
}
