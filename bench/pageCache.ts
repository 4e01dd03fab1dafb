/**
 * The OS page cache for cold figures: evicting files (GNU dd's `iflag=nocache`, which is
 * posix_fadvise(POSIX_FADV_DONTNEED) over the whole file) and measuring what is resident
 * (util-linux `fincore`), so each cold figure says which state it was measured in.
 */
import { spawnSync } from 'node:child_process';

const SCRIPT = 'sync; for f in "$@"; do dd if="$f" iflag=nocache count=0 status=none; done';

/** Drops `paths` from the page cache; returns the bytes still resident afterwards (null when unknown). */
export function evictFromPageCache(paths: readonly string[]): number | null {
  for (let i = 0; i < paths.length; i += 2000) {
    const r = spawnSync('sh', ['-c', SCRIPT, 'evict', ...paths.slice(i, i + 2000)], { stdio: ['ignore', 'ignore', 'pipe'] });
    if (r.status !== 0) throw new Error(`evicting from the page cache failed: ${r.stderr.toString().trim() || r.error?.message}`);
  }
  return residentBytes(paths);
}

/** Bytes of `paths` in the page cache, or null when fincore is missing. */
export function residentBytes(paths: readonly string[]): number | null {
  let total = 0;
  for (let i = 0; i < paths.length; i += 2000) {
    const r = spawnSync('fincore', ['--bytes', '--noheadings', '--output', 'RES', ...paths.slice(i, i + 2000)], { encoding: 'utf8' });
    if (r.status !== 0 || r.error) return null;
    for (const line of r.stdout.split('\n')) if (line.trim()) total += Number(line.trim());
  }
  return total;
}

/**
 * The page-cache state a cold figure was measured in, for its line: `warm` with the bytes
 * resident, or how the files were evicted and what stayed resident after.
 */
export function pageCacheState(how: string, resident: number | null, totalBytes: number): string {
  const mb = (b: number | null) => (b === null ? '?' : (Math.min(b, totalBytes) / 1048576).toFixed(1));
  return how === 'warm'
    ? `page cache warm (${mb(resident)} of ${mb(totalBytes)} MB resident)`
    : `files ${how} (dd iflag=nocache; ${mb(resident)} of ${mb(totalBytes)} MB resident after)`;
}
