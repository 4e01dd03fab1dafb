import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chunkFromReply, decodeChunk, type ChunkMessage } from '../../../ingest/kafka/chunk.js';
import { decodeRequest } from '../../../ingest/kafka/decodeWorker.js';
import { DecodeWorker, packRequest } from '../../../ingest/kafka/decoder.js';
import { GroupCommitter, type FlushedPartition } from '../../../ingest/kafka/stagingCommits.js';
import { KeyCanon, REJECT_HEADER } from '../../../ingest/kafka/messages.js';
import { KafkaOffsetStore } from '../../../ingest/kafka/offsets.js';
import { KafkaSealState, PartitionLateGuard } from '../../../ingest/seal/sealState.js';
import { openIngestStores, type IngestStores } from '../../../ingest/staging/stores.js';
import { formatLevel2Time } from '../../../shared/timeFormat.js';
import { openDb } from '../../../shared/sqlite.js';
import { bucketOf, StagingReader } from '../../../storage/staging/stagingReader.js';
import { join } from 'node:path';
import { tempDir } from '../../support/tempDir.js';

function l2(symbol: string, time: string, close: number): Record<string, unknown> {
  return { symbol, tradedate: '20250102', time, open: 10, high: 11, low: 9, close, pre_close: 10, volume: 100, amount: 1000 };
}

function messages(first: number, values: (Record<string, unknown> | string)[]): ChunkMessage[] {
  return values.map((v, i) => ({
    offset: String(first + i),
    key: Buffer.from(typeof v === 'string' ? '600000.SH' : String(v.symbol)),
    value: Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)),
  }));
}

type Outcome = Pick<FlushedPartition, 'next' | 'staged' | 'quarantined' | 'late' | 'skipped' | 'gap'>;

/** One process's append + group commit on a data directory. */
class Rig {
  readonly stores: IngestStores;
  readonly offsets: KafkaOffsetStore;
  readonly sealState: KafkaSealState;
  readonly late: PartitionLateGuard;
  readonly committer: GroupCommitter;
  private readonly keys = new KeyCanon('level2');

  constructor(dir = tempDir()) {
    this.stores = openIngestStores(dir, () => 0);
    const db = this.stores.staging.db;
    this.offsets = new KafkaOffsetStore(db);
    this.sealState = new KafkaSealState(db);
    this.late = new PartitionLateGuard(this.stores.late, this.sealState);
    this.committer = new GroupCommitter(
      { staging: this.stores.staging, offsets: this.offsets, sealState: this.sealState, nowMs: () => 0 },
      () => undefined,
      (e) => {
        throw e;
      },
      { maxMessages: 1_000_000, maxDelayMs: 60_000 },
    );
  }

  append(topic: string, partition: number, msgs: ChunkMessage[]): void {
    this.committer.add(decodeChunk(this.late, topic, partition, 'level2', msgs, this.keys, this.committer.knownNext(topic, partition)));
  }

  async stage(topic: string, partition: number, msgs: ChunkMessage[]): Promise<Outcome> {
    this.append(topic, partition, msgs);
    const [f] = await this.committer.flush();
    return { next: f.next, staged: f.staged, quarantined: f.quarantined, late: f.late, skipped: f.skipped, gap: f.gap };
  }

  quarantine(): { source: string; reason: string }[] {
    return this.stores.staging.db.prepare('SELECT source, reason FROM quarantine ORDER BY id').all() as { source: string; reason: string }[];
  }

  close(): void {
    this.stores.close();
  }
}

const c = suite('decodeChunk + GroupCommitter');

c('stages good rows, quarantines bad ones with topic/partition@offset, records the next offset', async () => {
  const r = new Rig();
  try {
    const res = await r.stage('md.level2', 1, messages(100, [l2('600000.SH', '093000000', 10), 'not json', l2('600000.SH', '093003000', 11)]));
    assert.equal(res, { next: 103, staged: 2, quarantined: 1, late: 0, skipped: 0, gap: 0 });
    assert.is(r.offsets.next('md.level2', 1), 103);
    assert.equal(r.quarantine(), [{ source: 'md.level2/1@101', reason: 'not JSON' }]);
    assert.equal(r.stores.staging.symbolsOf('level2', '20250102'), ['600000.SH']);
    assert.equal(r.sealState.symbolPartitions('level2', '20250102'), new Map([['600000.SH', 1]]));
  } finally {
    r.close();
  }
});

