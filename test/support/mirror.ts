/**
 * Test helpers for `tickvault mirror` end to end: the `doctor --digests` lines of chosen days,
 * JSON log lines of a command or a server, the Nth matching line of a running child, a port
 * with nothing listening, and a loop that keeps an account's level-2 slot busy.
 */
import { createServer, type AddressInfo } from 'node:net';
import { runCli } from './cli.js';
import { pausedDownload, type PausedDownload } from './server.js';

/** One line of a pino JSON log (a command's or a server's stderr). */
export interface JsonLogLine {
  readonly msg?: string;
  readonly level?: number;
  readonly [member: string]: unknown;
}

/** The JSON lines of a log (other lines skipped). */
export function jsonLines(stderr: string): JsonLogLine[] {
  const out: JsonLogLine[] = [];
  for (const line of stderr.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      out.push(JSON.parse(line) as JsonLogLine);
    } catch {
      // a line cut by a SIGKILL
    }
  }
  return out;
}

/** A server's `request` log lines (its stderr at log level info). */
export function requestLines(stderr: string): JsonLogLine[] {
  return jsonLines(stderr).filter((l) => l.msg === 'request');
}

/**
 * The `doctor --digests` file lines of `dataDir` (summary dropped) whose path is of one of
 * `days` (and one of `datasets` when given). Throws when doctor fails.
 */
export async function digestLines(dataDir: string, days: readonly string[], datasets?: readonly string[]): Promise<string[]> {
  const r = await runCli(['doctor', '--digests', '--data-dir', dataDir]);
  if (r.code !== 0) throw new Error(`doctor --digests on ${dataDir} exited ${r.code}: ${r.stderr}`);
  return r.stdout
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#'))
    .filter((l) => {
      const path = l.split('  ')[3] ?? '';
      const [dataset, folder] = path.split('/');
      return days.some((d) => folder === `date=${d}`) && (!datasets || datasets.includes(dataset));
    });
}


/** A loopback port that nothing listens on (bound, then closed). */
export async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

export interface SlotHolder {
  /** Stops the loop; resolves with the HTTP status of each of its requests. */
  stop(): Promise<number[]>;
}

const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));

export interface HoldOptions {
  /** Longest a download is held. */
  readonly holdMs?: number;
  /** Time between one download dropped and the next asked. */
  readonly gapMs?: number;
  /** Checked every 20 ms while held, with the statuses of the holder's own requests so far: when true, the download is dropped before `holdMs`. */
  readonly releaseWhen?: (own: readonly number[]) => boolean;
}

/**
 * Another client of the same account: a loop of Parquet downloads of a large file, each
 * paused after the response head (the account's slot on that interface stays held) until
 * `releaseWhen` or `holdMs`, then dropped, `gapMs` apart.
 */
export function holdSlotLoop(
  server: { readonly port: number }, key: string, params: Record<string, unknown>, opts: HoldOptions = {},
): SlotHolder {
  const { holdMs = 1500, gapMs = 300, releaseWhen = () => false } = opts;
  const statuses: number[] = [];
  let stopping = false;
  const loop = (async () => {
    while (!stopping) {
      let held: PausedDownload | null = null;
      try {
        held = await pausedDownload(server, key, params);
        statuses.push(Number(/^HTTP\/1\.1 (\d{3})/.exec(held.head)?.[1] ?? 0));
        if (statuses[statuses.length - 1] === 200) {
          const until = Date.now() + holdMs;
          while (Date.now() < until && !stopping && !releaseWhen(statuses)) await sleep(20);
        }
      } finally {
        held?.socket.destroy();
      }
      await sleep(gapMs);
    }
  })();
  return {
    async stop() {
      stopping = true;
      await loop;
      return statuses;
    },
  };
}
