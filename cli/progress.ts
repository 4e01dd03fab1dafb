import cliProgress from 'cli-progress';

/**
 * A progress bar on stderr for long work, or nothing at all when disabled (not a TTY):
 * logs and pipes stay clean.
 */
export interface Progress {
  update(done: number, total?: number): void;
  stop(): void;
}

const silent: Progress = { update() {}, stop() {} };

export function createProgress(enabled: boolean, label: string, total: number, unit = 'rows'): Progress {
  if (!enabled) return silent;
  const bar = new cliProgress.SingleBar(
    {
      format: `${label.padEnd(10)} [{bar}] {percentage}% | {value}/{total} ${unit} | {eta_formatted} left`,
      stream: process.stderr,
      hideCursor: true,
      etaBuffer: 50,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0);
  return {
    update(done, newTotal) {
      if (newTotal !== undefined) bar.setTotal(newTotal);
      bar.update(done);
    },
    stop() {
      bar.stop();
    },
  };
}