c('nothing is staged or recorded before the flush', async () => {
  const r = new Rig();
  try {
    r.append('t', 0, messages(0, [l2('600000.SH', '093000000', 10), 'bad']));
    assert.is(r.offsets.next('t', 0), null);
    assert.equal(r.quarantine(), []);
    assert.equal(r.stores.staging.openDays(), []);
    assert.is(r.committer.knownNext('t', 0), 2, 'the appended chunk counts for what comes next');
    await r.committer.flush();
    assert.is(r.offsets.next('t', 0), 2);
    assert.is(r.quarantine().length, 1);
  } finally {
    r.close();
  }
});

c("a server's reader sees no row of a group commit before its publish, after the fsync neither; then all of them with their offsets", async () => {
  const dir = tempDir();
  const r = new Rig(dir);
  // What a server reading the live day opens (serve/reading/liveStaging.ts): its own read-only connection.
  const db = openDb(join(dir, 'ingest.db'), { readonly: true });
  const reader = new StagingReader(db, dir);
  const seen = () => {
    const out: Record<string, number[]> = {};
    for (const symbol of reader.symbolsOf('level2', '20250102')) {
      for (const d of reader.readBucket('level2', '20250102', bucketOf(symbol), new Set([symbol]))) out[d.symbol] = [...d.values[3]];
    }
    const next = db.prepare('SELECT next_offset FROM kafka_offsets WHERE topic = ?').pluck().get('t') as number | undefined;
    return { rows: out, next: next ?? null };
  };
  // Step 2 (the fsync) is the point between the append and the publish: look on both sides of it.
  const staging = r.stores.staging;
  const fsync = staging.flush.bind(staging);
  const during: ReturnType<typeof seen>[] = [];
  staging.flush = async () => {
    during.push(seen());
    await fsync();
    during.push(seen());
  };
  try {
    await r.stage('t', 0, messages(0, [l2('600000.SH', '093000000', 1), l2('600000.SH', '093003000', 2)]));
    const first = { rows: { '600000.SH': [1, 2] }, next: 2 };
    assert.equal(
      during,
      [
        { rows: {}, next: null },
        { rows: {}, next: null },
      ],
      'appended, then fsynced: nothing visible yet',
    );
    assert.equal(seen(), first, 'published with its offsets');
    during.length = 0;
    await r.stage('t', 0, messages(2, [l2('600000.SH', '093006000', 3), l2('000001.SZ', '093000000', 7), l2('600000.SH', '093009000', 4)]));
    assert.equal(during, [first, first], 'the second commit: only the first one visible until its publish (no new symbol either)');
    assert.equal(seen(), { rows: { '000001.SZ': [7], '600000.SH': [1, 2, 3, 4] }, next: 5 });
  } finally {
    db.close();
    r.close();
  }
});

c('a re-delivered chunk is skipped whole: nothing staged or quarantined twice', async () => {
  const r = new Rig();
  try {
    const chunk = messages(0, [l2('600000.SH', '093000000', 10), 'bad']);
    await r.stage('t', 0, chunk);
    const again = await r.stage('t', 0, chunk);
    assert.equal(again, { next: 2, staged: 0, quarantined: 0, late: 0, skipped: 2, gap: 0 });
    assert.is(r.quarantine().length, 1);
  } finally {
    r.close();
  }
});

c('an overlapping chunk stages only the offsets past the stored one', async () => {
  const r = new Rig();
  try {
    await r.stage('t', 0, messages(0, [l2('600000.SH', '093000000', 1), l2('600000.SH', '093003000', 2), 'bad-2']));
    const res = await r.stage('t', 0, messages(1, [l2('600000.SH', '093003000', 2), 'bad-2', l2('600000.SH', '093006000', 3), 'bad-4']));
    assert.equal(res, { next: 5, staged: 1, quarantined: 1, late: 0, skipped: 2, gap: 0 });
    assert.equal(
      r.quarantine().map((q) => q.source),
      ['t/0@2', 't/0@4'],
    );
  } finally {
    r.close();
  }
});

