import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeChunk, type ChunkMessage } from '../../../ingest/kafka/chunk.js';
import { GroupCommitter, type FlushedPartition } from '../../../ingest/kafka/stagingCommits.js';
import { KeyCanon } from '../../../ingest/kafka/messages.js';
import { KafkaOffsetStore } from '../../../ingest/kafka/offsets.js';
import { KafkaSealState, PartitionLateGuard } from '../../../ingest/seal/sealState.js';
import { openIngestStores, type IngestStores } from '../../../ingest/staging/stores.js';
import { Staging } from '../../../ingest/staging/segments.js';
import { diskCauseOf } from '../../../storage/diskCause.js';
import { IngestError } from '../../../ingest/errors.js';
import { tempDir } from '../../support/tempDir.js';

const full = (code = 'SQLITE_FULL') => Object.assign(new Error('database or disk is full'), { code });

function messages(first: number, n: number): ChunkMessage[] {
  return Array.from({ length: n }, (_, i) => {
    const time = `0930${String(i * 3).padStart(2, '0')}000`;
    const v = { symbol: '600000.SH', tradedate: '20250102', time, open: 10, high: 11, low: 9, close: 10 + i, pre_close: 10, volume: 100, amount: 1000 };
    return { offset: String(first + i), key: Buffer.from('600000.SH'), value: Buffer.from(JSON.stringify(v)) };
  });
}

/** A group commit over a real data directory, with the disk-fault hooks recorded. */
class Rig {
  readonly stores: IngestStores;
  readonly offsets: KafkaOffsetStore;
  readonly committer: GroupCommitter;
  readonly flushed: FlushedPartition[][] = [];
  readonly errors: Error[] = [];
  readonly faults: string[] = [];
  private readonly late: PartitionLateGuard;
  private readonly keys = new KeyCanon('level2');

  constructor() {
    const dir = tempDir();
    this.stores = openIngestStores(dir, () => 0);
    const db = this.stores.staging.db;
    this.offsets = new KafkaOffsetStore(db);
    const sealState = new KafkaSealState(db);
    this.late = new PartitionLateGuard(this.stores.late, sealState);
    this.committer = new GroupCommitter(
      {
        staging: this.stores.staging,
        offsets: this.offsets,
        sealState,
        nowMs: () => 0,
        dataDir: dir,
        diskFaults: {
          failed: (stage, where, e) => {
            if (diskCauseOf(e) === null) return null;
            this.faults.push(`${stage} failed at ${where.slice(dir.length)}`);
            return 10;
          },
          succeeded: (stage) => void this.faults.push(`${stage} ok`),
        },
      },
      (f) => void this.flushed.push(f),
      (e) => void this.errors.push(e),
      { maxMessages: 1_000_000, maxDelayMs: 60_000 },
    );
  }

  add(first: number, n: number): void {
    this.committer.add(decodeChunk(this.late, 'md.level2', 0, 'level2', messages(first, n), this.keys, this.committer.knownNext('md.level2', 0)));
  }

  records(): number {
    return Staging.stagedDays(this.stores.staging.db).reduce((a, d) => a + d.records, 0);
  }

  async until(what: string, cond: () => boolean): Promise<void> {
    const deadline = Date.now() + 5000;
    while (!cond()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }
}

const t = suite('GroupCommitter on a full disk');

t('a fault recording the offsets holds the batch back, reports nothing, and the retry records it without appending the rows twice', async () => {
  const r = new Rig();
  const advance = r.offsets.advance.bind(r.offsets);
  let failures = 2;
  r.offsets.advance = (...args) => {
    if (failures-- > 0) throw full();
    advance(...args);
  };
  try {
    r.add(100, 3);
    const e = await r.committer.flush().then(
      () => null,
      (x: unknown) => x,
    );
    assert.ok(e instanceof IngestError && e.stage === 'staging' && e.retriable, `a retriable staging error: ${String(e)}`);
    assert.is(r.committer.failed, null, 'not failed for good');
    assert.is(r.errors.length, 0, 'the ingestor is not told to stop');
    assert.is(r.flushed.length, 0, 'nothing reported: nothing committed to Kafka');
    assert.is(r.offsets.next('md.level2', 0), null);
    assert.is(r.committer.knownNext('md.level2', 0), 103, 'the held batch still counts as known (no refetch below it)');
    r.add(103, 2); // arriving during the fault: kept behind the held batch, no flush of its own
    await r.until('the retries to succeed', () => r.flushed.length === 1);
    assert.equal(r.faults, ['staging failed at /ingest.db', 'staging failed at /ingest.db', 'staging ok']);
    assert.is(r.offsets.next('md.level2', 0), 105);
    assert.is(r.flushed[0]![0]!.next, 105);
    assert.is(r.records(), 5, 'every row once');
  } finally {
    r.stores.close();
  }
});

t('a fault appending the rows (ENOSPC) leaves nothing staged; the retry stages them once', async () => {
  const r = new Rig();
  const staging = r.stores.staging;
  const stageRecords = staging.stageRecords.bind(staging);
  let failures = 1;
  staging.stageRecords = (...args) => {
    if (failures-- > 0) throw full('ENOSPC');
    stageRecords(...args);
  };
  try {
    r.add(0, 4);
    await r.committer.flush().catch(() => undefined);
    assert.equal(r.faults, ['staging failed at /staging']);
    assert.is(r.records(), 0);
    await r.until('the retry to succeed', () => r.flushed.length === 1);
    assert.is(r.records(), 4);
    assert.is(r.offsets.next('md.level2', 0), 4);
  } finally {
    r.stores.close();
  }
});

t('any other error still fails the committer for good', async () => {
  const r = new Rig();
  r.offsets.advance = () => {
    throw new Error('constraint failed');
  };
  try {
    r.add(0, 1);
    await r.committer.flush().catch(() => undefined);
    assert.ok(r.committer.failed);
    assert.is(r.errors.length, 1);
    assert.equal(r.faults, []);
  } finally {
    r.stores.close();
  }
});

t.run();
