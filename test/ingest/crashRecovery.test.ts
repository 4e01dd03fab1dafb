/**
 * SIGKILL a replay at several points, recover (replay again, or seal), and check that the
 * result is exactly what the feed says: nothing lost, nothing duplicated, and the quarantine
 * holds what two passes over the feed should have put there.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Database from 'better-sqlite3';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exited, runCli, startCli, waitForLine } from '../support/cli.js';
import { readCatalog } from '../support/catalog.js';
import { tempDir } from '../support/tempDir.js';
import {
  assertDataDirMatches,
  catalogFiles,
  expectedFromLines,
  feedFileLines,
  fileKey,
  filesOnDisk,
  quarantine,
  sha256,
  type Expected,
} from './feed/replayReference.js';

const root = tempDir('tickvault-crash-');
const FEED = join(root, 'crash-feed.jsonl.zst');
const DAYS = ['20250102', '20250103'];

async function cli(args: string[], env?: Record<string, string>): Promise<string> {
  const r = await runCli(args, { env });
  if (r.code !== 0) assert.unreachable(`tickvault ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return r.stdout;
}

await cli([
  'generate',
  '--out',
  FEED,
  '--from',
  DAYS[0],
  '--days',
  '2',
  '--stocks',
  '2',
  '--indexes',
  '2',
  '--faults',
  '0.01',
  '--seed',
  'crash',
  '--ticks',
  '1',
]);
const EXP: Expected = expectedFromLines(feedFileLines(FEED));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let dirNo = 0;
const freshDataDir = () => {
  const d = join(root, `data-${++dirNo}`);
  mkdirSync(d, { recursive: true });
  return d;
};

/** Polls `cond` every 2 ms until it holds; fails if the child exits first or time runs out. */
async function until(child: ChildProcess, what: string, cond: () => boolean, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    let ok = false;
    try {
      ok = cond();
    } catch {
      ok = false; // the database may not exist yet
    }
    if (ok) return;
    if (child.exitCode !== null || child.signalCode !== null) assert.unreachable(`replay exited (${child.exitCode}) before ${what}`);
    if (Date.now() > end) assert.unreachable(`timed out waiting for ${what}`);
    await sleep(2);
  }
}

async function kill(child: ChildProcess): Promise<void> {
  child.kill('SIGKILL');
  const e = await exited(child);
  assert.is(e.signal, 'SIGKILL', 'the replay was killed, not finished');
}

function count(dbPath: string, sql: string): number {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).pluck().get() as number;
  } finally {
    db.close();
  }
}

const parquetFiles = (data: string) => filesOnDisk(data).filter((p) => p.endsWith('.parquet'));
const listedKeys = (data: string) =>
  new Set(existsSync(join(data, 'catalog.db')) ? catalogFiles(data).map((r) => fileKey(r.dataset, r.tradedate, r.symbol)) : []);

/**
 * The quarantine after a crash and recovery. `badPasses`: how many times each bad line may
 * appear (two full passes: [2, 2]; a killed pass plus a full one: [1, 2]). `listed`: the
 * symbol-days that had a file when the recovery replay ran: each of their good lines appears
 * exactly once as late, and no other good line does.
 */
function assertQuarantine(data: string, badPasses: [number, number], listed: Set<string>, what: string): void {
  const q = quarantine(data);
  const prefix = `${FEED}:`;
  const bad = new Map<number, number>();
  const late = new Map<number, number>();
  for (const r of q) {
    assert.ok(r.source.startsWith(prefix), `${what}: source ${r.source}`);
    const n = Number(r.source.slice(prefix.length));
    assert.is(r.raw, EXP.lines[n - 1], `${what}: raw text of ${r.source}`);
    if (/late/i.test(r.reason)) late.set(n, (late.get(n) ?? 0) + 1);
    else bad.set(n, (bad.get(n) ?? 0) + 1);
  }
  assert.equal(
    [...bad.keys()].sort((a, b) => a - b),
    EXP.badLines,
    `${what}: every bad line, and only bad lines, quarantined as bad`,
  );
  for (const [n, c] of bad) assert.ok(c >= badPasses[0] && c <= badPasses[1], `${what}: line ${n} quarantined ${c} times`);
  const wantLate = [...EXP.goodLines].filter(([, key]) => listed.has(key)).map(([n]) => n);
  assert.equal(
    [...late.keys()].sort((a, b) => a - b),
    wantLate,
    `${what}: late lines are exactly the good lines of already-listed files`,
  );
  for (const [n, c] of late) assert.is(c, 1, `${what}: line ${n} late ${c} times`);
}

/** Starts a replay into a fresh data directory and SIGKILLs it once `cond(data)` holds; returns the directory. */
async function replayKilledWhen(what: string, cond: (data: string) => boolean): Promise<string> {
  const data = freshDataDir();
  const child = startCli(['replay', FEED, '--data-dir', data]);
  await until(child, what, () => cond(data));
  await kill(child);
  return data;
}

/** Replays the feed again over a killed replay's directory: the files are exactly the feed's, the quarantine as assertQuarantine says. */
async function replayAgainMatches(data: string, badPasses: [number, number], listed: Set<string>, what: string): Promise<void> {
  await cli(['replay', FEED, '--data-dir', data]);
  await assertDataDirMatches(data, EXP, what);
  assertQuarantine(data, badPasses, listed, what);
}

