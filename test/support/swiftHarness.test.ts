import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListBucketsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { s3ClientFor, swiftForTests } from './swift.js';

const t0 = Date.now();
const swift = await swiftForTests('Swift harness tests');
if (swift) console.log(`# Swift answered S3 calls ${Date.now() - t0} ms after the start`);

const harness = suite('Swift (S3) test harness');

const BUCKET = 'harness';
const MiB = 1024 * 1024;

const md5 = (b: Uint8Array, enc: 'hex' | 'base64' = 'hex') => createHash('md5').update(b).digest(enc);
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

async function failure(p: Promise<unknown>): Promise<Error & { code?: string; $metadata?: { httpStatusCode?: number } }> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a failure, but it succeeded');
}

/** Whether `pid` is still a running process (a zombie counts as gone). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

if (swift) {
  const s3 = s3ClientFor(swift);
  const get = async (Key: string, Range?: string) => {
    const r = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key, Range }));
    return { r, body: Buffer.from(await r.Body!.transformToByteArray()) };
  };

  harness.after(async () => {
    s3.destroy();
    await swift.stop();
  });

  harness('start: endpoint, credentials and env; createBucket; ListBuckets', async () => {
    assert.match(swift.endpoint, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(swift.env, {
      AWS_ENDPOINT_URL: swift.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'test:tester',
      AWS_SECRET_ACCESS_KEY: 'testing',
    });
    assert.is(swift.pids().length, 5, 'memcached and four daemons');
    assert.ok(alive(swift.proxyPid()));
    await swift.createBucket(BUCKET);
    const { Buckets } = await s3.send(new ListBucketsCommand({}));
    assert.ok(Buckets?.some((b) => b.Name === BUCKET));
  });

  harness('PutObject, GetObject whole and by Range, HeadObject size and MD5 ETag, user metadata', async () => {
    const data = randomBytes(100_000);
    const put = await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'day/one.bin', Body: data, Metadata: { sha256: sha256(data) } }));
    // A single-part object's ETag is the MD5 of its bytes, quoted.
    assert.is(put.ETag, `"${md5(data)}"`);
    const whole = await get('day/one.bin');
    assert.ok(whole.body.equals(data), 'whole object');
    const part = await get('day/one.bin', 'bytes=1000-1999');
    assert.ok(part.body.equals(data.subarray(1000, 2000)), 'bytes=1000-1999');
    assert.is(part.r.ContentRange, `bytes 1000-1999/${data.length}`);
    assert.is((await get('day/one.bin', 'bytes=-5')).body.toString('hex'), data.subarray(-5).toString('hex'), 'suffix range');
    const beyond = await failure(get('day/one.bin', `bytes=${data.length}-${data.length + 10}`));
    assert.is(beyond.name, 'InvalidRange');
    const head = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'day/one.bin' }));
    assert.is(head.ContentLength, data.length);
    assert.is(head.ETag, `"${md5(data)}"`);
    assert.equal(head.Metadata, { sha256: sha256(data) });
  });

  harness('Content-MD5 is checked; x-amz-checksum-sha256 is not (Swift 2.30 ignores it)', async () => {
    const body = Buffer.from('checked body');
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'md5/good', Body: body, ContentMD5: md5(body, 'base64') }));
    const bad = await failure(s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'md5/bad', Body: body, ContentMD5: md5(Buffer.from('x'), 'base64') })));
    assert.is(bad.name, 'BadDigest');
    // A wrong SHA-256 is stored without complaint: a store's integrity check must not lean on it.
    const wrong = createHash('sha256').update('x').digest('base64');
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'sha/wrong', Body: body, ChecksumSHA256: wrong }));
    assert.equal((await get('sha/wrong')).body, body);
  });

  harness('multipart: lib-storage Upload of 12 MB in 5 MB parts; ETag "md5-of-part-md5s-3"; ranges across parts', async () => {
    const data = randomBytes(12 * MiB + 12_345);
    const partSize = 5 * MiB;
    const done = await new Upload({
      client: s3,
      params: {
        Bucket: BUCKET,
        Key: 'big/upload.bin',
        Body: Readable.from([data]),
        ContentType: 'application/octet-stream',
        Metadata: { sha256: sha256(data) },
      },
      partSize,
      queueSize: 2,
    }).done();
    const parts = [0, 1, 2].map((i) =>
      createHash('md5')
        .update(data.subarray(i * partSize, (i + 1) * partSize))
        .digest(),
    );
    const etag = `"${md5(Buffer.concat(parts))}-3"`;
    assert.is(done.ETag, etag);
    const head = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'big/upload.bin' }));
    assert.is(head.ContentLength, data.length);
    assert.is(head.ETag, etag);
    assert.equal(head.Metadata, { sha256: sha256(data) });
    assert.is(head.ContentType, 'application/octet-stream');
    assert.is(sha256((await get('big/upload.bin')).body), sha256(data));
    const across = await get('big/upload.bin', `bytes=${partSize - 10}-${partSize + 9}`);
    assert.ok(across.body.equals(data.subarray(partSize - 10, partSize + 10)), 'a range spanning parts 1 and 2');
    assert.is(across.r.ContentRange, `bytes ${partSize - 10}-${partSize + 9}/${data.length}`);
  });

  harness('ListObjectsV2 with a Prefix; DeleteObject; DeleteObjects is refused', async () => {
    for (const k of ['list/a', 'list/b', 'other/c']) await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: k, Body: k }));
    const keys = async () => ((await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'list/' }))).Contents ?? []).map((o) => o.Key);
    assert.equal(await keys(), ['list/a', 'list/b']);
    await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: 'list/a' }));
    assert.equal(await keys(), ['list/b']);
    assert.is((await failure(get('list/a'))).name, 'NoSuchKey');
    // s3api wants a Content-MD5 on the multi-delete, which AWS SDK v3 no longer sends.
    const multi = await failure(s3.send(new DeleteObjectsCommand({ Bucket: BUCKET, Delete: { Objects: [{ Key: 'list/b' }] } })));
    assert.is(multi.name, 'InvalidRequest');
    assert.match(multi.message, /Content-MD5/);
  });

  harness("SDK defaults: a stream PutObject is refused (aws-chunked), hence s3ClientFor's checksum settings", async () => {
    const plain = new S3Client({
      endpoint: swift.endpoint,
      region: swift.region,
      credentials: { accessKeyId: swift.accessKeyId, secretAccessKey: swift.secretAccessKey },
      forcePathStyle: true,
    });
    try {
      const e = await failure(
        plain.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'chunked', Body: Readable.from([Buffer.from('abc')]), ContentLength: 3 })),
      );
      assert.is(e.$metadata?.httpStatusCode, 501, `${e.name}: ${e.message}`);
      await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'chunked', Body: Readable.from([Buffer.from('abc')]), ContentLength: 3 }));
      assert.is((await get('chunked')).body.toString(), 'abc');
    } finally {
      plain.destroy();
    }
  });

  harness('stopProxy: calls fail at once (connection refused); startProxy: same port, data kept', async () => {
    const before = swift.proxyPid();
    await swift.stopProxy();
    assert.not.ok(alive(before), 'old proxy gone');
    assert.throws(() => swift.proxyPid(), /not running/);
    const t = Date.now();
    const e = await failure(s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'day/one.bin' })));
    assert.match(`${e.code} ${e.message}`, /ECONNREFUSED/);
    assert.ok(Date.now() - t < 5000, `failed after ${Date.now() - t} ms`);
    await swift.stopProxy(); // a no-op
    await swift.startProxy();
    assert.is.not(swift.proxyPid(), before);
    const head = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'day/one.bin' }));
    assert.is(head.ContentLength, 100_000);
  });

  harness('stop: every daemon gone, the port refuses; stop again is a no-op', async () => {
    const pids = swift.pids();
    await swift.stop();
    assert.equal(
      pids.filter((p) => alive(p)),
      [],
    );
    assert.equal(swift.pids(), []);
    const e = await failure(s3.send(new ListBucketsCommand({})));
    assert.match(`${e.code} ${e.message}`, /ECONNREFUSED/);
    await swift.stop();
  });
}

harness.run();
