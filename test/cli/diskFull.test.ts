/**
 * A full or read-only disk under batch commands, made for real: a small tmpfs mounted by the
 * test (root), filled, then enlarged with `mount -o remount,size=…`, or remounted read-only and
 * back. Each command ends with one line naming the stage, the path and the cause, exit 1, no
 * stack trace; nothing half-written is listed; the same command once there is room (or the disk
 * is writable) finishes with the files of a run that never met the fault.
 *
 * A spent quota (EDQUOT) is not made here: this kernel has neither tmpfs quotas nor the quota
 * formats ext4 needs (CONFIG_TMPFS_QUOTA, CONFIG_QFMT_V2); its words are unit-tested
 * (test/ingest/diskFault.test.ts).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { emptyReplayStats, replayFiles } from '../../ingest/feed/replay.js';
import { openIngestStores } from '../../ingest/staging/stores.js';
import { runCli, type CliResult } from '../support/cli.js';
import { digestLines } from '../support/mirror.js';
import { addAccount, DEFAULT_SERVER_NOW, preparedData, REPLAY_NOW, startServer } from '../support/server.js';
import { tempDir } from '../support/tempDir.js';
import { isRoot, mountTmpfs, needsRoot } from '../support/tmpfs.js';

const t = suite('a full disk');
const DATA = { days: 2, stocks: 3, indexes: 2, ticks: 0.1 } as const;
const env = { TICKVAULT_NOW: REPLAY_NOW };
/** The line of each fault, printed at the end for the record. */
const report: Record<string, string> = {};

const digests = async (dataDir: string) => {
  const r = await runCli(['doctor', '--digests', '--data-dir', dataDir]);
  assert.is(r.code, 0, r.stdout + r.stderr);
  return r.stdout;
};

const FULL = 'no space left on device';
const READ_ONLY = 'read-only file system';

/** Exit 1, one line on stderr naming `cause`, the stage's words and a path under `root`, no stack trace; returns the line. */
function faultLine(r: CliResult, command: string, cause: string, stage: RegExp, root: string): string {
  assert.is(r.code, 1, `${command}: exit ${r.code}\n${r.stdout}${r.stderr}`);
  const lines = r.stderr.trimEnd().split('\n');
  assert.is(lines.length, 1, `${command}: one line, got:\n${r.stderr}`);
  assert.ok(lines[0]!.startsWith(`tickvault ${command}: failed: ${cause} while `), lines[0]);
  assert.match(lines[0]!, stage);
  assert.ok(lines[0]!.includes(root), `${command}: the line names a path under ${root}: ${lines[0]}`);
  assert.match(lines[0]!, /run the same command again/);
  assert.not.match(r.stderr, /^\s+at /m);
  return lines[0]!;
}

function diskFullLine(r: CliResult, command: string, stage: RegExp, root: string): string {
  return faultLine(r, command, FULL, stage, root);
}

/** Temp files (`NAME.tmp-PID`) under `dir`, relative. */
function temps(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).filter((p) => /\.tmp-\d+$/.test(p)).sort();
}

/**
 * Stages the feed's rows in `dataDir` without sealing them (the CLI has no such command: a
 * replay seals what it stages, `ingest` needs Kafka), as an ingest process leaves a day
 * before its close; returns the trading days staged.
 */
async function stageOnly(feedFile: string, dataDir: string): Promise<string[]> {
  const stores = openIngestStores(dataDir, () => Date.parse(REPLAY_NOW));
  try {
    const stats = await replayFiles({ staging: stores.staging, catalogDb: stores.layout.catalogDb }, [feedFile], emptyReplayStats());
    return [...new Set([...stats.days].map((d) => d.split('|')[1]!))].sort();
  } finally {
    stores.close();
  }
}

/**
 * What doctor says of a data directory after a fault: no problem and no warning (every listed
 * file whole; what the failed command wrote and did not list, temps included, removed by it);
 * returns its digest lines.
 */
