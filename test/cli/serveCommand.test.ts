import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { tempDir } from '../support/tempDir.js';

const root = tempDir('tickvault-serve-cli-');

/** Exit `code`, nothing on stdout, one line on stderr without a stack trace; returns the line. */
function oneLineFailure(r: { code: number | null; stdout: string; stderr: string }, code: number): string {
  assert.is(r.code, code, r.stderr);
  assert.is(r.stdout, '');
  const line = r.stderr.replace(/\n$/, '');
  assert.not.ok(line.includes('\n'), `one line, got:\n${r.stderr}`);
  assert.not.match(line, /\bat .*\.js:\d+|EADDRINUSE/);
  return line;
}

const serve = suite('tickvault serve: refusals');

serve('a missing --data-dir is refused with one line (exit 2) and not created', async () => {
  const missing = join(root, 'does', 'not', 'exist');
  const r = await runCli(['serve', '--port', '0', '--data-dir', missing]);
  assert.match(oneLineFailure(r, 2), /data directory not found: .*does\/not\/exist/);
  assert.not.ok(existsSync(join(root, 'does')));
});

serve('a busy port: one line naming the port and --port (exit 1)', async () => {
  const data = join(root, 'data');
  mkdirSync(data);
  const busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  const port = (busy.address() as AddressInfo).port;
  try {
    const r = await runCli(['serve', '--port', String(port), '--data-dir', data]);
    const line = oneLineFailure(r, 1);
    assert.match(line, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use.*--port`));
  } finally {
    busy.close();
  }
});

serve.run();
