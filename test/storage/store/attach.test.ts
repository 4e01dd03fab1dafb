/**
 * The whole path of a day through a real S3 store (Swift s3api, started here): sealed → stored
 * → offloaded → served → attached at a second host → repaired from the bucket. Two hosts
 * attached to one bucket list the same files as the host that uploaded them (`doctor
 * --digests`) and answer the same bytes; `repair --from s3://…` installs a damaged local file
 * from the bucket when the object is the catalog's, and refuses one that is not.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { runCli } from '../../support/cli.js';
import { addAccount, httpRequest, REPLAY_NOW, startServer } from '../../support/server.js';
import { s3ClientFor, swiftForTests, type TestSwift } from '../../support/swift.js';
import { tempDir } from '../../support/tempDir.js';

const BUCKET = 'tvattach';
const STORE = `s3://${BUCKET}/lake`;
const env = { TICKVAULT_NOW: REPLAY_NOW };
const DAY1 = '20250102';
const DAY2 = '20250103';
const NOW = '2025-01-06T16:30:00+08:00';

let swift: TestSwift | null = null;
let s3: S3Client;
let root = '';
let source = '';

const cli = (args: string[]) => runCli(args, { env: { ...env, ...swift!.env } });
const lastLine = (text: string) => text.trimEnd().split('\n').at(-1)!;
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

const test = suite('attach a second host to the bucket, and repair from it (Swift s3api)');

test.before(async () => {
  await (async () => {
    swift = await swiftForTests('attach and repair from the store');
    if (!swift) return;
    await swift.createBucket(BUCKET);
    s3 = s3ClientFor(swift);
    root = tempDir('tickvault-attach-');
    source = join(root, 'source');
    const feed = join(root, 'feed.jsonl');
    const gen = await runCli(['generate', '--out', feed, '--from', DAY1, '--days', '2', '--stocks', '3', '--indexes', '1', '--ticks', '1'], { env });
    assert.is(gen.code, 0, gen.stderr);
    const rep = await runCli(['replay', feed, '--data-dir', source], { env });
    assert.is(rep.code, 0, rep.stderr);
    const up = await cli(['upload', '--store', STORE, '--data-dir', source]);
    assert.is(up.code, 0, up.stderr);
    const off = await cli(['offload', '--before', DAY2, '--store', STORE, '--data-dir', source]);
    assert.is(off.code, 0, off.stderr);
  })().catch((e: unknown) => {
    console.error(`before: ${(e as Error).stack ?? String(e)}`);
    throw e;
  });
});

test.after(async () => {
  s3?.destroy();
  await swift?.stop();
});

test('two hosts attached to one bucket: the same digests as the uploading host, every day stored, the same answers', async () => {
  if (!swift) return;
  const b = join(root, 'host-b');
  const c = join(root, 'host-c');
  for (const dir of [b, c]) {
    const r = await cli(['attach', '--store', STORE, '--data-dir', dir]);
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /^attached .* to s3:\/\/tvattach\/lake: 2 days, \d+ files \([\d.]+ MiB in the store, none copied\)/);
  }
  const digests = await Promise.all([source, b, c].map((dir) => cli(['doctor', '--digests', '--data-dir', dir])));
  for (const d of digests) assert.is(d.code, 0, d.stderr);
  assert.is(lastLine(digests[1].stdout), lastLine(digests[0].stdout), "host B lists the uploading host's files");
  assert.is(lastLine(digests[2].stdout), lastLine(digests[1].stdout), 'hosts B and C agree');
  assert.ok(digests[0].stdout.split('\n').length > 10);

  const days = await cli(['days', '--data-dir', b, '--dataset', 'level2', '--to', DAY2, '--json']);
  assert.equal(
    days.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { where: string }).where),
    ['stored', 'stored'],
  );

  // The same answers from the uploading host (day 1 offloaded, day 2 local) and from host B (both from the store).
  const bodies: Buffer[][] = [];
  for (const dir of [source, b]) {
    const key = addAccount(dir, 'flagship').key;
    const server = await startServer(dir, { now: NOW, env: swift.env, args: ['--store', STORE] });
    try {
      const got: Buffer[] = [];
      for (const params of [
        { symbol: '600000.SH', tradedate: DAY1, page_size: 1000 },
        { symbol: '000001.SZ', tradedate: DAY2, page_size: 1000 },
        { symbol: '000001.SZ', tradedate: DAY2, format: 'parquet' },
      ]) {
        const res = await httpRequest(`${server.url}/api`, {
          body: JSON.stringify({ apiname: 'level2_quote_history', apikey: key, params }),
          headers: { 'content-type': 'application/json' },
        });
        assert.is(res.status, 200, res.text.slice(0, 200));
        got.push(res.body);
      }
      const daily = await httpRequest(`${server.url}/api`, {
        body: JSON.stringify({ apiname: 'daily', apikey: key, params: { symbols: '600000.SH', startdate: DAY1, enddate: DAY2 } }),
        headers: { 'content-type': 'application/json' },
      });
      assert.is(daily.status, 200, daily.text.slice(0, 200));
      got.push(daily.body);
      bodies.push(got);
    } finally {
      await server.stop();
    }
  }
  // Byte for byte, but for the cursor of a page with more rows: signed with each host's own key.
  const unsigned = (body: Buffer, i: number) => (i === 2 ? body : body.toString('utf8').replace(/"next_cursor":"[^"]*"/, '"next_cursor":"…"'));
  bodies[0].forEach((body, i) => assert.equal(unsigned(body, i), unsigned(bodies[1][i], i), `answer ${i}: host B's bytes are the uploading host's`));
  assert.match(bodies[0][0].toString('utf8'), /"next_cursor":"[^"]+"/, 'the first page has a cursor');
});

test('attach wants a new directory and sound manifests: one line each, exit 1', async () => {
  if (!swift) return;
  const used = await cli(['attach', '--store', STORE, '--data-dir', source]);
  assert.is(used.code, 1);
  assert.match(used.stderr, /^tickvault attach: failed: .* is not empty: attach makes a new data directory/m);
  assert.is(
    used.stderr
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('tickvault')).length,
    1,
  );

  // A manifest whose bytes are not the ones uploaded (same metadata, a byte changed).
  const key = `lake/_manifest/date=${DAY2}/manifest.json.gz`;
  const got = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  const bytes = Buffer.from(await got.Body!.transformToByteArray());
  const changed = Buffer.from(bytes);
  changed[changed.length - 3] ^= 0x01;
  await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: changed, Metadata: got.Metadata }));
  try {
    const r = await cli(['attach', '--store', STORE, '--data-dir', join(root, 'host-d')]);
    assert.is(r.code, 1);
    assert.match(
      r.stderr,
      /_manifest\/date=20250103\/manifest\.json\.gz in the store is damaged: its SHA-256 [0-9a-f]{64} is not the one recorded with its upload/,
    );
  } finally {
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: bytes, Metadata: got.Metadata }));
  }
});

test('repair --from s3://: a damaged local file comes back from the bucket; an object that differs is refused', async () => {
  if (!swift) return;
  const victim = `level2/date=${DAY2}/000001.SZ.parquet`;
  const path = join(source, victim);
  const sound = readFileSync(path);
  const bad = Buffer.from(sound);
  bad[50] ^= 0xff;
  writeFileSync(path, bad);
  const doctor = await cli(['doctor', '--data-dir', source]);
  assert.is(doctor.code, 1, 'doctor finds the damage');
  const fixed = await cli(['repair', '--from', STORE, '--data-dir', source]);
  assert.is(fixed.code, 0, fixed.stdout + fixed.stderr);
  assert.match(lastLine(fixed.stdout), /^repair from s3:\/\/tvattach\/lake: 1 damaged or missing file: 1 repaired, 0 refused/);
  assert.is(sha(readFileSync(path)), sha(sound));
  assert.is((await cli(['doctor', '--data-dir', source])).code, 0);

  // The bucket's object damaged too: refused, the local file left as it is.
  writeFileSync(path, bad);
  await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `lake/${victim}`, Body: bad }));
  const refused = await cli(['repair', '--from', STORE, '--data-dir', source]);
  assert.is(refused.code, 1);
  assert.match(refused.stdout, /1 refused/);
  assert.ok(readFileSync(path).equals(bad), 'the local file is left as it was');
  await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `lake/${victim}`, Body: sound }));
  writeFileSync(path, sound);
});

test('backup --to s3:// then attach: the new host has the lake and the accounts, keys and staging of the backup', async () => {
  if (!swift) return;
  const account = addAccount(source, 'flagship');
  const b = await cli(['backup', '--to', STORE, '--data-dir', source]);
  assert.is(b.code, 0, b.stderr);
  assert.match(b.stdout, /^backed up .* to s3:\/\/tvattach\/lake: 0 days newly stored .*the state \(\d+ files, .*\) as _backup\/\d{8}T\d{6}Z\/ in /);
  const dir = join(root, 'host-e');
  const a = await cli(['attach', '--store', STORE, '--data-dir', dir]);
  assert.is(a.code, 0, a.stderr);
  assert.match(a.stdout, /with the state of backup \d{8}T\d{6}Z \(\d+ files: accounts, keys, staging\)/);
  // The source's key answers on the restored host, from the bucket.
  const server = await startServer(dir, { now: NOW, env: swift.env, args: ['--store', STORE] });
  try {
    const res = await httpRequest(`${server.url}/api`, {
      body: JSON.stringify({ apiname: 'level2_quote_history', apikey: account.key, params: { symbol: '600000.SH', tradedate: DAY2, page_size: 5 } }),
      headers: { 'content-type': 'application/json' },
    });
    assert.is(res.status, 200, res.text.slice(0, 200));
  } finally {
    await server.stop();
  }
  assert.is(
    lastLine((await cli(['doctor', '--digests', '--data-dir', dir])).stdout),
    lastLine((await cli(['doctor', '--digests', '--data-dir', source])).stdout),
  );
});

test.run();
