import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { pino } from 'pino';
import { decodeChunk, type ChunkMessage } from '../../../ingest/kafka/chunk.js';
import { GroupCommitter } from '../../../ingest/kafka/stagingCommits.js';
import { IngestMetrics } from '../../../ingest/kafka/metrics.js';
import { KeyCanon } from '../../../ingest/kafka/messages.js';
import { KafkaOffsetStore } from '../../../ingest/kafka/offsets.js';
import { partitionForKey } from '../../../ingest/kafka/partitions.js';
import type { Assignment, KafkaView, Watermarks } from '../../../ingest/kafka/positions.js';
import { KafkaSealer } from '../../../ingest/seal/sealer.js';
import { KafkaSealState, PartitionLateGuard } from '../../../ingest/seal/sealState.js';
import { encodeParquet } from '../../../storage/parquet/writer.js';
import type { Encoder } from '../../../ingest/seal/day.js';
import { openIngestStores, type IngestStores } from '../../../ingest/staging/stores.js';
import { formatLevel2Time } from '../../../shared/timeFormat.js';
import { tempDir } from '../../support/tempDir.js';
import { CatalogReader } from '../../../storage/catalog.js';
import { PostgresSealCuts } from '../../../ingest/seal/postgresSealCuts.js';
import type { SealCutStore } from '../../../ingest/seal/sealCuts.js';
import { postgresForTests } from '../../support/postgres.js';

/** For the seal-cut tests at the end (started first, so every suite runs under one total). */
const cluster = await postgresForTests('seal cuts in the sealer (PostgreSQL)');

