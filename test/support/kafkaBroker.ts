/**
 * A Kafka broker for tests: `KAFKA_BROKERS` when set, else librdkafka's mock cluster run by
 * Debian's `kcat` (`apt-get install kcat`). The mock auto-creates topics with 4 partitions on
 * first use (createTopics is not supported) and keeps only about 5 MB per partition, so tests
 * produce gzip batches and keep feeds small.
 *
 * Without either, broker tests skip with a line saying why — except under CI=true, where a
 * missing broker is a failure: CI must never pass by skipping them.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';

export interface TestBroker {
  readonly brokers: string;
  /** Whether this is a mock started here (false: an external KAFKA_BROKERS cluster). */
  readonly mock: boolean;
  stop(): Promise<void>;
}

export class BrokerUnavailableError extends Error {
  override name = 'BrokerUnavailableError';
}

const live = new Set<ChildProcess>();
let exitHook = false;

function killOnExit(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (exitHook) return;
  exitHook = true;
  process.on('exit', () => {
    for (const c of live) c.kill('SIGKILL');
  });
}

export function hasKcat(): boolean {
  const r = spawnSync('kcat', ['-V'], { stdio: 'ignore' });
  return r.error === undefined && r.status === 0;
}

/** Starts a fresh single-broker mock cluster; resolves once it prints its address. */
export function startMockBroker(timeoutMs = 15_000): Promise<TestBroker> {
  // kcat needs some client mode to run the mock; a consumer of a keepalive topic serves
  // until killed. `-d mock` makes librdkafka print the bootstrap address on stderr.
  const child = spawn('kcat', ['-b', 'mock:1', '-C', '-t', 'tickvault-keepalive', '-X', 'test.mock.num.brokers=1', '-d', 'mock', '-q'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  killOnExit(child);
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(
      () => fail(new BrokerUnavailableError(`kcat printed no bootstrap address within ${timeoutMs} ms:\n${seen.slice(-1000)}`)),
      timeoutMs,
    );
    const onData = (d: Buffer) => {
      if (seen.length < 100_000) seen += d.toString();
      const m = /bootstrap\.servers=(\S+)/.exec(seen);
      if (!m) return;
      clearTimeout(timer);
      // Keep draining its debug output, or the pipe fills and the broker blocks.
      child.stderr!.off('data', onData);
      child.stderr!.resume();
      resolve({
        brokers: m[1],
        mock: true,
        stop: () => stopChild(child),
      });
    };
    const fail = (e: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(e);
    };
    child.stderr!.on('data', onData);
    child.once('error', (e) => fail(new BrokerUnavailableError(`cannot start kcat: ${e.message}`)));
    child.once('exit', (code) => fail(new BrokerUnavailableError(`kcat exited (${code}) before printing its address:\n${seen.slice(-1000)}`)));
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 3000).unref();
  });
}

/**
 * The broker for a test file, or null (after printing why) when broker tests must skip.
 * Throws under CI=true when no broker can be had.
 */
export async function brokerForTests(what: string): Promise<TestBroker | null> {
  const external = process.env.KAFKA_BROKERS;
  if (external) return { brokers: external, mock: false, stop: async () => undefined };
  if (hasKcat()) return startMockBroker();
  const why = 'neither KAFKA_BROKERS is set nor kcat installed (apt-get install kcat)';
  if (process.env.CI === 'true') throw new BrokerUnavailableError(`${what}: ${why}; CI=true requires the Kafka broker tests to run`);
  console.log(`SKIP ${what}: ${why}`);
  return null;
}

/** A topic-name prefix unique to this run, so tests against a shared KAFKA_BROKERS never collide. */
export function uniqueTopicPrefix(label: string): string {
  return `tv-${label}-${process.pid}-${Date.now().toString(36)}`;
}
