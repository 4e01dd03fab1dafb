/**
 * A full disk under batch commands, made for real: a small tmpfs mounted by the test (root),
 * filled, then enlarged with `mount -o remount,size=…`. Each command ends with one line naming
 * the stage, the path and the cause, exit 1, no stack trace; the same command once there is
 * room finishes with the files of a run that never met the fault.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli, type CliResult } from '../support/cli.js';
import { preparedData, REPLAY_NOW } from '../support/server.js';
import { tempDir } from '../support/tempDir.js';
import { isRoot, mountTmpfs, needsRoot } from '../support/tmpfs.js';

const t = suite('a full disk');
const DATA = { days: 2, stocks: 3, indexes: 2, ticks: 0.1 } as const;
const env = { TICKVAULT_NOW: REPLAY_NOW };

const digests = async (dataDir: string) => {
  const r = await runCli(['doctor', '--digests', '--data-dir', dataDir]);
  assert.is(r.code, 0, r.stdout + r.stderr);
  return r.stdout;
};

/** Exit 1, one line on stderr naming the cause, the stage's words and a path under `root`, no stack trace. */
function diskFullLine(r: CliResult, command: string, stage: RegExp, root: string): void {
  assert.is(r.code, 1, `${command}: exit ${r.code}\n${r.stdout}${r.stderr}`);
  const lines = r.stderr.trimEnd().split('\n');
  assert.is(lines.length, 1, `${command}: one line, got:\n${r.stderr}`);
  assert.match(lines[0]!, new RegExp(`^tickvault ${command}: failed: no space left on device while `));
  assert.match(lines[0]!, stage);
  assert.ok(lines[0]!.includes(root), `${command}: the line names a path under ${root}: ${lines[0]}`);
  assert.match(lines[0]!, /run the same command again/);
  assert.not.match(r.stderr, /^\s+at /m);
}

if (!isRoot) {
  needsRoot(t);
} else {
  t('replay on a full disk: one line naming staging and the path; with room, the same command gives the files of a clean run', async () => {
    const { feedFile, dataDir: clean } = await preparedData(DATA);
    const want = await digests(clean);
    const fs = mountTmpfs('3m');
    try {
      const dataDir = join(fs.dir, 'data');
      diskFullLine(await runCli(['replay', feedFile, '--data-dir', dataDir], { env }), 'replay', /while staging rows in /, fs.dir);
      fs.resize('128m');
      const again = await runCli(['replay', feedFile, '--data-dir', dataDir], { env });
      assert.is(again.code, 0, again.stderr);
      assert.is(await digests(dataDir), want);
    } finally {
      fs.unmount();
    }
  });

  t('import on a full disk: the same, for an import of a lake', async () => {
    const { dataDir: clean } = await preparedData(DATA);
    const want = await digests(clean);
    const fs = mountTmpfs('3m');
    try {
      const dataDir = join(fs.dir, 'data');
      const inputs = ['level2', 'index', 'trade', 'order'].map((d) => join(clean, d));
      diskFullLine(await runCli(['import', ...inputs, '--data-dir', dataDir], { env }), 'import', /while (staging rows in|sealing files into) /, fs.dir);
      fs.resize('128m');
      const again = await runCli(['import', ...inputs, '--data-dir', dataDir], { env });
      assert.is(again.code, 0, again.stderr);
      assert.is(await digests(dataDir), want);
    } finally {
      fs.unmount();
    }
  });

  t('restate on a full disk: no version made current; with room, the same command makes it', async () => {
    const { dataDir: clean, feedFile } = await preparedData(DATA);
    void feedFile;
    const fs = mountTmpfs('64m');
    try {
      const dataDir = join(fs.dir, 'data');
      const copy = spawnSync('cp', ['-r', clean, dataDir]);
      assert.is(copy.status, 0);
      const corr = join(tempDir(), 'c.jsonl');
      writeFileSync(corr, `${JSON.stringify({ kind: 'level2', symbol: '600000.SH', tradedate: '20250102', time: '093000123', close: 1.23, volume: 100, amount: 123 })}\n`);
      // The reference: the same restatement where there is room.
      const ref = join(tempDir(), 'ref');
      assert.is(spawnSync('cp', ['-r', clean, ref]).status, 0);
      assert.is((await runCli(['restate', '--dataset', 'level2', '--date', '20250102', corr, '--data-dir', ref], { env })).code, 0);
      const want = await digests(ref);
      // Fill the disk to the last byte.
      const filler = join(fs.dir, 'filler');
      mkdirSync(filler);
      for (let i = 0; ; i++) {
        const r = spawnSync('dd', ['if=/dev/zero', `of=${join(filler, String(i))}`, 'bs=64k', 'count=256'], { stdio: 'ignore' });
        if (r.status !== 0) break;
      }
      diskFullLine(await runCli(['restate', '--dataset', 'level2', '--date', '20250102', corr, '--data-dir', dataDir], { env }), 'restate', /while (opening the data directory at|writing a new version in) /, fs.dir);
      rmSync(filler, { recursive: true, force: true });
      const again = await runCli(['restate', '--dataset', 'level2', '--date', '20250102', corr, '--data-dir', dataDir], { env });
      assert.is(again.code, 0, again.stderr);
      assert.is(await digests(dataDir), want);
    } finally {
      fs.unmount();
    }
  });
}

t.run();
