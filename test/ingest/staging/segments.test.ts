import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { appendFileSync, existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Staging } from '../../../ingest/staging/segments.js';
import { bucketOf } from '../../../storage/staging/stagingReader.js';
import { encodeRecord, readRecord, RecordPacker, recordBytes, writeRecord } from '../../../storage/staging/recordCodec.js';
import { SCHEMAS, type SnapshotRow } from '../../../shared/schema.js';
import { tempDir } from '../../support/tempDir.js';

const WIDTH = SCHEMAS.level2.valueFields.length;

function row(symbol: string, timeMs: number, close: number | null, seq?: number): SnapshotRow {
  const values: (number | null)[] = new Array(WIDTH).fill(null);
  values[3] = close; // close is the 4th numeric field (open, high, low, close)
  values[WIDTH - 1] = timeMs / 1000;
  return { dataset: 'level2', symbol, tradedate: '20250102', timeMs, values, seq };
}

function openStaging(): { staging: Staging; dir: string } {
  const dir = tempDir();
  return { staging: Staging.open(join(dir, 'ingest.db'), () => 1_700_000_000_000), dir };
}

function readAll(staging: Staging, symbols: string[]) {
  const out = new Map<string, { times: number[]; close: (number | null)[] }>();
  for (const [b, set] of staging.bucketsOf(symbols)) {
    for (const d of staging.readBucket('level2', '20250102', b, set)) {
      out.set(d.symbol, { times: [...d.timesMs], close: [...d.values[3]].map((v) => (Number.isNaN(v) ? null : v)) });
    }
  }
  return out;
}

const stageSuite = suite('Staging.stage / readBucket');

stageSuite('returns rows sorted by time, nulls kept, later duplicate wins', () => {
  const { staging } = openStaging();
  staging.stage([row('600000.SH', 36_000_000, 10.5), row('600000.SH', 34_200_000, 10.1), row('600000.SH', 35_000_000, null)], []);
  staging.stage([row('600000.SH', 36_000_000, 10.7)], []); // a corrected re-send
  const got = readAll(staging, ['600000.SH']).get('600000.SH')!;
  assert.equal(got.times, [34_200_000, 35_000_000, 36_000_000]);
  assert.equal(got.close, [10.1, null, 10.7]);
  staging.close();
});

stageSuite('explicit seq orders duplicates regardless of arrival', () => {
  const { staging } = openStaging();
  staging.stage([row('600000.SH', 36_000_000, 10.9, 12)], []);
  staging.stage([row('600000.SH', 36_000_000, 10.5, 11)], []); // older offset arriving later
  assert.equal(readAll(staging, ['600000.SH']).get('600000.SH')!.close, [10.9]);
  staging.close();
});

stageSuite('a call larger than a segment buffer keeps every row (buffer growth)', () => {
  const { staging } = openStaging();
  const rows = Array.from({ length: 2000 }, (_, i) => row('600000.SH', 34_200_000 + i * 3000, 10 + i / 100));
  staging.stage(rows, []);
  const got = readAll(staging, ['600000.SH']).get('600000.SH')!;
  assert.is(got.times.length, 2000);
  assert.equal(
    got.close,
    rows.map((r) => r.values[3]),
  );
  staging.close();
});

stageSuite('restricts to the asked symbols and keeps symbols apart', () => {
  const { staging } = openStaging();
  staging.stage([row('600000.SH', 1000, 1), row('000001.SZ', 1000, 2), row('600000.SH', 2000, 3)], []);
  const only = readAll(staging, ['000001.SZ']);
  assert.equal([...only.keys()], ['000001.SZ']);
  assert.equal(only.get('000001.SZ')!.close, [2]);
  assert.equal(staging.symbolsOf('level2', '20250102'), ['000001.SZ', '600000.SH']);
  assert.equal(staging.openDays(), [{ dataset: 'level2', tradedate: '20250102' }]);
  staging.close();
});

stageSuite('bytes past the committed length (a crash mid-append) are ignored', () => {
  const { staging, dir } = openStaging();
  staging.stage([row('600000.SH', 1000, 1)], []);
  const segDir = join(dir, 'staging', 'level2', '20250102');
  const seg = join(segDir, readdirSync(segDir)[0]);
  // Append a full stray record and a torn half one, as an interrupted writer would leave.
  appendFileSync(seg, Buffer.alloc(recordBytes('level2') * 1.5, 0x41));
  assert.equal(readAll(staging, ['600000.SH']).get('600000.SH')!.close, [1]);
  staging.close();
});

stageSuite("survives reopening: a second writer sees the first one's committed rows", () => {
  const { staging, dir } = openStaging();
  staging.stage([row('600000.SH', 1000, 1), row('600000.SH', 2000, 2)], []);
  staging.close();
  const again = Staging.open(join(dir, 'ingest.db'), () => 0);
  again.stage([row('600000.SH', 2000, 20)], []);
  assert.equal(readAll(again, ['600000.SH']).get('600000.SH')!.close, [1, 20]);
  again.close();
});

