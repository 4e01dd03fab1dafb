/**
 * ObjectStore against a real S3 store (Swift s3api, started here): a file above the multipart
 * threshold goes in parts and the store's ETag is the one objectDigests computes from the
 * bytes (how an upload is verified without reading it back); a single PUT whose Content-MD5 is
 * not its bytes' is refused and nothing is kept; ranges across a part boundary read back
 * exactly; a store that is down is a retriable StoreError in one line.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash, randomBytes } from 'node:crypto';
import { loadStoreConfig } from '../../../shared/config.js';
import { MULTIPART_PART_BYTES, MULTIPART_THRESHOLD_BYTES, objectDigests } from '../../../storage/store/objectDigests.js';
import { ObjectStore } from '../../../storage/store/objectStore.js';
import { StoreError } from '../../../storage/store/storeError.js';
import { swiftForTests, type TestSwift } from '../../support/swift.js';

const BUCKET = 'tvobjects';
let swift: TestSwift | null = null;
let store: ObjectStore;

const test = suite('ObjectStore on a real S3 store (Swift s3api)');

test.before(async () => {
  swift = await swiftForTests('the object store');
  if (!swift) return;
  await swift.createBucket(BUCKET);
  store = new ObjectStore(loadStoreConfig({ store: `s3://${BUCKET}/t` }, swift.env)!);
});

test.after(async () => {
  store?.close();
  await swift?.stop();
});

test('a file above the threshold goes in parts; the ETag is the one computed from its bytes; ranges across a part boundary', async () => {
  if (!swift) return;
  const bytes = randomBytes(MULTIPART_THRESHOLD_BYTES + 3 * 1024 * 1024);
  const d = objectDigests(bytes);
  assert.match(d.etag, /^[0-9a-f]{32}-3$/, 'three parts of 8 MiB at most');
  const etag = await store.put('big/file.parquet', bytes, d);
  assert.is(etag, d.etag);
  assert.equal(await store.head('big/file.parquet'), { bytes: bytes.length, etag: d.etag, sha256: d.sha256 });
  const from = MULTIPART_PART_BYTES - 1000;
  assert.ok((await store.getRange('big/file.parquet', from, from + 5000)).equals(bytes.subarray(from, from + 5000)));
  const whole = createHash('sha256');
  for await (const chunk of await store.getStream('big/file.parquet')) whole.update(chunk as Buffer);
  assert.is(whole.digest('hex'), d.sha256);
});

test('a single PUT with another Content-MD5 is refused and nothing is kept; list and delete', async () => {
  if (!swift) return;
  const bytes = randomBytes(1024);
  const d = objectDigests(bytes);
  const wrong = objectDigests(randomBytes(1024)).md5;
  try {
    await store.put('small/a.bin', bytes, { ...d, md5: wrong });
    assert.unreachable('a wrong Content-MD5 must be refused');
  } catch (e) {
    assert.instance(e, StoreError);
    assert.match(
      (e as Error).message,
      /^could not upload small\/a\.bin: the store at s3:\/\/tvobjects\/t \(http:\/\/127\.0\.0\.1:\d+\) answered 400 BadDigest$/,
    );
    assert.is((e as StoreError).retriable, false);
  }
  assert.is(await store.head('small/a.bin'), null);
  assert.is(await store.put('small/a.bin', bytes, d), d.etag);
  assert.equal(await store.list('small/'), ['small/a.bin']);
  await store.delete('small/a.bin');
  assert.is(await store.head('small/a.bin'), null);
});

test('the store down: a retriable StoreError, one line, naming the store', async () => {
  if (!swift) return;
  await swift.stopProxy();
  try {
    await store.head('anything');
    assert.unreachable('the store is down');
  } catch (e) {
    assert.instance(e, StoreError);
    assert.is((e as StoreError).retriable, true);
    assert.match(
      (e as Error).message,
      /^could not look up anything: the store at s3:\/\/tvobjects\/t \(http:\/\/127\.0\.0\.1:\d+\) is unreachable \(ECONNREFUSED\)$/,
    );
  } finally {
    await swift.startProxy();
  }
});

test.run();
