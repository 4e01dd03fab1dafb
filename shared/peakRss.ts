/**
 * The process's peak resident memory, for the figures commands report. Linux keeps
 * getrusage()'s ru_maxrss across fork and exec: a command started by a process that was big
 * at the time (a bench holding DuckDB's buffers) reports its parent's peak, measured 2.7 GiB
 * for an import whose own peak was 0.5 GiB. /proc/self/status's VmHWM is this process's own
 * high-water mark (threads share it); elsewhere ru_maxrss is all there is.
 */
import { readFileSync } from 'node:fs';

export function peakRssBytes(): number {
  try {
    const m = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return Number(m[1]) * 1024;
  } catch {
    // not Linux
  }
  return process.resourceUsage().maxRSS * 1024;
}