const TOPICS = { level2: 'md.level2', index: 'md.index', trade: 'md.trade', order: 'md.order' };
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

  constructor(dir: string, partitions: number[], cuts?: SealCutStore, encode?: Encoder) {
    this.stores = openIngestStores(dir, () => this.now);
    this.offsets = new KafkaOffsetStore(this.stores.staging.db);
    const sealState = new KafkaSealState(this.stores.staging.db);
    const late = new PartitionLateGuard(this.stores.late, sealState, cuts !== undefined);
    this.late = late;
    this.committer = new GroupCommitter(
      { staging: this.stores.staging, offsets: this.offsets, sealState, nowMs: () => this.now },
      () => undefined,
      (e) => {
        throw e;
      },
    );
    this.owned = new Map([
      [TOPICS.level2, partitions],
      [TOPICS.index, partitions],
    ]);
    const view: KafkaView = {
      assignment: () => this.owned,
      watermarks: async (topic): Promise<Watermarks[]> => {
        const stored = this.offsets.ofTopic(topic);
        return [0, 1, 2, 3].map((p) => ({ partition: p, low: 0, high: (stored.get(p) ?? 0) + (this.pendingHigh.get(p) ?? 0) }));
      },
      committed: async () => new Map(),
    };
    this.sealer = new KafkaSealer({
      stores: this.stores,
      encode: encode ?? encodeParquet,
      offsets: this.offsets,
      sealState,
      late,
      view,
      topics: TOPICS,
      ...(encode ? { workers: false } : {}),
      sealAfterMs: 16 * 3_600_000,
      nowMs: () => this.now,
      log: pino({ level: 'silent' }),
      metrics: new IngestMetrics({ defaultMetrics: false }),
      ...(cuts ? { cuts, site: 'this-site', drainCommits: () => this.committer.flush() } : {}),
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

/** Two processes on one data directory, A owning partitions 0-1 and B 2-3, each fed its symbols. */
async function twoProcessesFed(): Promise<{ a: Proc; b: Proc }> {
  const dir = tempDir();
  const a = new Proc(dir, [0, 1]);
  const b = new Proc(dir, [2, 3]);
  await a.feed(
    SYMBOLS.filter((x) => partitionForKey(x, 4) < 2),
    3,
  );
  await b.feed(
    SYMBOLS.filter((x) => partitionForKey(x, 4) >= 2),
    3,
  );
  return { a, b };
}

s('two processes on one data directory seal their own symbols; the last marks the day', async () => {
  const { a, b } = await twoProcessesFed();
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
  const moreB = await b.feed(
    SYMBOLS.filter((x) => partitionForKey(x, 4) >= 2),
    1,
    100,
  );
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

s('a day another process completed after this tick listed it due: its partitions are not sealed again', async () => {
  const { a, b } = await twoProcessesFed();
  assert.equal((await a.sealer.tick()).partitionsSealed, 2);
  assert.equal((await b.sealer.tick()).daysSealed, 1, 'B completes the day: the catalog marks it, its partition records are forgotten');
  // A's next tick had listed the day as due just before B completed it (two processes race in
  // the ingest e2e test); it goes on to seal its owned partitions of that day.
  type Racing = { sealOwnedPartitions(day: { dataset: 'level2'; tradedate: string }, topic: string, count: number, owned: number[]): Promise<number> };
  const resealed = await (a.sealer as unknown as Racing).sealOwnedPartitions({ dataset: 'level2', tradedate: DAY }, TOPICS.level2, 4, [0, 1]);
  assert.is(resealed, 0, 'partitions of a day the catalog marks sealed are not sealed again');
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

/**
 * Seal cuts agreed with another site (a real PostgreSQL database): this process staged rows
 * past the cut before it knew the cut (it was ahead of the site that sealed first). Its seal
 * must leave them out and quarantine them once, as canonical feed lines; messages arriving
 * after are late at once, the same way.
 */
const cutSuite = suite('KafkaSealer with seal cuts agreed through PostgreSQL');
if (cluster) {
  cutSuite.after(async () => {
    await cluster.stop();
  });

  cutSuite("rows staged past another site's cut are left out of the files and quarantined once as canonical lines", async () => {
    const cuts = await PostgresSealCuts.open(await cluster.createDatabase());
    const a = new Proc(tempDir(), [0, 1, 2, 3], cuts);
    try {
      await a.feed(SYMBOLS, 3);
      // Another site sealed every partition here, at this process's current positions.
      const agreed = new Map<number, number>();
      for (const p of [0, 1, 2, 3]) {
        const offset = a.offsets.next(TOPICS.level2, p) ?? 0;
        agreed.set(p, await cuts.agree({ topic: TOPICS.level2, partition: p, dataset: 'level2', tradedate: DAY, offset }, 'other-site'));
        await cuts.agree({ topic: TOPICS.index, partition: p, dataset: 'index', tradedate: DAY, offset: 0 }, 'other-site');
      }
      // Staged before this process learns the cuts: two more rows per symbol, and a symbol
      // whose every row is past its cut.
      const NEW = '600099.SH';
      const staged = await a.feed([...SYMBOLS, NEW], 2, 3);
      assert.ok(
        [...staged.values()].every((x) => x.late === 0),
        'not known yet: staged',
      );
      const r = await a.sealer.tick();
      assert.equal(r, { due: 1, caughtUp: true, partitionsSealed: 4, daysSealed: 1 });
      assert.equal(a.files(), SYMBOLS, 'no file for the symbol whose rows all came after the cut');
      const catalog = new CatalogReader(a.stores.catalog);
      for (const sym of SYMBOLS) assert.is(catalog.file('level2', DAY, sym)!.rows, 3, `${sym}: only the rows before the cut`);
      assert.equal(a.stores.staging.openDays(), []);
      const late = a.stores.staging.db.prepare("SELECT source, reason, raw FROM quarantine WHERE reason LIKE 'late:%' ORDER BY source").all() as {
        source: string;
        reason: string;
        raw: string;
      }[];
      assert.is(late.length, (SYMBOLS.length + 1) * 2);
      for (const q of late) {
        const m = /^md\.level2\/(\d)@(\d+)$/.exec(q.source)!;
        assert.ok(Number(m[2]) >= agreed.get(Number(m[1]))!, `${q.source} is past its partition's cut`);
        const row = JSON.parse(q.raw) as Record<string, unknown>;
        assert.is(q.reason, `late: level2 ${DAY} ${row.symbol as string} is already sealed`);
        // The canonical line is a valid feed line carrying the message's values.
        assert.is(row.kind, 'level2');
        assert.is(row.tradedate, DAY);
        assert.ok(row.close === 10 || row.close === 11, `close ${String(row.close)}`);
        const slot = 3 + (row.close as number) - 10;
        assert.is(row.time, formatLevel2Time(9.5 * 3_600_000 + slot * 3000));
        assert.is(row.volume, (row.close as number) - 10);
        assert.is(row.bid1, null);
      }
      // A message arriving now is late at once, with the same kind of entry.
      const after = await a.feed([SYMBOLS[0]], 1, 9);
      assert.equal(
        [...after.values()].map((x) => x.late),
        [1],
      );
      const last = a.stores.staging.db.prepare("SELECT raw FROM quarantine WHERE reason LIKE 'late:%' ORDER BY id DESC LIMIT 1").pluck().get() as string;
      assert.is((JSON.parse(last) as Record<string, unknown>).time, formatLevel2Time(9.5 * 3_600_000 + 9 * 3000));
    } finally {
      a.stores.close();
      await cuts.close();
    }
  });

  cutSuite('the shared database down at seal time: the day waits, consuming goes on, and it seals once the database is back', async () => {
    const cuts = await PostgresSealCuts.open(await cluster.createDatabase());
    const a = new Proc(tempDir(), [0, 1, 2, 3], cuts);
    try {
      await a.feed(SYMBOLS, 3);
      await cluster.stop();
      const waiting = await a.sealer.tick();
      assert.equal(waiting, { due: 1, caughtUp: true, partitionsSealed: 0, daysSealed: 0 });
      assert.equal(a.files(), []);
      const more = await a.feed(SYMBOLS, 1, 3);
      assert.ok(
        [...more.values()].every((x) => x.staged > 0 && x.late === 0),
        'still staging',
      );
      await cluster.start();
      const r = await a.sealer.tick();
      assert.equal(r, { due: 1, caughtUp: true, partitionsSealed: 4, daysSealed: 1 });
      assert.equal(a.files(), SYMBOLS);
      const catalog = new CatalogReader(a.stores.catalog);
      for (const sym of SYMBOLS) assert.is(catalog.file('level2', DAY, sym)!.rows, 4, `${sym}: everything consumed before the cut`);
    } finally {
      await cluster.start();
      a.stores.close();
      await cuts.close();
    }
  });

  cutSuite('a seal that fails midway (after quarantining past the cut) and runs again writes the same files and quarantines nothing twice', async () => {
    const url = await cluster.createDatabase();
    const dirs = [tempDir(), tempDir()];
    const results: { files: Map<string, string>; late: string[] }[] = [];
    for (const [k, dir] of dirs.entries()) {
      // Site k: the same messages and the same cuts (agreed by "another site" first).
      const cuts = await PostgresSealCuts.open(url);
      let failAfter = k === 0 ? 5 : Infinity;
      const flaky: Encoder = async (cols, opts) => {
        if (failAfter-- <= 0) throw new Error('disk full (injected)');
        return encodeParquet(cols, opts);
      };
      const a = new Proc(dir, [0, 1, 2, 3], cuts, flaky);
      await a.feed(SYMBOLS, 3);
      for (const p of [0, 1, 2, 3]) {
        await cuts.agree(
          { topic: TOPICS.level2, partition: p, dataset: 'level2', tradedate: DAY, offset: a.offsets.next(TOPICS.level2, p) ?? 0 },
          'other-site',
        );
        await cuts.agree({ topic: TOPICS.index, partition: p, dataset: 'index', tradedate: DAY, offset: 0 }, 'other-site');
      }
      await a.feed(SYMBOLS, 2, 3);
      if (k === 0) {
        let failed = false;
        try {
          await a.sealer.tick();
        } catch {
          failed = true;
        }
        assert.ok(failed || !a.daySealed(), 'the first attempt did not finish the day');
        a.stores.close();
        // "Restart": a new process on the same data directory, with a working disk.
        const again = new Proc(dir, [0, 1, 2, 3], cuts, encodeParquet);
        const before = countSealed(again);
        assert.ok(before < 4, `${before} partitions sealed before the failure`);
        assert.equal(await again.sealer.tick(), { due: 1, caughtUp: true, partitionsSealed: 4 - before, daysSealed: 1 });
        results.push(snapshot(again));
        again.stores.close();
      } else {
        await a.sealer.tick();
        results.push(snapshot(a));
        a.stores.close();
      }
      await cuts.close();
    }
    assert.equal([...results[0].files.entries()].sort(), [...results[1].files.entries()].sort(), 'the same bytes as a seal that never failed');
    assert.equal(results[0].late, results[1].late);
    assert.is(results[0].late.length, SYMBOLS.length * 2, 'each row past the cut quarantined once');
  });
}
cutSuite.run();

/** Partitions of the level2 day already recorded sealed (the retry seals only the rest). */
function countSealed(p: Proc): number {
  return p.stores.staging.db.prepare("SELECT count(*) FROM kafka_sealed_partitions WHERE dataset = 'level2'").pluck().get() as number;
}

/** Files (symbol → sha256) and late quarantine entries of a process's data directory. */
function snapshot(p: Proc): { files: Map<string, string>; late: string[] } {
  const catalog = new CatalogReader(p.stores.catalog);
  const files = new Map(SYMBOLS.map((s) => [s, catalog.file('level2', DAY, s)!.sha256]));
  const late = p.stores.staging.db
    .prepare("SELECT source || ' ' || reason || ' ' || raw FROM quarantine WHERE reason LIKE 'late:%' ORDER BY source")
    .pluck()
    .all() as string[];
  return { files, late };
}
