/**
 * `tickvault generate` in a process of its own, timed from spawn to exit (the command a user
 * runs, Node's start included), with the lines it reports and its peak resident set.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { CLI, NOW } from './serverLoad.js';

/** What the feed generator is held to (issue: speed 2, target 1). */
export const GENERATE_TARGET_LINES_PER_S = 200_000;

export interface GenerateFigures {
  readonly lines: number;
  readonly wallS: number;
  readonly peakRss: number;
}

/** Peak resident set of a running child, polled from /proc (Linux; 0 elsewhere). */
export function peakRssWatcher(pid: number | undefined): { stop(): number } {
  let peak = 0;
  const read = () => {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m) peak = Math.max(peak, Number(m[1]) * 1024);
    } catch {
      // gone, or not Linux
    }
  };
  const timer = setInterval(read, 200);
  return { stop: () => (clearInterval(timer), peak) };
}

/** Runs `tickvault generate --out FEED ARGS…`. */
export function generateFeedFile(feed: string, args: readonly string[]): Promise<GenerateFigures> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [CLI, 'generate', '--out', feed, ...args], {
      env: { ...process.env, TICKVAULT_NOW: NOW, TICKVAULT_PROGRESS: 'off' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const rss = peakRssWatcher(child.pid);
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const peakRss = rss.stop();
      const m = /generated (\d+) lines/.exec(out);
      if (code !== 0 || !m) reject(new Error(`generate failed (${code}): ${err.slice(-400)}`));
      else resolve({ lines: Number(m[1]), wallS: (performance.now() - t0) / 1000, peakRss });
    });
  });
}

/** `N lines in S s (R lines/s; target 200,000: X×)`. */
export function generateRate(g: GenerateFigures): string {
  const perS = g.lines / g.wallS;
  return (
    `${Math.round(g.lines).toLocaleString('en-US')} lines in ${g.wallS.toFixed(1)} s (${Math.round(perS).toLocaleString('en-US')} lines/s; ` +
    `target ${GENERATE_TARGET_LINES_PER_S.toLocaleString('en-US')}: ${(perS / GENERATE_TARGET_LINES_PER_S).toFixed(2)}x)`
  );
}