async function nothingHalfListed(dataDir: string): Promise<string[]> {
  const r = await runCli(['doctor', '--data-dir', dataDir]);
  assert.is(r.code, 0, `doctor after the fault:\n${r.stdout}${r.stderr}`);
  assert.match(r.stdout, /^ok: no problems in \d+ files$/m, r.stdout);
  assert.equal(temps(dataDir), [], 'no temp file left');
  const d = await runCli(['doctor', '--digests', '--data-dir', dataDir]);
  assert.is(d.code, 0, d.stderr);
  return d.stdout.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
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
      report.replay = diskFullLine(await runCli(['replay', feedFile, '--data-dir', dataDir], { env }), 'replay', /while staging rows in /, fs.dir);
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
      report.import = diskFullLine(
        await runCli(['import', ...inputs, '--data-dir', dataDir], { env }),
        'import',
        /while (staging rows in|sealing files into) /,
        fs.dir,
      );
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
      writeFileSync(
        corr,
        `${JSON.stringify({ kind: 'level2', symbol: '600000.SH', tradedate: '20250102', time: '093000123', close: 1.23, volume: 100, amount: 123 })}\n`,
      );
      // The reference: the same restatement where there is room.
      const ref = join(tempDir(), 'ref');
      assert.is(spawnSync('cp', ['-r', clean, ref]).status, 0);
      assert.is((await runCli(['restate', '--dataset', 'level2', '--date', '20250102', corr, '--data-dir', ref], { env })).code, 0);
      const want = await digests(ref);
      // Fill the disk to the last byte.
      const unfill = fs.fill(0);
      report.restate = diskFullLine(
        await runCli(['restate', '--dataset', 'level2', '--date', '20250102', corr, '--data-dir', dataDir], { env }),
        'restate',
        /while (opening the data directory at|writing a new version in) /,
        fs.dir,
      );
      unfill();
      const again = await runCli(['restate', '--dataset', 'level2', '--date', '20250102', corr, '--data-dir', dataDir], { env });
      assert.is(again.code, 0, again.stderr);
      assert.is(await digests(dataDir), want);
    } finally {
      fs.unmount();
    }
  });

  t(
    'seal on a full disk, met at several points: one line naming the seal and the file; what is listed is whole; with room, the same command gives the files of a clean run',
    async () => {
      const { feedFile, dataDir: clean } = await preparedData(DATA);
      const want = await digests(clean);
      const fs = mountTmpfs('64m');
      try {
        const dataDir = join(fs.dir, 'data');
        const seal = (day: string) => runCli(['seal', '--date', day, '--data-dir', dataDir], { env });
        // Free space left once the rows are staged: the day's first file, a later one, its row
        // text (sealing frees staged rows as it goes, so a little more room goes much further).
        let faults = 0;
        for (const leave of [256, 1024, 1248]) {
          rmSync(dataDir, { recursive: true, force: true });
          const days = await stageOnly(feedFile, dataDir);
          assert.is(days.length, DATA.days);
          const unfill = fs.fill(leave * 1024);
          const r = await seal(days[0]!);
          if (r.code !== 0 || leave < 1248) {
            const line = diskFullLine(r, 'seal', /while sealing files into /, dataDir);
            faults++;
            // Space freed (doctor itself needs some: SQLite's index beside the catalog).
            unfill();
            const listed = await nothingHalfListed(dataDir);
            for (const l of listed) assert.ok(want.includes(`${l}\n`), `listed after the fault, it is the file a clean run writes: ${l}`);
            report[`seal (${leave} KiB free, ${listed.length} files listed)`] = line;
            const again = await seal(days[0]!);
            assert.is(again.code, 0, again.stderr);
          } else {
            unfill();
          }
          const rest = await seal(days[1]!);
          assert.is(rest.code, 0, rest.stderr);
          assert.is(await digests(dataDir), want);
        }
        assert.ok(faults >= 2);
      } finally {
        fs.unmount();
      }
    },
  );

  t('doctor on a disk full to the last byte: one line naming the cause and what helps (SQLite needs room even to read); with room, it passes', async () => {
    const { dataDir: clean } = await preparedData(DATA);
    const fs = mountTmpfs('64m');
    try {
      const dataDir = join(fs.dir, 'data');
      cpSync(clean, dataDir, { recursive: true, filter: (src) => !/-(shm|wal)$/.test(src) });
      const unfill = fs.fill(0);
      const r = await runCli(['doctor', '--data-dir', dataDir]);
      assert.is(r.code, 1, r.stdout + r.stderr);
      assert.is(r.stdout, '');
      assert.is(
        r.stderr.trimEnd(),
        `tickvault doctor: failed: ${FULL} while opening the data directory at ${dataDir}: SQLite writes an index beside each database even to read it; free some space (or make it writable) and run doctor again`,
      );
      unfill();
      const again = await runCli(['doctor', '--data-dir', dataDir]);
      assert.is(again.code, 0, again.stdout + again.stderr);
      assert.match(again.stdout, /^ok: no problems in \d+ files/m);
    } finally {
      fs.unmount();
    }
  });

  t('replay and import on a read-only disk: one line naming the cause; made writable, the same command gives the files of a clean run', async () => {
    const { feedFile, dataDir: clean } = await preparedData(DATA);
    const want = await digests(clean);
    const fs = mountTmpfs('64m');
    try {
      const dataDir = join(fs.dir, 'data');
      mkdirSync(dataDir);
      fs.remount('ro');
      const replay = (dir: string) => runCli(['replay', feedFile, '--data-dir', dir], { env });
      // An empty data directory there (SQLite says only "unable to open database file")…
      report.replayRo = faultLine(await replay(dataDir), 'replay', READ_ONLY, /while opening the data directory at /, dataDir);
      // …and one not there yet (a recursive mkdir says only ENOENT).
      faultLine(await replay(join(fs.dir, 'absent')), 'replay', READ_ONLY, /while opening the data directory at /, join(fs.dir, 'absent'));
      // An import's open is the same: one line.
      const importDir = join(fs.dir, 'imported');
      const inputs = ['level2', 'index', 'trade', 'order'].map((d) => join(clean, d));
      const runImport = () => runCli(['import', ...inputs, '--data-dir', importDir], { env });
      report.importRo = faultLine(await runImport(), 'import', READ_ONLY, /while opening the data directory at /, importDir);
      // Linux refuses `remount,ro` while a process holds a file there open for writing (a
      // command's databases are open all its run), so a read-only disk is met at the start.
      fs.remount('rw');
      const again = await replay(dataDir);
      assert.is(again.code, 0, again.stderr);
      assert.is(await digests(dataDir), want);
      const imported = await runImport();
      assert.is(imported.code, 0, imported.stderr);
      assert.is(await digests(importDir), want);
    } finally {
      fs.unmount();
    }
  });

  t(
    'seal on a disk made read-only between two seals: one line naming the cause; made writable, the same command finishes the files of a clean run',
    async () => {
      const { feedFile, dataDir: clean } = await preparedData(DATA);
      const want = await digests(clean);
      const fs = mountTmpfs('64m');
      try {
        const dataDir = join(fs.dir, 'data');
        const days = await stageOnly(feedFile, dataDir);
        const seal = (day: string) => runCli(['seal', '--date', day, '--data-dir', dataDir], { env });
        const first = await seal(days[0]!);
        assert.is(first.code, 0, first.stderr);
        // Nothing holds a file open for writing between commands (Linux refuses a busy remount).
        fs.remount('ro');
        report.sealRo = faultLine(await seal(days[1]!), 'seal', READ_ONLY, /while (opening the data directory at|sealing files into) /, fs.dir);
        fs.remount('rw');
        await nothingHalfListed(dataDir);
        const again = await seal(days[1]!);
        assert.is(again.code, 0, again.stderr);
        assert.is(await digests(dataDir), want);
      } finally {
        fs.unmount();
      }
    },
  );

  t("mirror on a read-only and a full disk: one line naming the stage and the path; with room, the same command gives the upstream's files", async () => {
    const { dataDir: upstreamDir } = await preparedData(DATA);
    const days = ['20250102', '20250103'];
    const want = await digestLines(upstreamDir, days);
    const up = await startServer(upstreamDir, { now: DEFAULT_SERVER_NOW });
    const fs = mountTmpfs('3m');
    try {
      const dataDir = join(fs.dir, 'data');
      const key = addAccount(upstreamDir, 'flagship').key;
      const mirror = () =>
        runCli(['mirror', '--upstream', up.url, '--key', key, '--from', days[0]!, '--to', days[1]!, '--data-dir', dataDir], {
          env: { TICKVAULT_NOW: DEFAULT_SERVER_NOW },
        });
      fs.remount('ro');
      report.mirrorRo = faultLine(await mirror(), 'mirror', READ_ONLY, /while opening the data directory at /, dataDir);
      fs.remount('rw');
      report.mirror = diskFullLine(
        await mirror(),
        'mirror',
        /while (opening the data directory at|spooling fetched rows in|staging rows in|sealing files into) /,
        fs.dir,
      );
      fs.resize('128m');
      await nothingHalfListed(dataDir);
      const again = await mirror();
      assert.is(again.code, 0, again.stderr);
      assert.equal(await digestLines(dataDir, days), want);
    } finally {
      fs.unmount();
      await up.stop();
    }
  });
}

t.after(() => {
  // The lines each stage printed, for the record (one per fault).
  for (const [name, line] of Object.entries(report)) console.log(`  ${name}: ${line}`);
});

t.run();