stageSuite('quarantine rows and the after hook commit with the rows', () => {
  const { staging } = openStaging();
  let ran = 0;
  staging.stage([row('600000.SH', 1000, 1)], [{ source: 'f:1', reason: 'not JSON', raw: '{' }], () => ran++);
  assert.is(ran, 1);
  assert.is(staging.quarantineCount(), 1);
  assert.equal(staging.db.prepare('SELECT source, reason, raw FROM quarantine').get(), { source: 'f:1', reason: 'not JSON', raw: '{' });
  staging.close();
});

stageSuite('stagePacks stages the same rows as stage', () => {
  const a = openStaging();
  const b = openStaging();
  const rows = [row('600000.SH', 3000, 3), row('000001.SZ', 1000, 1), row('600000.SH', 1000, 5), row('600000.SH', 3000, 4)];
  a.staging.stage(rows, []);
  const packer = new RecordPacker();
  for (const r of rows) packer.add(r);
  b.staging.stagePacks(packer.take(), []);
  const syms = ['600000.SH', '000001.SZ'];
  assert.equal(readAll(b.staging, syms), readAll(a.staging, syms));
  assert.equal(readAll(b.staging, syms).get('600000.SH')!.close, [5, 4]);
  a.staging.close();
  b.staging.close();
});

stageSuite("stageRecords stages the same rows as stage, with the records' own order resolving duplicates", () => {
  const a = openStaging();
  const b = openStaging();
  // Offsets as orders: the later offset of 600000.SH@3000 wins, whatever the append order.
  const rows = [row('600000.SH', 3000, 3, 10), row('000001.SZ', 1000, 1, 11), row('600000.SH', 1000, 5, 12), row('600000.SH', 3000, 4, 9)];
  a.staging.stage(rows, []);
  const size = recordBytes('level2');
  const records = new Uint8Array(rows.length * size);
  const view = new DataView(records.buffer);
  rows.forEach((r, i) => writeRecord(view, i * size, r.symbol, r.timeMs, r.values, r.seq!));
  const symbolDays = [
    { tradedate: '20250102', symbol: '600000.SH' },
    { tradedate: '20250102', symbol: '000001.SZ' },
  ];
  b.staging.stageRecords([{ dataset: 'level2', records, symbolDayOf: Int32Array.from([0, 1, 0, 0]), symbolDays }], []);
  const syms = ['600000.SH', '000001.SZ'];
  assert.equal(readAll(b.staging, syms), readAll(a.staging, syms));
  assert.equal(readAll(b.staging, syms).get('600000.SH')!.close, [5, 3]);
  assert.equal(b.staging.symbolsOf('level2', '20250102'), ['000001.SZ', '600000.SH']);
  a.staging.close();
  b.staging.close();
});

const packOf = (rows: SnapshotRow[]) => {
  const packer = new RecordPacker();
  for (const r of rows) packer.add(r);
  return packer.take();
};

stageSuite('appendPacks: nothing is seen until commitAppended; quarantineOnce adds each source and reason once', async () => {
  const { staging, dir } = openStaging();
  staging.stage([row('600000.SH', 1000, 1)], []);
  staging.appendPacks(packOf([row('600000.SH', 2000, 2), row('000001.SZ', 1000, 7)]));
  const other = Staging.open(join(dir, 'ingest.db'), () => 0);
  assert.equal(readAll(other, ['600000.SH', '000001.SZ']).get('600000.SH')!.close, [1], 'appended rows are not committed');
  assert.equal(other.symbolsOf('level2', '20250102'), ['600000.SH']);
  await staging.commitAppended();
  assert.equal(readAll(other, ['600000.SH']).get('600000.SH')!.close, [1, 2]);
  assert.equal(other.symbolsOf('level2', '20250102'), ['000001.SZ', '600000.SH']);
  const bad = { source: 'f.csv:3', reason: 'price is not a number', raw: 'x' };
  assert.is(staging.quarantineOnce([bad]), 1);
  assert.is(staging.quarantineOnce([bad]), 0);
  assert.is(other.quarantineCount(), 1);
  other.close();
  staging.close();
});

stageSuite('discardAppended(mark) forgets only what came after the mark: the refused file, not the files before it', async () => {
  const { staging } = openStaging();
  staging.appendPacks(packOf([row('600000.SH', 1000, 1)]));
  const mark = staging.appendMark();
  staging.appendPacks(packOf([row('600000.SH', 2000, 2), row('000001.SZ', 1000, 7)]));
  staging.discardAppended(mark);
  assert.is(staging.appendedBytes(), recordBytes('level2'));
  await staging.commitAppended();
  assert.equal(readAll(staging, ['600000.SH', '000001.SZ']).get('600000.SH')!.close, [1]);
  assert.not.ok(readAll(staging, ['000001.SZ']).has('000001.SZ'));
  assert.equal(staging.symbolsOf('level2', '20250102'), ['600000.SH']);
  staging.close();
});