c('two processes appending the same range: each quarantine entry once, the offset once advanced', async () => {
  const dir = tempDir();
  const a = new Rig(dir);
  const b = new Rig(dir);
  try {
    const chunk = messages(0, [l2('600000.SH', '093000000', 1), 'bad-1', l2('600000.SH', '093003000', 2)]);
    // Both append before either records: the rebalance race.
    a.append('t', 0, chunk);
    b.append('t', 0, chunk);
    const [fa] = await a.committer.flush();
    const [fb] = await b.committer.flush();
    assert.is(fa.quarantined + fb.quarantined, 1);
    assert.is(fb.skipped, 3);
    assert.equal(
      a.quarantine().map((q) => q.source),
      ['t/0@1'],
    );
    assert.is(a.offsets.next('t', 0), 3);
  } finally {
    a.close();
    b.close();
  }
});

c('a jump past the stored offset is reported as a gap', async () => {
  const r = new Rig();
  try {
    await r.stage('t', 0, messages(0, [l2('600000.SH', '093000000', 1)]));
    const res = await r.stage('t', 0, messages(10, [l2('600000.SH', '093003000', 1)]));
    assert.is(res.gap, 9);
    assert.is(res.next, 11);
  } finally {
    r.close();
  }
});

c('messages of a closed partition-day are quarantined as late; other partitions are not', async () => {
  const r = new Rig();
  try {
    r.late.closeAt('level2', '20250102', 3);
    const res = await r.stage('t', 3, messages(0, [l2('600000.SH', '093000000', 1)]));
    assert.equal(res, { next: 1, staged: 0, quarantined: 1, late: 1, skipped: 0, gap: 0 });
    assert.match(r.quarantine()[0].reason, /^late: level2 20250102 600000.SH is already sealed/);
    const other = await r.stage('t', 2, messages(0, [l2('600000.SH', '093000000', 1)]));
    assert.is(other.staged, 1);
  } finally {
    r.close();
  }
});

c('a large chunk of one symbol stages whole (more than one staging buffer)', async () => {
  const r = new Rig();
  try {
    const vals = Array.from({ length: 3000 }, (_, i) => l2('600000.SH', formatLevel2Time(9.5 * 3_600_000 + i * 3000), i));
    const res = await r.stage('t', 0, messages(0, vals));
    assert.is(res.staged, 3000);
    assert.is(res.next, 3000);
  } finally {
    r.close();
  }
});

c('several partitions and chunks flush as one group, each partition advanced in order', async () => {
  const r = new Rig();
  try {
    r.append('t', 0, messages(0, [l2('600000.SH', '093000000', 1), 'bad']));
    r.append('t', 1, messages(0, [l2('600001.SH', '093000000', 1)]));
    r.append('t', 0, messages(2, [l2('600000.SH', '093003000', 2)]));
    const flushed = await r.committer.flush();
    const byPartition = new Map(flushed.map((f) => [f.partition, f]));
    assert.is(byPartition.get(0)!.next, 3);
    assert.is(byPartition.get(0)!.messages, 3);
    assert.is(byPartition.get(1)!.next, 1);
    assert.is(r.offsets.next('t', 0), 3);
    assert.is(r.offsets.next('t', 1), 1);
  } finally {
    r.close();
  }
});

c('nothingQueued: flushed idleMs later unless another chunk comes first, without waiting for maxDelayMs', async () => {
  const r = new Rig();
  const flushed: number[] = [];
  const committer = new GroupCommitter(
    { staging: r.stores.staging, offsets: r.offsets, sealState: r.sealState, nowMs: () => 0 },
    (f) => flushed.push(f[0].next),
    (e) => {
      throw e;
    },
    { maxMessages: 1_000_000, maxDelayMs: 60_000, idleMs: 150 },
  );
  const keys = new KeyCanon('level2');
  const add = (first: number) =>
    committer.add(
      decodeChunk(
        r.late,
        't',
        0,
        'level2',
        messages(first, [l2('600000.SH', formatLevel2Time(34_200_000 + first * 3000), 1)]),
        keys,
        committer.knownNext('t', 0),
      ),
    );
  const wait = (ms: number) => new Promise((res) => setTimeout(res, ms));
  try {
    committer.nothingQueued();
    add(0);
    await wait(200);
    assert.equal(flushed, [], 'nothing pending when told: no flush armed; added alone waits for maxDelayMs');
    committer.nothingQueued();
    await wait(75);
    add(1);
    await wait(150);
    assert.equal(flushed, [], 'a chunk within idleMs: still streaming, no flush');
    committer.nothingQueued();
    await wait(75);
    assert.equal(flushed, []);
    await wait(150);
    assert.equal(flushed, [2], 'idle for idleMs: flushed');
  } finally {
    await committer.flush();
    r.close();
  }
});

