/**
 * Sealed days go to a real S3 store (OpenStack Swift with s3api, started here): every file the
 * catalog lists, under its catalog path, with the bytes the catalog's SHA-256 names, read back
 * through a plain S3 client; a manifest per day with the day's catalog rows; `tickvault days`
 * says where each day is. Uploads are idempotent and resume, a damaged local file never
 * reaches the store, and a store that is down fails the pass in one line and loses nothing.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import type { S3Client } from '@aws-sdk/client-s3';
import { bucketKeys, bucketObject, catalogDigests, sha256Of } from '../../support/storeReference.js';
import { runCli } from '../../support/cli.js';
import { REPLAY_NOW } from '../../support/server.js';
import { s3ClientFor, swiftForTests, type TestSwift } from '../../support/swift.js';
import { tempDir } from '../../support/tempDir.js';

const BUCKET = 'tvlake';
const env = { TICKVAULT_NOW: REPLAY_NOW };

let swift: TestSwift | null = null;
let s3: S3Client;
let dataDir = '';
let feedDir = '';

const listedFiles = catalogDigests;
const keys = (prefix: string) => bucketKeys(s3, BUCKET, prefix);
const object = (key: string) => bucketObject(s3, BUCKET, key);
const sha = sha256Of;

function upload(prefix: string, dir = dataDir) {
  return runCli(['upload', '--store', `s3://${BUCKET}/${prefix}`, '--data-dir', dir], { env: { ...env, ...swift!.env } });
}

async function lake(days: number, from = '20250102'): Promise<string> {
  const feed = join(feedDir, `feed-${from}-${days}.jsonl`);
  const gen = await runCli(['generate', '--out', feed, '--from', from, '--days', String(days), '--stocks', '3', '--indexes', '1', '--ticks', '1'], { env });
  assert.is(gen.code, 0, gen.stderr);
  return feed;
}

const test = suite('upload: sealed days to a real S3 store (Swift s3api)');

test.before(async () => {
  swift = await swiftForTests('store uploads');
  if (!swift) return;
  await swift.createBucket(BUCKET);
  s3 = s3ClientFor(swift);
  feedDir = tempDir('tickvault-store-');
  dataDir = join(feedDir, 'data');
  const rep = await runCli(['replay', await lake(2), '--data-dir', dataDir], { env });
  assert.is(rep.code, 0, rep.stderr);
});

test.after(async () => {
  s3?.destroy();
  await swift?.stop();
});

test('every listed file is in the bucket under its catalog path with the catalog bytes; a manifest per day; days says both', async () => {
  if (!swift) return;
  const r = await upload('lake');
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^stored 2 days in s3:\/\/tvlake\/lake: \d+ files sent/);
  const listed = listedFiles(dataDir);
  assert.ok(listed.size > 10, `a lake of ${listed.size} files`);
  const stored = new Set(await keys('lake/'));
  for (const [path, digest] of listed) {
    assert.ok(stored.has(`lake/${path}`), `${path} in the bucket`);
    assert.is(sha(await object(`lake/${path}`)), digest, path);
  }
  // Row text made at the replay travels too, byte for byte.
  const rowText = [...stored].filter((k) => k.startsWith('lake/_rowtext/'));
  assert.ok(rowText.length > 0, 'row text stored');
  for (const k of rowText.slice(0, 3)) assert.ok((await object(k)).equals(readFileSync(join(dataDir, k.slice('lake/'.length)))), k);

  // The manifest carries the day's catalog rows: its files' paths and digests as the catalog lists them.
  const m = JSON.parse(gunzipSync(await object('lake/_manifest/date=20250102/manifest.json.gz')).toString('utf8')) as {
    tradedate: string;
    tables: Record<string, { path?: string; sha256?: string; tradedate: string }[]>;
    objects: { key: string; sha256: string }[];
  };
  assert.is(m.tradedate, '20250102');
  const dayFiles = [...listed].filter(([p]) => p.includes('date=20250102/') && !p.startsWith('bars/') && !p.startsWith('_boundary/'));
  assert.equal(new Map(m.tables.files.map((f) => [f.path!, f.sha256!])), new Map(dayFiles));
  assert.ok(m.tables.sealed_days.length > 0 && m.tables.bar_days.length === 1 && m.tables.daily_bars.length > 0);
  for (const o of m.objects) assert.is(o.sha256, listed.get(o.key) ?? o.sha256, o.key);

  const days = await runCli(['days', '--data-dir', dataDir, '--dataset', 'level2', '--to', '20250103', '--json'], { env });
  assert.is(days.code, 0, days.stderr);
  const rows = days.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { day: string; where: string });
  assert.equal(
    rows.map((d) => [d.day, d.where]),
    [
      ['20250102', 'both'],
      ['20250103', 'both'],
    ],
  );
});

test('idempotent: nothing sent again; records lost in a crash are found in the store by size and ETag, not sent', async () => {
  if (!swift) return;
  const again = await upload('lake');
  assert.is(again.code, 0, again.stderr);
  assert.match(again.stdout, /^stored 0 days .*: 0 files sent \(0\.0 MiB/);
  // A crash after the uploads and before their records and the days' marks.
  const db = new Database(join(dataDir, 'catalog.db'));
  const recorded = (db.prepare('SELECT count(*) FROM stored_objects').pluck().get() as number) - 2; // less the two manifests
  db.exec("DELETE FROM stored_objects; DELETE FROM stored_days; INSERT INTO store_due (tradedate, changes) VALUES ('20250103', 1)");
  db.close();
  const resumed = await upload('lake');
  assert.is(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stdout, new RegExp(`^stored 2 days .*: 0 files sent .*, ${recorded} found there already`));
});

test('a damaged local file is never uploaded: named, its day stays due, exit 1; other days go', async () => {
  if (!swift) return;
  const dir = join(feedDir, 'damaged');
  const rep = await runCli(['replay', await lake(1, '20250106'), '--data-dir', dir], { env });
  assert.is(rep.code, 0, rep.stderr);
  const victim = 'level2/date=20250106/600000.SH.parquet';
  const bytes = readFileSync(join(dir, victim));
  bytes[100] ^= 0xff;
  writeFileSync(join(dir, victim), bytes);
  const r = await upload('damaged', dir);
  assert.is(r.code, 1);
  assert.match(r.stderr, /NOT STORED level2\/date=20250106\/600000\.SH\.parquet: .*damaged here .*tickvault repair/);
  assert.match(r.stdout, /stored 0 days .*1 day still due/);
  assert.not.ok((await keys('damaged/')).includes(`damaged/${victim}`), 'the damaged bytes are not in the store');
  assert.equal(await keys('damaged/_manifest/'), [], 'no manifest for a day not wholly stored');
});

test('the store down: one line, exit 1, nothing marked; back up, the next run stores everything', async () => {
  if (!swift) return;
  const dir = join(feedDir, 'down');
  const rep = await runCli(['replay', await lake(1, '20250107'), '--data-dir', dir], { env });
  assert.is(rep.code, 0, rep.stderr);
  await swift.stopProxy();
  try {
    const r = await upload('down', dir);
    assert.is(r.code, 1);
    assert.match(
      r.stderr,
      /^tickvault upload: failed: could not .*: the store at s3:\/\/tvlake\/down \(http:\/\/127\.0\.0\.1:\d+\) is unreachable \(ECONNREFUSED\)\n$/,
    );
  } finally {
    await swift.startProxy();
  }
  const days = await runCli(['days', '--data-dir', dir, '--dataset', 'level2', '--json'], { env });
  assert.match(days.stdout, /"where":"local"/);
  const r = await upload('down', dir);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^stored 1 day /);
  for (const [path, digest] of listedFiles(dir)) assert.is(sha(await object(`down/${path}`)), digest, path);
});

test.run();
