import { execFileSync } from 'node:child_process';

/** True when `name` is an executable on PATH (tests that need a system tool skip without it). */
export function commandOnPath(name: string): boolean {
  try {
    execFileSync('which', [name], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
}