c.run();

const w = suite('decode worker');

const mixed = (): ChunkMessage[] => [
  ...messages(0, [l2('600000.SH', '093000000', 10), 'not json', l2('600000.SH', '093003000', 11)]),
  { offset: '3', key: Buffer.from('600001.SH'), value: Buffer.from(JSON.stringify(l2('600000.SH', '093006000', 1))) },
  { offset: '4', key: Buffer.from('600000.SH'), value: null },
  { offset: '5', key: null, value: Buffer.from(JSON.stringify(l2('600000.SH', '093009000', 2))) },
  { offset: '6', key: Buffer.from('600000.SH'), value: Buffer.from('{"kind":"x"}'), headers: { [REJECT_HEADER]: 'unknown kind "x"' } },
  ...messages(7, [{ ...l2('600000.SH', '093012000', 3), bid1: null, ask1: 12.5 }]),
];

w('the worker protocol decodes exactly as the in-thread decoder does', () => {
  const r = new Rig();
  try {
    const msgs = mixed();
    const viaWorker = chunkFromReply(r.late, 't', 0, 'level2', msgs, decodeRequest(packRequest('level2', msgs)));
    const inThread = decodeChunk(r.late, 't', 0, 'level2', msgs, new KeyCanon('level2'), null);
    assert.equal(viaWorker, inThread);
    assert.is(inThread.symbolDayOf.length, 3);
    assert.is(inThread.rejects.length, 5);
  } finally {
    r.close();
  }
});

w('late rows among good ones: the worker path drops and quarantines exactly what the in-thread decoder does', () => {
  const r = new Rig();
  try {
    // 20250103 is cut at 3 (both its symbol-days wholly late), 20250102 at 5 (one row late).
    const msgs = [
      ...messages(0, [l2('600000.SH', '093000000', 1), l2('000001.SZ', '093000000', 2), 'bad']),
      ...messages(3, [
        { ...l2('000001.SZ', '093003000', 3), tradedate: '20250103' },
        { ...l2('000002.SZ', '093003000', 4), tradedate: '20250103' },
      ]),
      ...messages(5, [l2('000001.SZ', '093006000', 5)]),
    ];
    r.late.closeAt('level2', '20250103', 0, 3);
    r.late.closeAt('level2', '20250102', 0, 5);
    const viaWorker = chunkFromReply(r.late, 't', 0, 'level2', msgs, decodeRequest(packRequest('level2', msgs)));
    const inThread = decodeChunk(r.late, 't', 0, 'level2', msgs, new KeyCanon('level2'), null);
    assert.equal(viaWorker, inThread);
    assert.equal(inThread.rejectOffsets, [2, 3, 4, 5]);
    assert.is(inThread.late, 3);
    assert.equal(inThread.symbolDays, [
      { tradedate: '20250102', symbol: '600000.SH' },
      { tradedate: '20250102', symbol: '000001.SZ' },
    ]);
    assert.equal([...inThread.symbolDayOf], [0, 1]);
  } finally {
    r.close();
  }
});

w('a real worker thread answers requests in order and closes', async () => {
  const worker = new DecodeWorker();
  try {
    const msgs = mixed();
    const [a, b] = await Promise.all([worker.decode('level2', msgs), worker.decode('level2', msgs.slice(0, 2))]);
    assert.is(a.ok.length, msgs.length);
    assert.is(b.ok.length, 2);
    assert.equal([...a.ok], [1, 0, 1, 0, 0, 0, 0, 1]);
  } finally {
    await worker.close();
  }
  await worker.decode('level2', mixed()).then(
    () => assert.unreachable('a closed worker refuses work'),
    (e: Error) => assert.match(e.message, /closed/),
  );
});

w.run();
