/**
 * `tickvault offload --before DAY` against a real S3 store (OpenStack Swift with s3api, started
 * here): the local copies of days wholly stored go once a HEAD of each object answers what the
 * catalog recorded, and the day before the date stays; `days` says `stored`, doctor passes and
 * its digest list is the one from before; a day not wholly stored, an object missing from the
 * bucket, or a store that is down removes nothing; a run after a crash between a day's mark and
 * its deletes finishes them; a backup of the offloaded lake leaves those files to the bucket.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DeleteObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { runCli } from '../../support/cli.js';
import { REPLAY_NOW } from '../../support/server.js';
import { s3ClientFor, swiftForTests, type TestSwift } from '../../support/swift.js';
import { tempDir } from '../../support/tempDir.js';

const BUCKET = 'tvoff';
const STORE = `s3://${BUCKET}/lake`;
const env = { TICKVAULT_NOW: REPLAY_NOW };
const DAYS = ['20250102', '20250103', '20250106'];

let swift: TestSwift | null = null;
let s3: S3Client;
let root = '';
let dataDir = '';
let digestsBefore = '';

/** The catalog's listed files of a day (files, versions, boundary parts, bars), by its own SQL. */
function listedOf(day: string): { path: string; sha256: string }[] {
  const db = new Database(join(dataDir, 'catalog.db'), { readonly: true });
  try {
    return db
      .prepare(
        `SELECT path, sha256 FROM files WHERE tradedate = @d UNION SELECT path, sha256 FROM file_versions WHERE tradedate = @d
         UNION SELECT path, sha256 FROM boundary_parts WHERE tradedate = @d
         UNION SELECT minute_path, minute_sha256 FROM bar_days WHERE tradedate = @d AND minute_path IS NOT NULL
         UNION SELECT daily_path, daily_sha256 FROM bar_days WHERE tradedate = @d AND daily_path IS NOT NULL`,
      )
      .all({ d: day }) as { path: string; sha256: string }[];
  } finally {
    db.close();
  }
}

/** Every file and folder under the data directory that belongs to `day` (a `date=DAY` folder anywhere). */
function localOf(day: string, dir = dataDir): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).filter((p) => p.includes(`date=${day}`)).sort();
}

function sql(statements: string): void {
  const db = new Database(join(dataDir, 'catalog.db'));
  try {
    db.exec(statements);
  } finally {
    db.close();
  }
}

const cli = (args: readonly string[]) => runCli([...args, '--data-dir', dataDir], { env: { ...env, ...swift!.env } });
const offload = (before: string) => cli(['offload', '--before', before, '--store', STORE]);

async function whereOfDays(): Promise<string[]> {
  const r = await cli(['days', '--dataset', 'level2', '--from', DAYS[0]!, '--to', DAYS[2]!, '--json']);
  assert.is(r.code, 0, r.stderr);
  return r.stdout
    .trim()
    .split('\n')
    .map((l) => {
      const d = JSON.parse(l) as { day: string; where: string };
      return `${d.day} ${d.where}`;
    });
}

const test = suite('offload: local copies of days wholly in a real S3 store (Swift s3api) removed');

test.before(async () => {
  swift = await swiftForTests('store offload');
  if (!swift) return;
  await swift.createBucket(BUCKET);
  s3 = s3ClientFor(swift);
  root = tempDir('tickvault-offload-');
  dataDir = join(root, 'data');
  const feed = join(root, 'feed.jsonl');
  const gen = await runCli(['generate', '--out', feed, '--from', DAYS[0]!, '--days', '3', '--stocks', '3', '--indexes', '1', '--ticks', '1'], { env });
  assert.is(gen.code, 0, gen.stderr);
  const rep = await runCli(['replay', feed, '--data-dir', dataDir], { env });
  assert.is(rep.code, 0, rep.stderr);
});

test.after(async () => {
  s3?.destroy();
  await swift?.stop();
});

