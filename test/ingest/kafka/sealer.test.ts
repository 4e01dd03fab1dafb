import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { pino } from 'pino';
import { decodeChunk, type ChunkMessage } from '../../../ingest/kafka/chunk.js';
import { GroupCommitter } from '../../../ingest/kafka/commits.js';
import { IngestMetrics } from '../../../ingest/kafka/metrics.js';
import { KeyCanon } from '../../../ingest/kafka/messages.js';
import { KafkaOffsetStore } from '../../../ingest/kafka/offsets.js';
import { partitionForKey } from '../../../ingest/kafka/partitions.js';
import type { Assignment, KafkaView, Watermarks } from '../../../ingest/kafka/positions.js';
import { KafkaSealer } from '../../../ingest/kafka/sealer.js';
import { KafkaSealState, PartitionLateGuard } from '../../../ingest/kafka/sealState.js';
import { encodeParquet } from '../../../storage/parquet/writer.js';
import { openIngestStores, type IngestStores } from '../../../ingest/staging/stores.js';
import { formatLevel2Time } from '../../../shared/timeFormat.js';
import { tempDir } from '../../support/tempDir.js';
import { CatalogReader } from '../../../storage/catalog.js';

const TOPICS = { level2: 'md.level2', index: 'md.index' };
const DAY = '20250102';
const AFTER_CLOSE = Date.parse('2025-01-02T16:30:00+08:00');
const BEFORE_CLOSE = Date.parse('2025-01-02T14:00:00+08:00');
const SYMBOLS = Array.from({ length: 12 }, (_, i) => `${600000 + i}.SH`);

/** One simulated ingest process on a shared data directory, with a scripted Kafka view. */
class Proc {
  readonly stores: IngestStores;
  readonly offsets: KafkaOffsetStore;
  readonly late: PartitionLateGuard;
  readonly committer: GroupCommitter;
  readonly sealer: KafkaSealer;
  owned: Assignment | null;
  /** Extra messages beyond the stored position, per partition: makes the process lag. */
  pendingHigh = new Map<number, number>();
  now = AFTER_CLOSE;
  private readonly keys = new KeyCanon('level2');

  constructor(dir: string, partitions: number[]) {
    this.stores = openIngestStores(dir, () => this.now);
    this.offsets = new KafkaOffsetStore(this.stores.staging.db);
    const sealState = new KafkaSealState(this.stores.staging.db);
    const late = new PartitionLateGuard(this.stores.late, sealState);
    this.late = late;
    this.committer = new GroupCommitter(
      { staging: this.stores.staging, offsets: this.offsets, sealState, nowMs: () => this.now },
      () => undefined,
      (e) => {
        throw e;
      },
    );
    this.owned = new Map([[TOPICS.level2, partitions], [TOPICS.index, partitions]]);
    const view: KafkaView = {
      assignment: () => this.owned,
      watermarks: async (topic): Promise<Watermarks[]> => {
        const stored = this.offsets.ofTopic(topic);
        return [0, 1, 2, 3].map((p) => ({ partition: p, low: 0, high: (stored.get(p) ?? 0) + (this.pendingHigh.get(p) ?? 0) }));
      },
      committed: async () => new Map(),
    };
    this.sealer = new KafkaSealer({
      stores: this.stores, encode: encodeParquet, offsets: this.offsets, sealState, late, view, topics: TOPICS,
      sealAfterMs: 16 * 3_600_000, nowMs: () => this.now, log: pino({ level: 'silent' }), metrics: new IngestMetrics({ defaultMetrics: false }),
    });
  }

  /** Stages `n` snapshots of each symbol on the partition the default partitioner gives it. */
  async feed(symbols: readonly string[], n: number, fromSlot = 0): Promise<Map<number, { staged: number; late: number }>> {
    const out = new Map<number, { staged: number; late: number }>();
    for (const p of [0, 1, 2, 3]) {
      const mine = symbols.filter((s) => partitionForKey(s, 4) === p);
      if (mine.length === 0) continue;
      const start = this.offsets.next(TOPICS.level2, p) ?? 0;
      const msgs: ChunkMessage[] = [];
      for (let k = 0; k < n; k++) {
        for (const s of mine) {
          const value = { symbol: s, tradedate: DAY, time: formatLevel2Time(9.5 * 3_600_000 + (fromSlot + k) * 3000), close: 10 + k, volume: k };
          msgs.push({ offset: String(start + msgs.length), key: Buffer.from(s), value: Buffer.from(JSON.stringify(value)) });
        }
      }
      this.committer.add(decodeChunk(this.late, TOPICS.level2, p, 'level2', msgs, this.keys, this.committer.knownNext(TOPICS.level2, p)));
      const [r] = await this.committer.flush();
      out.set(p, { staged: r.staged, late: r.late });
    }
    return out;
  }

