/**
 * The Python client (clients/python): its pytest suite, run against a real `tickvault serve`
 * that the tests start on a lake they generate and replay with this build's CLI. Debian's
 * Python 3.11 with python3-httpx, python3-pandas, python3-pytest and python3-setuptools
 * (.ci/run installs them); without them the test skips with the reason, except under
 * CI=true, where that is a failure.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLI } from '../support/cli.js';

const test = suite('python client');
/** dist/test/clients (or another build folder's test/clients) → the repository. */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/** Debian's interpreter, where its python3-* packages are (a pyenv `python3` first on PATH lacks them). */
const PYTHON = process.env.TICKVAULT_TEST_PYTHON ?? '/usr/bin/python3';
const MODULES = ['httpx', 'pandas', 'pytest', 'setuptools'];

/** Why the suite cannot run here, or null when it can. */
function missing(): string | null {
  if (!existsSync(PYTHON)) return `${PYTHON} not found`;
  const r = spawnSync(PYTHON, ['-c', `import ${MODULES.join(', ')}`], { encoding: 'utf8' });
  if (r.status !== 0) {
    return `${PYTHON} lacks ${MODULES.join('/')} (apt-get install python3-httpx python3-pandas python3-pytest python3-setuptools): ${(r.stderr.trim().split('\n').pop() ?? '').slice(0, 200)}`;
  }
  return null;
}

function pytest(): Promise<{ code: number | null; out: string; seconds: number }> {
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'clients/python/tests'], {
      cwd: ROOT,
      env: { ...process.env, TICKVAULT_CLI: CLI, TICKVAULT_NODE: process.execPath, PYTHONDONTWRITEBYTECODE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 10 * 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, seconds: (Date.now() - t0) / 1000 });
    });
  });
}

const why = missing();
if (why !== null && process.env.CI !== 'true') {
  console.log(`  (skipped: ${why})`);
} else {
  test('pytest clients/python/tests passes against a real server', async () => {
    if (why !== null) throw new Error(`${why}; CI=true requires the Python client tests to run`);
    assert.ok(existsSync(CLI), `${CLI} not built`);
    const r = await pytest();
    const summary = r.out.trim().split('\n').pop() ?? '';
    assert.is(r.code, 0, `pytest exited ${r.code}:\n${r.out.slice(-8000)}`);
    assert.not.match(r.out, /no tests ran/);
    const passed = Number(/(\d+) passed/.exec(summary)?.[1] ?? 0);
    assert.ok(passed > 0, `no test passed: ${summary}`);
    assert.not.match(summary, /failed|error/);
    console.log(`  pytest: ${summary} (${r.seconds.toFixed(1)} s)`);
  });
}

test.run();