test('stored, then offloaded before the last day: those days leave the disk, the last stays; days says stored; doctor and its digests agree', async () => {
  if (!swift) return;
  const up = await cli(['upload', '--store', STORE]);
  assert.is(up.code, 0, up.stderr);
  const digests = await cli(['doctor', '--digests']);
  assert.is(digests.code, 0, digests.stderr);
  digestsBefore = digests.stdout.trimEnd().split('\n').pop()!;
  assert.ok(
    localOf(DAYS[0]!).some((p) => p.startsWith('_rowtext/')),
    'row text of the first day before',
  );

  const r = await offload(DAYS[2]!);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^offloaded 2 days before 20250106: \d+ files, \d+\.\d MiB freed; 0 days not offloaded\n$/);
  const files = Number(/: (\d+) files/.exec(r.stdout)![1]);
  assert.ok(files >= listedOf(DAYS[0]!).length + listedOf(DAYS[1]!).length, `${files} files removed`);
  for (const day of DAYS.slice(0, 2)) assert.equal(localOf(day), [], `nothing of ${day} left, folders included`);
  for (const f of listedOf(DAYS[2]!)) assert.ok(existsSync(join(dataDir, f.path)), `${f.path} stays`);
  assert.equal(await whereOfDays(), ['20250102 stored', '20250103 stored', '20250106 both']);

  const doctor = await cli(['doctor']);
  assert.is(doctor.code, 0, doctor.stdout + doctor.stderr);
  assert.match(doctor.stdout, /^store: 2 days offloaded to the store \(\d+ files, not checked here\)$/m);
  assert.not.match(doctor.stdout, /PROBLEM/);
  const after = await cli(['doctor', '--digests']);
  assert.is(after.code, 0, after.stderr);
  assert.is(after.stdout.trimEnd().split('\n').pop(), digestsBefore, 'the same digest list as before the offload');

  const again = await offload(DAYS[2]!);
  assert.is(again.code, 0, again.stderr);
  assert.is(again.stdout, 'offloaded 0 days before 20250106: 0 files, 0.0 MiB freed; 0 days not offloaded\n');
});

test('bad arguments: exit 2, one line', async () => {
  if (!swift) return;
  for (const [args, message] of [
    [['offload', '--store', STORE], /--before YYYYMMDD is required/],
    [['offload', '--before', '2025013', '--store', STORE], /--before must be a real date YYYYMMDD/],
    [['offload', '--before', '20250107'], /--store s3:\/\/BUCKET\/PREFIX is required/],
  ] as const) {
    const r = await runCli([...args, '--data-dir', dataDir], { env });
    assert.is(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
    assert.is(r.stderr.trimEnd().split('\n').length, 1);
  }
});

test('a day not wholly stored, or an object gone from the bucket, is not offloaded: named, exit 1, its files stay', async () => {
  if (!swift) return;
  const kept = localOf(DAYS[2]!);
  sql(`DELETE FROM stored_days WHERE tradedate = '${DAYS[2]}'`);
  const r = await offload('20250107');
  assert.is(r.code, 1);
  assert.is(r.stderr, 'not offloaded 20250106: not wholly in the store yet; run tickvault upload\n');
  assert.is(r.stdout, 'offloaded 0 days before 20250107: 0 files, 0.0 MiB freed; 1 day not offloaded\n');
  assert.equal(localOf(DAYS[2]!), kept);

  const up = await cli(['upload', '--store', STORE]);
  assert.is(up.code, 0, up.stderr);
  const victim = listedOf(DAYS[2]!).find((f) => f.path.startsWith('level2/'))!;
  await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: `lake/${victim.path}` }));
  try {
    const gone = await offload('20250107');
    assert.is(gone.code, 1);
    assert.is(gone.stderr, `not offloaded 20250106: ${victim.path} is not in the store; run tickvault upload\n`);
    assert.equal(localOf(DAYS[2]!), kept);
  } finally {
    await s3.send(
      new PutObjectCommand({ Bucket: BUCKET, Key: `lake/${victim.path}`, Body: readFileSync(join(dataDir, victim.path)), Metadata: { sha256: victim.sha256 } }),
    );
  }
});