  files(): string[] {
    return new CatalogReader(this.stores.catalog).symbolsOfDay('level2', DAY);
  }

  daySealed(): boolean {
    return new CatalogReader(this.stores.catalog).isDaySealed('level2', DAY);
  }
}

const s = suite('KafkaSealer');

s('seals nothing before the day is due', async () => {
  const a = new Proc(tempDir(), [0, 1, 2, 3]);
  a.now = BEFORE_CLOSE;
  await a.feed(SYMBOLS, 3);
  const r = await a.sealer.tick();
  assert.equal(r, { due: 0, caughtUp: null, partitionsSealed: 0, daysSealed: 0 });
  assert.equal(a.files(), []);
  a.stores.close();
});

s('waits while any owned partition has messages left, then seals the whole day', async () => {
  const a = new Proc(tempDir(), [0, 1, 2, 3]);
  await a.feed(SYMBOLS, 3);
  a.pendingHigh.set(2, 5);
  const waiting = await a.sealer.tick();
  assert.is(waiting.caughtUp, false);
  assert.equal(a.files(), []);
  a.pendingHigh.clear();
  const r = await a.sealer.tick();
  assert.equal(r, { due: 1, caughtUp: true, partitionsSealed: 4, daysSealed: 1 });
  assert.equal(a.files(), SYMBOLS);
  assert.ok(a.daySealed());
  assert.equal(a.stores.staging.openDays(), []);
  a.stores.close();
});

s('does not seal while the group is rebalancing (no assignment)', async () => {
  const a = new Proc(tempDir(), [0, 1, 2, 3]);
  await a.feed(SYMBOLS, 2);
  a.owned = null;
  const r = await a.sealer.tick();
  assert.equal(r, { due: 1, caughtUp: null, partitionsSealed: 0, daysSealed: 0 });
  a.stores.close();
});

s('two processes on one data directory seal their own symbols; the last marks the day', async () => {
  const dir = tempDir();
  const a = new Proc(dir, [0, 1]);
  const b = new Proc(dir, [2, 3]);
  await a.feed(SYMBOLS.filter((x) => partitionForKey(x, 4) < 2), 3);
  await b.feed(SYMBOLS.filter((x) => partitionForKey(x, 4) >= 2), 3);
  const ownedByA = SYMBOLS.filter((x) => partitionForKey(x, 4) < 2);
  assert.ok(ownedByA.length > 0 && ownedByA.length < SYMBOLS.length, 'the symbols spread over both processes');

  const ra = await a.sealer.tick();
  assert.equal(ra, { due: 1, caughtUp: true, partitionsSealed: 2, daysSealed: 0 });
  assert.equal(a.files(), ownedByA);
  assert.is(a.daySealed(), false, 'B has not sealed its partitions yet');

  // A's partitions are now late for the day; B's still take messages, which reach B's files.
  const lateA = await a.feed(ownedByA, 1, 100);
  for (const v of lateA.values()) {
    assert.is(v.staged, 0);
    assert.ok(v.late > 0);
  }
  const moreB = await b.feed(SYMBOLS.filter((x) => partitionForKey(x, 4) >= 2), 1, 100);
  for (const v of moreB.values()) assert.equal(v.late, 0);

  const rb = await b.sealer.tick();
  assert.equal(rb, { due: 1, caughtUp: true, partitionsSealed: 2, daysSealed: 1 });
  assert.equal(b.files(), SYMBOLS);
  assert.ok(b.daySealed());
  const rows = new CatalogReader(b.stores.catalog).filesOfDay('level2', DAY);
  for (const r of rows) assert.is(r.rows, partitionForKey(r.symbol, 4) < 2 ? 3 : 4, r.symbol);

  // Once the catalog marks the day, every message for it is late, for either process.
  const after = await a.feed(SYMBOLS, 1, 200);
  for (const v of after.values()) assert.is(v.staged, 0);
  assert.equal(await a.sealer.tick(), { due: 0, caughtUp: null, partitionsSealed: 0, daysSealed: 0 });
  a.stores.close();
  b.stores.close();
});

s('a process that owns every partition finishes a day another process left half sealed', async () => {
  const dir = tempDir();
  const a = new Proc(dir, [0, 1]);
  await a.feed(SYMBOLS, 2);
  await a.sealer.tick();
  assert.is(a.daySealed(), false);
  // A dies; after the rebalance B owns everything and completes the day.
  a.stores.close();
  const b = new Proc(dir, [0, 1, 2, 3]);
  const r = await b.sealer.tick();
  assert.equal(r, { due: 1, caughtUp: true, partitionsSealed: 2, daysSealed: 1 });
  assert.equal(b.files(), SYMBOLS);
  b.stores.close();
});

s.run();
