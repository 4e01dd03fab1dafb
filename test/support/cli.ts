import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

/** The compiled CLI entry, started with `node` directly so signals reach it. */
export const CLI = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'cli', 'main.js');

export interface CliResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliOptions {
  readonly env?: Record<string, string | undefined>;
  readonly cwd?: string;
  readonly input?: string;
  readonly timeoutMs?: number;
}

function childEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TICKVAULT_PROGRESS: 'off', TICKVAULT_LOG_LEVEL: 'warn', ...extra };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  return env;
}

/** Starts `tickvault ARGS…` as a child process. */
export function startCli(args: readonly string[], opts: CliOptions = {}): ChildProcess {
  return spawn(process.execPath, [CLI, ...args], { env: childEnv(opts.env), cwd: opts.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
}

/** Runs `tickvault ARGS…` to completion and collects its output. */
export function runCli(args: readonly string[], opts: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = startCli(args, opts);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 300_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin!.end(opts.input ?? '');
  });
}

/** Resolves with the `n`th line (1-based) of the child's stderr or stdout that matches; rejects if it exits first. */
export function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs = 60_000, n = 1): Promise<string> {
  return new Promise((resolve, reject) => {
    let partial = '';
    let seen = 0;
    let tail = '';
    const timer = setTimeout(() => done(new Error(`timed out waiting for line ${n} matching ${pattern} (saw ${seen}); output so far:\n${tail}`)), timeoutMs);
    const onData = (d: Buffer | string) => {
      const text = partial + d.toString();
      tail = (tail + d.toString()).slice(-2000);
      const lines = text.split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        if (pattern.test(line) && ++seen === n) return done(null, line);
      }
    };
    const onExit = (code: number | null) => done(new Error(`process exited (${code}) after ${seen} of ${n} lines matching ${pattern}; output:\n${tail}`));
    function done(err: Error | null, line?: string) {
      clearTimeout(timer);
      child.stderr?.off('data', onData);
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
      if (err) reject(err);
      else resolve(line!);
    }
    child.stderr?.on('data', onData);
    child.stdout?.on('data', onData);
    child.on('exit', onExit);
  });
}

/** Resolves with the exit code once the child has exited. */
export function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}
