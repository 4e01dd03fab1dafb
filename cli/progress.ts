/**
 * A progress bar on stderr for long work, or nothing at all when disabled (not a TTY):
 * logs and pipes stay clean.
 *
 * Log lines written while a bar is drawn go above it (through `stderrAboveBar`), never glued to
 * the end of the bar's line. The bar is a cli-progress MultiBar of one bar because its SingleBar
 * saves the cursor position at start and restores it at stop: once log lines have scrolled the
 * terminal, that restored position is an old line, and the summary printed next lands on top of
 * earlier output. MultiBar moves relative to the bar instead and prints logs above it.
 */
import cliProgress from 'cli-progress';

export interface Progress {
  /** `rows`: rows done so far, for a bar counting bytes that also shows rows and rows/s. */
  update(done: number, total?: number, rows?: number, counters?: Readonly<Record<string, number>>): void;
  stop(): void;
}

export interface ProgressOptions {
  /** Show rows and rows/s beside the unit (the caller passes rows to update()). */
  readonly rows?: boolean;
  /** Counts shown after the rows, each as `N name` (the caller passes them to update()). */
  readonly counters?: readonly string[];
}

const silent: Progress = { update() {}, stop() {} };

/** The bar on screen, if any: log writes go through it. */
let active: cliProgress.MultiBar | null = null;

/** A pino destination for stderr that keeps log lines and a live progress bar apart. */
export const stderrAboveBar = {
  write(line: string): void {
    if (active === null) {
      process.stderr.write(line);
      return;
    }
    active.log(line);
    active.update(); // print now: a buffered line would be lost if the process ended first
  },
};

export function createProgress(enabled: boolean, label: string, total: number, unit = 'rows', opts: ProgressOptions = {}): Progress {
  if (!enabled) return silent;
  const started = Date.now();
  const rowsPart = opts.rows ? ' | {rows} rows, {rate} rows/s' : '';
  const counters = opts.counters ?? [];
  const countersPart = counters.length === 0 ? '' : ` | ${counters.map((c) => `{${c}} ${c}`).join(', ')}`;
  const multi = new cliProgress.MultiBar(
    {
      format: `${label.padEnd(10)} [{bar}] {percentage}% | {value}/{total} ${unit}${rowsPart}${countersPart} | {eta_formatted} left`,
      stream: process.stderr,
      hideCursor: true,
      etaBuffer: 50,
      // A log line printed above the bar takes the bar's line; it must be drawn again below.
      forceRedraw: true,
    },
    cliProgress.Presets.shades_classic,
  );
  const bar = multi.create(total, 0, { rows: 0, rate: 0, ...Object.fromEntries(counters.map((c) => [c, 0])) });
  active = multi;
  let stopped = false;
  return {
    update(done, newTotal, rows, counts) {
      if (newTotal !== undefined) bar.setTotal(newTotal);
      const shown = counts === undefined ? {} : Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, v.toLocaleString('en-US')]));
      if (rows === undefined) {
        bar.update(done, shown);
        return;
      }
      const secs = Math.max((Date.now() - started) / 1000, 0.001);
      bar.update(done, { rows: rows.toLocaleString('en-US'), rate: Math.round(rows / secs).toLocaleString('en-US'), ...shown });
    },
    stop() {
      if (stopped) return;
      stopped = true;
      multi.update(); // flush logs waiting above the bar, draw its final state
      multi.stop();
      if (active === multi) active = null;
    },
  };
}
