/**
 * A real full or read-only disk for the fault tests: a small tmpfs mounted by the test (root
 * only), enlarged or made read-only with `mount -o remount,…`, unmounted at exit (lazily, so a
 * process still holding a file there does not keep it mounted).
 */
import { spawnSync } from 'node:child_process';
import { rmSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import type { Test } from 'uvu';
import { tempDir } from './tempDir.js';

export const isRoot = process.getuid?.() === 0;

export interface Tmpfs {
  readonly dir: string;
  /** `mount -o remount,OPTIONS`: its exit status and stderr (the kernel may refuse, e.g. "busy"). */
  tryRemount(options: string): { readonly status: number | null; readonly stderr: string };
  /** The same, failing the test when refused. */
  remount(options: string): void;
  resize(size: string): void;
  /**
   * Fills the disk with one file until `leaveBytes` are free (rounded down to its blocks);
   * returns what removes the file again.
   */
  fill(leaveBytes: number): () => void;
  unmount(): void;
}

export function mountTmpfs(size: string, prefix = 'tickvault-full-'): Tmpfs {
  const dir = tempDir(prefix);
  const mount = (args: string[]) => {
    const r = spawnSync('mount', args, { encoding: 'utf8' });
    return { status: r.status, stderr: r.stderr };
  };
  const must = (args: string[]) => {
    const r = mount(args);
    if (r.status !== 0) throw new Error(`mount ${args.join(' ')}: ${r.stderr}`);
  };
  must(['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  let mounted = true;
  const unmount = () => {
    if (!mounted) return;
    mounted = false;
    spawnSync('umount', ['-l', dir]);
  };
  process.on('exit', unmount);
  const remount = (options: string) => must(['-o', `remount,${options}`, dir]);
  let fillers = 0;
  const fill = (leaveBytes: number) => {
    const st = statfsSync(dir);
    const bytes = Math.floor((st.bavail * st.bsize - leaveBytes) / st.bsize) * st.bsize;
    const file = join(dir, `filler-${fillers++}`);
    if (bytes > 0) {
      // fallocate takes the blocks at once (tmpfs supports it) instead of writing zeros.
      const r = spawnSync('fallocate', ['-l', String(bytes), file], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`fallocate -l ${bytes} ${file}: ${r.stderr}`);
    }
    return () => rmSync(file, { force: true });
  };
  return { dir, tryRemount: (options) => mount(['-o', `remount,${options}`, dir]), remount, resize: (s) => remount(`size=${s}`), fill, unmount };
}

/** The one test of a run that cannot mount: a line saying why, or a failure under CI=true (CI runs as root). */
export function needsRoot(t: Test): void {
  t('needs root (tmpfs mounts)', () => {
    if (process.env.CI === 'true') assert.unreachable('CI runs as root: the full-disk tests must run');
    console.log('  skipped: not root (mounting a tmpfs needs it)');
  });
}
