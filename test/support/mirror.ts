/**
 * Test helpers for `tickvault mirror` end to end: the `doctor --digests` lines of chosen days,
 * JSON log lines of a command or a server, the Nth matching line of a running child, a port
 * with nothing listening, and a loop that keeps an account's level-2 slot busy.
 */
import { createServer, type AddressInfo } from 'node:net';
import { runCli } from './cli.js';
import { answerOrOutcome, type Outcome } from './load.js';
import { httpRequest, pausedDownload } from './server.js';

const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));

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

/** A server's `request` log lines (its stderr at log level info), settledLogs' markers left out. */
export function requestLines(stderr: string): JsonLogLine[] {
  return jsonLines(stderr).filter((l) => l.msg === 'request' && !String(l.error ?? '').includes(MARK));
}

/** Names the body member of settledLogs' marker requests. */
const MARK = 'settled_log_mark_';
let marks = 0;

/**
 * The server's log (stderr at level info) once every request answered before the call has its
 * `request` line in it. The server writes a request's line when its answer has been sent, in
 * order on one stream; so a marker request (a body member no server knows: a 400 naming it) is
 * sent and its own line waited for. Use it instead of a fixed wait before reading what a
 * finished client asked, which a busy machine can outlast.
 */
export async function settledLogs(server: { readonly url: string; logs(): string }, timeoutMs = 60_000): Promise<string> {
  const mark = `${MARK}${process.pid}_${++marks}`;
  const r = await httpRequest(`${server.url}/api`, { body: JSON.stringify({ [mark]: 1 }), headers: { 'content-type': 'application/json' } });
  if (r.status !== 400) throw new Error(`the log marker got ${r.status}: ${r.text.slice(0, 200)}`);
  const deadline = Date.now() + timeoutMs;
  while (!server.logs().includes(mark)) {
    if (Date.now() > deadline)
      throw new Error(`the server did not log the marker request in ${timeoutMs / 1000} s; its log ends:\n${server.logs().slice(-2000)}`);
    await sleep(20);
  }
  return server.logs();
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
  /**
   * Resolves with the outcome of the first download once its response head is in (the slot is
   * then held on a 200): wait on it rather than for a fixed time before the client it should
   * be ahead of starts.
   */
  first(): Promise<Outcome>;
  /**
   * Stops the loop; resolves with the outcome of each of its requests (the HTTP status, or
   * `reset` / `refused`); rejects with any other error the loop met.
   */
  stop(): Promise<Outcome[]>;
}

export interface HoldOptions {
  /** Longest a download is held. */
  readonly holdMs?: number;
  /** Time between one download dropped and the next asked. */
  readonly gapMs?: number;
  /** Checked every 20 ms while held, with the outcomes of the holder's own requests so far: when true, the download is dropped before `holdMs`. */
  readonly releaseWhen?: (own: readonly Outcome[]) => boolean;
}

/**
 * Another client of the same account: a loop of Parquet downloads of a large file, each
 * paused after the response head (the account's slot on that interface stays held) until
 * `releaseWhen` or `holdMs`, then dropped, `gapMs` apart. A connection reset or refused is
 * an outcome it records, not an error that ends the test file.
 */
export function holdSlotLoop(server: { readonly port: number }, key: string, params: Record<string, unknown>, opts: HoldOptions = {}): SlotHolder {
  const { holdMs = 1500, gapMs = 300, releaseWhen = () => false } = opts;
  const outcomes: Outcome[] = [];
  let stopping = false;
  let firstSeen: (o: Outcome) => void = () => undefined;
  const first = new Promise<Outcome>((resolve) => (firstSeen = resolve));
  const loop = (async () => {
    while (!stopping) {
      const held = await answerOrOutcome(pausedDownload(server, key, params));
      try {
        const outcome = typeof held === 'string' ? held : Number(/^HTTP\/1\.1 (\d{3})/.exec(held.head)?.[1] ?? 0);
        outcomes.push(outcome);
        firstSeen(outcome);
        if (outcome === 200) {
          const until = Date.now() + holdMs;
          while (Date.now() < until && !stopping && !releaseWhen(outcomes)) await sleep(20);
        }
      } finally {
        if (typeof held !== 'string') held.socket.destroy();
      }
      await sleep(gapMs);
    }
  })();
  // Handled at once: an error of the loop (a bug, not a connection outcome) is stop()'s to
  // report; left unhandled until then it would end the test file.
  const ended = loop.then(
    () => null,
    (e: unknown) => ({ error: e }),
  );
  return {
    // A loop that failed before its first outcome would leave it waiting: it rejects instead.
    first: () => Promise.race([first, ended.then((f) => (f ? Promise.reject(f.error) : first))]),
    async stop() {
      stopping = true;
      const failed = await ended;
      if (failed) throw failed.error;
      return outcomes;
    },
  };
}