stageSuite('appended rows written a few MiB at a time: a mark inside the unwritten tail keeps what came before it', async () => {
  const { staging } = openStaging();
  const rows = (from: number, n: number) => Array.from({ length: n }, (_, i) => row(i % 2 === 0 ? '600000.SH' : '000001.SZ', (from + i) * 10, from + i));
  staging.appendPacks(packOf(rows(0, 10)));
  const mark = staging.appendMark();
  staging.appendPacks(packOf(rows(10, 10)));
  staging.discardAppended(mark);
  staging.appendPacks(packOf(rows(20, 2)));
  await staging.commitAppended();
  const got = readAll(staging, ['600000.SH', '000001.SZ']);
  assert.equal(got.get('600000.SH')!.close, [0, 2, 4, 6, 8, 20]);
  assert.equal(got.get('000001.SZ')!.close, [1, 3, 5, 7, 9, 21]);
  staging.close();
});

stageSuite('discardAppended forgets the appended rows and their new symbols; a segment never committed is removed', async () => {
  const { staging, dir } = openStaging();
  staging.stage([row('600000.SH', 1000, 1)], []);
  staging.appendPacks(packOf([row('600000.SH', 2000, 2), row('000001.SZ', 1000, 7)]));
  staging.discardAppended();
  // The next file's rows go where the discarded ones were, and commit alone.
  staging.appendPacks(packOf([row('600000.SH', 3000, 3)]));
  await staging.commitAppended();
  assert.equal(readAll(staging, ['600000.SH', '000001.SZ']).get('600000.SH')!.close, [1, 3]);
  assert.not.ok(readAll(staging, ['000001.SZ']).has('000001.SZ'));
  assert.equal(staging.symbolsOf('level2', '20250102'), ['600000.SH']);
  const segs = readdirSync(join(dir, 'staging', 'level2', '20250102'));
  assert.is(segs.length, 1, `only the committed segment is left: ${segs.join(', ')}`);
  staging.close();
});

stageSuite('a failed commit (a full disk) leaves nothing: the same rows staged again are recorded once, their symbol-day open', () => {
  const { staging } = openStaging();
  const rows = [row('600000.SH', 34_200_000, 10.1, 1), row('600000.SH', 34_203_000, 10.2, 2)];
  const full = () => {
    throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
  };
  assert.throws(() => staging.stage(rows, [], full), /disk is full/);
  assert.equal(staging.symbolsOf('level2', '20250102'), []);
  assert.is(readAll(staging, ['600000.SH']).size, 0);
  staging.stage(rows, []);
  assert.equal(staging.symbolsOf('level2', '20250102'), ['600000.SH'], 'the symbol-day is recorded open by the retry');
  assert.equal(readAll(staging, ['600000.SH']).get('600000.SH')!.close, [10.1, 10.2]);
  assert.is(Staging.stagedDays(staging.db)[0]!.records, 2, 'no record appended twice');
  staging.close();
});

stageSuite.run();

const codecSuite = suite('record codec');
codecSuite('writeRecord (DataView) writes the bytes encodeRecord (Buffer) does; readRecord reads them back', () => {
  const size = recordBytes('level2');
  const base = row('600000.SH', 34_200_000, 10.5, 7);
  const r = { ...base, values: [-0.25, ...base.values.slice(1)] };
  const viaBuffer = Buffer.alloc(size, 0xee);
  encodeRecord(viaBuffer, 0, r, 7);
  const viaView = new Uint8Array(size).fill(0xee);
  assert.is(writeRecord(new DataView(viaView.buffer), 0, r.symbol, r.timeMs, r.values, 7), size);
  assert.equal(viaView, new Uint8Array(viaBuffer));
  assert.equal(readRecord(viaView, 0, 'level2'), { timeMs: r.timeMs, values: r.values });
});
codecSuite.run();

const dropSuite = suite('Staging.drop');
dropSuite("forgets dropped symbols; removes the day's segments once none is open", () => {
  const { staging, dir } = openStaging();
  staging.stage([row('600000.SH', 1000, 1), row('000001.SZ', 1000, 2)], []);
  const segDir = join(dir, 'staging', 'level2', '20250102');
  staging.drop('level2', '20250102', ['600000.SH']);
  assert.equal(staging.symbolsOf('level2', '20250102'), ['000001.SZ']);
  assert.ok(existsSync(segDir) && statSync(segDir).isDirectory());
  staging.drop('level2', '20250102', ['000001.SZ']);
  assert.equal(staging.openDays(), []);
  assert.not.ok(existsSync(segDir));
  staging.close();
});
dropSuite.run();