test('the store down: one line, exit 1, nothing removed', async () => {
  if (!swift) return;
  const kept = localOf(DAYS[2]!);
  await swift.stopProxy();
  try {
    const r = await offload('20250107');
    assert.is(r.code, 1);
    assert.match(r.stderr, /^tickvault offload: failed: could not look up .*: the store at s3:\/\/tvoff\/lake \(http:\/\/127\.0\.0\.1:\d+\) is unreachable/);
    assert.is(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
  } finally {
    await swift.startProxy();
  }
  assert.equal(localOf(DAYS[2]!), kept);
  assert.equal(await whereOfDays(), ['20250102 stored', '20250103 stored', '20250106 both']);
});

test('a crash between the mark and the deletes: the next run removes what is left', async () => {
  if (!swift) return;
  sql(`INSERT INTO offloaded_days (tradedate, offloaded_at_ms) VALUES ('${DAYS[2]}', 0)`);
  const r = await offload(DAYS[0]!);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^offloaded 1 day before 20250102: [1-9]\d* files, \d+\.\d MiB freed; 0 days not offloaded\n$/);
  assert.equal(localOf(DAYS[2]!), []);
  assert.equal(await whereOfDays(), ['20250102 stored', '20250103 stored', '20250106 stored']);
  const doctor = await cli(['doctor']);
  assert.is(doctor.code, 0, doctor.stdout + doctor.stderr);
  assert.match(doctor.stdout, /^store: 3 days offloaded/m);
  const digests = await cli(['doctor', '--digests']);
  assert.is(digests.stdout.trimEnd().split('\n').pop(), digestsBefore);
});

test('the next seal beside offloaded days: no row text or bars tried for them (a stale bars mark too); doctor --rebuild leaves them alone', async () => {
  if (!swift) return;
  sql(`INSERT INTO bar_stale (tradedate, changes) VALUES ('${DAYS[0]}', 1) ON CONFLICT (tradedate) DO UPDATE SET changes = changes + 1`);
  const feed = join(root, 'next.jsonl');
  const gen = await runCli(['generate', '--out', feed, '--from', '20250107', '--days', '1', '--stocks', '3', '--indexes', '1', '--ticks', '1'], { env });
  assert.is(gen.code, 0, gen.stderr);
  const rep = await cli(['replay', feed]);
  assert.is(rep.code, 0, rep.stderr);
  assert.not.match(rep.stdout + rep.stderr, /not made|skipped|failed|damaged/i);
  assert.ok(
    localOf('20250107').some((p) => p.startsWith('_rowtext/')),
    'row text of the new day',
  );
  const rebuild = await cli(['doctor', '--rebuild']);
  assert.is(rebuild.code, 0, rebuild.stdout + rebuild.stderr);
  assert.not.match(rebuild.stdout, /WARNING/);
  for (const day of DAYS) assert.equal(localOf(day), [], `nothing of ${day} made again`);
});

test('backup of the offloaded lake: exit 0, the offloaded files left to the bucket and counted; doctor passes on the copy', async () => {
  if (!swift) return;
  const to = join(root, 'copy');
  const b = await cli(['backup', '--to', to]);
  assert.is(b.code, 0, b.stderr);
  assert.match(b.stdout, /^\d+ listed files of 3 days offloaded to the store not copied: they live in the bucket$/m);
  const doctor = await runCli(['doctor', '--data-dir', to], { env });
  assert.is(doctor.code, 0, doctor.stdout + doctor.stderr);
  assert.match(doctor.stdout, /^store: 3 days offloaded/m);
});

test.run();
