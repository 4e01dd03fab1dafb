import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { CLI, runCli } from '../support/cli.js';
import { commandOnPath } from '../support/commandOnPath.js';
import { feedFileLines } from '../ingest/feed/replayReference.js';
import { screenOf } from '../support/terminalScreen.js';
import { tempDir } from '../support/tempDir.js';

const root = tempDir('tickvault-progress-');
const feed = join(root, 'feed.jsonl.zst');
let n = 0;

/** util-linux `script` gives the command a pseudo-terminal, as an operator's shell would. */
const hasScript = () => commandOnPath('script');

/** Runs `tickvault ARGS` on a terminal (stdout and stderr both on it); resolves with the raw output. */
function onTerminal(args: string[], env: Record<string, string | undefined>): Promise<string> {
  const cmd = [process.execPath, CLI, ...args].map((a) => `'${a}'`).join(' ');
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env, COLUMNS: '200', LINES: '50' };
  for (const k of Object.keys(childEnv)) if (childEnv[k] === undefined) delete childEnv[k];
  return new Promise((resolve, reject) => {
    execFile('script', ['-qec', cmd, '/dev/null'], { env: childEnv, maxBuffer: 1 << 26 }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
  });
}

const bars = suite('progress bars on a terminal');

bars.before(async () => {
  const r = await runCli(['generate', '--out', feed, '--from', '20250102', '--days', '1', '--stocks', '3', '--indexes', '1', '--ticks', '0']);
  assert.is(r.code, 0, r.stderr);
});

bars('log lines written during a bar stand on their own lines; the summary is the last line, alone', async () => {
  if (!hasScript()) return console.log('  (skipped: no `script` command for a pseudo-terminal)');
  // debug level: 'feed replayed' is logged between the replay bar's draws
  const raw = await onTerminal(['replay', feed, '--data-dir', join(root, `d${++n}`), '--log-level', 'debug', '--progress', 'on'], {
    TICKVAULT_LOG_LEVEL: undefined,
    TICKVAULT_PROGRESS: undefined,
  });
  const screen = screenOf(raw).filter((l) => l !== '');
  assert.ok(
    screen.some((l) => l.startsWith('replay ')),
    `a replay bar was drawn:\n${screen.join('\n')}`,
  );
  for (const l of screen.filter((x) => x.includes('{'))) {
    assert.ok(l.startsWith('{') && JSON.parse(l), `a whole JSON log line, got: ${l}`);
  }
  assert.ok(
    screen.some((l) => l.startsWith('{') && l.includes('"feed replayed"')),
    screen.join('\n'),
  );
  // Every line of the generated feed (no faults) is staged and sealed: counted from the file itself.
  const lines = feedFileLines(feed).length;
  assert.ok(lines > 15_000, `${lines} lines`);
  assert.ok(
    screen[screen.length - 1]!.startsWith(
      `replayed ${lines} lines: ${lines} staged, 0 quarantined (0 late); sealed 2 dataset-days, 4 files, ${lines} rows in `,
    ),
    screen[screen.length - 1],
  );
});

bars('at the default log level the summary is printed once, not repeated as a JSON line', async () => {
  if (!hasScript()) return;
  const raw = await onTerminal(['replay', feed, '--data-dir', join(root, `d${++n}`), '--progress', 'on'], {
    TICKVAULT_LOG_LEVEL: undefined,
    TICKVAULT_PROGRESS: undefined,
  });
  const screen = screenOf(raw).filter((l) => l !== '');
  assert.is(screen.filter((l) => /replay(ed| finished)/.test(l) && !l.startsWith('replay ')).length, 1, screen.join('\n'));
  assert.not.ok(raw.includes('"replay finished"'));
});

bars.run();