const bigBucketSuite = suite('Staging.readBucket over the read budget');
bigBucketSuite('a bucket larger than the budget is read in symbol groups, rows intact', () => {
  const { staging } = openStaging();
  // Two stock codes that share a bucket, 12,000 rows each: ~9.6 MB, over the 8 MiB budget.
  const first = '600000.SH';
  let second = '';
  for (let code = 600001; !second; code++) if (bucketOf(`${code}.SH`) === bucketOf(first)) second = `${code}.SH`;
  const N = 12_000;
  for (let start = 0; start < N; start += 2000) {
    const rows: SnapshotRow[] = [];
    for (let i = start; i < start + 2000; i++) {
      rows.push(row(first, 30_000_000 + (N - i) * 1000, i));
      rows.push(row(second, 30_000_000 + i * 1000, -i));
    }
    staging.stage(rows, [], undefined, { sync: false });
  }
  staging.stage([row(second, 30_000_000 + 5 * 1000, 12345)], []); // a later correction
  const got = readAll(staging, [first, second]);
  const a = got.get(first)!;
  const b = got.get(second)!;
  assert.is(a.times.length, N);
  assert.is(b.times.length, N);
  assert.equal(a.times.slice(0, 3), [30_001_000, 30_002_000, 30_003_000]);
  assert.equal(a.close.slice(0, 3), [N - 1, N - 2, N - 3]);
  assert.ok(b.times.every((t, i) => i === 0 || t > b.times[i - 1]));
  assert.equal(b.close.slice(4, 7), [-4, 12345, -6]);
  staging.close();
});
bigBucketSuite.run();

const flushSuite = suite('Staging.flush / publish');
flushSuite('rows staged with sync: false are invisible until published: not after flush(), all after commitAppended()', async () => {
  const { staging, dir } = openStaging();
  const other = Staging.open(join(dir, 'ingest.db'), () => 0);
  staging.stage([row('600000.SH', 1000, 1)], []);
  staging.stage([row('600000.SH', 2000, 2), row('000001.SZ', 1000, 7)], [{ source: 'f:2', reason: 'not JSON', raw: '{' }], undefined, { sync: false });
  const all = ['600000.SH', '000001.SZ'];
  assert.equal(readAll(other, all).get('600000.SH')!.close, [1], 'appended only');
  assert.not.ok(readAll(other, all).has('000001.SZ'));
  assert.is(other.quarantineCount(), 1, 'rejects are quarantined at once');
  await staging.flush();
  assert.equal(readAll(other, all).get('600000.SH')!.close, [1], 'durable now, still not published');
  assert.equal(other.symbolsOf('level2', '20250102'), ['600000.SH']);
  await staging.commitAppended();
  assert.equal(readAll(other, all).get('600000.SH')!.close, [1, 2]);
  assert.equal(readAll(other, all).get('000001.SZ')!.close, [7]);
  assert.equal(other.symbolsOf('level2', '20250102'), ['000001.SZ', '600000.SH']);
  other.close();
  staging.close();
});

flushSuite('publishAppended refuses rows not fsynced yet, then publishes them once flushed; a hook over unpublished rows is refused', async () => {
  const { staging, dir } = openStaging();
  const other = Staging.open(join(dir, 'ingest.db'), () => 0);
  staging.stage([row('600000.SH', 1000, 1)], [], undefined, { sync: false });
  assert.throws(() => staging.publishAppended(), /fsynced/);
  assert.is(readAll(other, ['600000.SH']).size, 0);
  assert.throws(() => staging.stage([row('600000.SH', 2000, 2)], [], () => undefined, { sync: false }), /publish/);
  await staging.flush();
  staging.publishAppended(() => [{ source: 't/0@1', reason: 'not JSON', raw: 'x' }]);
  assert.equal(readAll(other, ['600000.SH']).get('600000.SH')!.close, [1]);
  assert.is(other.quarantineCount(), 1, "the hook's rejects are quarantined with the publish");
  other.close();
  staging.close();
});

flushSuite('nothing left to do once the day is dropped', async () => {
  const { staging } = openStaging();
  staging.stage([row('600000.SH', 1000, 1), row('000001.SZ', 1000, 2)], []);
  staging.stage([row('600000.SH', 2000, 3)], [], undefined, { sync: false });
  staging.drop('level2', '20250102', ['600000.SH', '000001.SZ']);
  await staging.flush(); // its segments are closed and removed: must not throw
  await staging.commitAppended();
  assert.equal(staging.openDays(), [], 'the publish reopens nothing sealed');
  staging.close();
});
flushSuite.run();