// ---------------------------------------------------------------------------------------------
const crash = suite('crash recovery: SIGKILL a replay, replay again');

crash('killed partway through staging', async () => {
  // the first committed batch: quarantine rows exist, nothing sealed yet
  const data = await replayKilledWhen('the first staged batch', (d) => count(join(d, 'ingest.db'), 'SELECT count(*) FROM quarantine') > 0);
  const staged = count(join(data, 'ingest.db'), 'SELECT count(*) FROM quarantine');
  assert.ok(staged < EXP.badLines.length, `killed partway (${staged} of ${EXP.badLines.length} bad lines seen)`);
  assert.equal(parquetFiles(data), [], 'no file written yet');
  const listed = listedKeys(data);
  assert.is(listed.size, 0);
  await replayAgainMatches(data, [1, 2], listed, 'after staging crash');
});

crash('killed as soon as the first .parquet appears', async () => {
  const data = await replayKilledWhen('the first .parquet', (d) => parquetFiles(d).length > 0);
  const listed = listedKeys(data);
  const sealed = readCatalog(data, (c) => c.sealedDays().length, 0);
  assert.ok(sealed < 4, 'killed before every day was sealed');
  await replayAgainMatches(data, [2, 2], listed, 'after first-file crash');
});

crash('killed once the catalog lists files but before every day is sealed', async () => {
  const data = await replayKilledWhen('a listed file', (d) => readCatalog(d, (c) => c.fileCount(), 0) > 0);
  const listed = listedKeys(data);
  assert.ok(listed.size > 0);
  assert.ok(listed.size < EXP.files.size, 'killed before every file was listed');
  await replayAgainMatches(data, [2, 2], listed, 'after mid-seal crash');
});

crash('killed after the first "day sealed" log line', async () => {
  const data = freshDataDir();
  const child = startCli(['replay', FEED, '--data-dir', data], { env: { TICKVAULT_LOG_LEVEL: 'info' } });
  await waitForLine(child, /day sealed/);
  child.kill('SIGKILL');
  await exited(child);
  const listed = listedKeys(data);
  const listedPaths = catalogFiles(data).map((r) => r.path);
  const before = new Map(listedPaths.map((p) => [p, sha256(join(data, p))]));
  // 'day sealed' is logged once every day is sealed, so the kill may come after all the work:
  // then the replay again has nothing to stage or seal and says so with exit 1.
  const again = await runCli(['replay', FEED, '--data-dir', data]);
  if (again.code !== 0) assert.match(again.stderr, /nothing staged: .*late: their days were already sealed/, `exit ${again.code}`);
  await assertDataDirMatches(data, EXP, 'after day-sealed crash');
  assertQuarantine(data, [2, 2], listed, 'after day-sealed crash');
  for (const [p, h] of before) assert.is(sha256(join(data, p)), h, `listed file ${p} unchanged`);
});

// ---------------------------------------------------------------------------------------------
const sealAfter = suite('crash recovery: SIGKILL during sealing, then `seal --date`');

sealAfter('every staged row reaches its file; nothing quarantined twice', async () => {
  const data = await replayKilledWhen('the first .parquet', (d) => parquetFiles(d).length > 0);
  for (const d of DAYS) await cli(['seal', '--date', d, '--data-dir', data]);
  await assertDataDirMatches(data, EXP, 'after seal --date');
  assertQuarantine(data, [1, 1], new Set(), 'after seal --date');
  // nothing is left staged for the sealed days
  assert.is(count(join(data, 'ingest.db'), 'SELECT count(*) FROM open_symbols'), 0);
});

// ---------------------------------------------------------------------------------------------
const states = suite('crash recovery: states a crash can leave between the sealing steps');

states('files listed but the day not yet marked sealed: replaying again marks it sealed', async () => {
  // sealDay (seal/day.ts) records a bucket's files, drops their staged rows, and only after the last bucket
  // marks the day sealed. A kill between the last two steps leaves this state.
  const data = freshDataDir();
  await cli(['replay', FEED, '--data-dir', data]);
  // Raw SQL on purpose: this builds a state the catalog's writer never leaves on its own.
  const db = new Database(join(data, 'catalog.db'));
  db.prepare("DELETE FROM sealed_days WHERE dataset = 'level2' AND tradedate = ?").run(DAYS[0]);
  db.close();
  await cli(['replay', FEED, '--data-dir', data]);
  await assertDataDirMatches(data, EXP, 'after a crash before the day was marked sealed');
});

states('a temporary file left by a crash mid-write is cleaned up by the next seal', async () => {
  const data = freshDataDir();
  // what `write NAME.tmp-PID` leaves when a seal dies before the rename (PID above pid_max)
  for (const d of DAYS) {
    const dir = join(data, 'level2', `date=${d}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, '600000.SH.parquet.tmp-4194999'), Buffer.alloc(1000, 7));
  }
  await cli(['replay', FEED, '--data-dir', data]);
  await assertDataDirMatches(data, EXP, 'after a crash mid-write');
  assert.equal(
    filesOnDisk(data).filter((p) => p.includes('.tmp-')),
    [],
    'no temporary files remain',
  );
});

crash.run();
sealAfter.run();
states.run();
