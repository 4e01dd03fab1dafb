/**
 * The server's followed staging (serve/reading/stagingTail.ts) against rows computed here from
 * what was staged: over rounds of commits (in order, out of order, corrected duplicates, a
 * trade re-sent with a moved time), every answer equals the rows the duplicate rule gives
 * (api-contract: The live day: sorted by time, then id; the later message wins), also with an
 * LRU too small to keep anything, and symbols with nothing staged are absent.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { seededRandom } from '../../../ingest/feed/generate.js';
import { openIngestStores, type IngestStores } from '../../../ingest/staging/stores.js';
import { SCHEMAS, type Dataset } from '../../../shared/schema.js';
import { openDb } from '../../../shared/sqlite.js';
import { ByteLru } from '../../../serve/reading/byteLru.js';
import { StagingTail, type LiveRows } from '../../../serve/reading/stagingTail.js';
import { bucketOf } from '../../../storage/staging/stagingReader.js';
import { layoutFor } from '../../../storage/layout.js';
import { tempDir } from '../../support/tempDir.js';

const test = suite('serve/reading/stagingTail');

const DAY = '20250103';
const NOW = Date.parse('2025-01-03T10:00:00+08:00');

/** Symbols of one staging bucket (a followed bucket holds several). */
function sameBucket(n: number): string[] {
  const out: string[] = [];
  const target = bucketOf('600000.SH');
  for (let i = 600000; out.length < n; i++) if (bucketOf(`${i}.SH`) === target) out.push(`${i}.SH`);
  return out;
}

/** A row as staged: its symbol, time, and (for trades) id; `tag` a value that shows which message won. */
interface Staged {
  readonly symbol: string;
  readonly timeMs: number;
  readonly id: number;
  readonly tag: number;
}

function rowOf(dataset: Dataset, r: Staged) {
  const fields = SCHEMAS[dataset].valueFields;
  const values = new Array<number | null>(fields.length).fill(null);
  values[fields.findIndex((f) => f.name === (dataset === 'trade' ? 'price' : 'close'))] = r.tag;
  if (dataset === 'trade') values[fields.findIndex((f) => f.name === 'trade_id')] = r.id;
  return { dataset, symbol: r.symbol, tradedate: DAY, timeMs: r.timeMs, values };
}

/** The rows the duplicate rule gives, computed from everything staged so far, as [time, id, tag]. */
function expected(dataset: Dataset, staged: readonly Staged[], symbol: string): number[][] {
  const latest = new Map<number, Staged>();
  // Snapshots: one per time; trades: one per id; the later message wins.
  for (const r of staged) if (r.symbol === symbol) latest.set(dataset === 'trade' ? r.id : r.timeMs, r);
  return [...latest.values()].sort((a, b) => a.timeMs - b.timeMs || a.id - b.id).map((r) => [r.timeMs, dataset === 'trade' ? r.id : 0, r.tag]);
}

function answered(dataset: Dataset, rows: LiveRows | undefined): number[][] {
  if (rows === undefined) return [];
  const fields = SCHEMAS[dataset].valueFields;
  const tag = rows.values[fields.findIndex((f) => f.name === (dataset === 'trade' ? 'price' : 'close'))]!;
  const id = dataset === 'trade' ? rows.values[SCHEMAS.trade.idValue!]! : null;
  return Array.from({ length: rows.rows }, (_, r) => [rows.timesMs[r]!, id === null ? 0 : id[r]!, tag[r]!]);
}

async function commit(stores: IngestStores, dataset: Dataset, rows: readonly Staged[]): Promise<void> {
  stores.staging.stage(
    rows.map((r) => rowOf(dataset, r)),
    [],
  );
  await stores.staging.flush();
}

for (const dataset of ['level2', 'trade'] as const) {
  test(`${dataset}: every answer over rounds of commits equals the duplicate rule over what is staged`, async () => {
    const dir = tempDir(`tickvault-tail-${dataset}-`);
    const stores = openIngestStores(dir, () => NOW);
    const db = openDb(layoutFor(dir).ingestDb, { readonly: true });
    const symbols = sameBucket(4);
    const bucket = bucketOf(symbols[0]!);
    const followed = new StagingTail(dir, new ByteLru(64 << 20));
    // Keeps nothing: every answer is read from the bucket afresh.
    const unkept = new StagingTail(dir, new ByteLru(1));
    const rnd = seededRandom(dataset);
    const staged: Staged[] = [];
    let clock = 9.5 * 3600_000;
    let nextId = 1000;
    let appended = 0;
    try {
      for (let round = 0; round < 40; round++) {
        const batch: Staged[] = [];
        // The last symbol stays without rows until round 20.
        for (const symbol of symbols.slice(0, round < 20 ? 3 : 4)) {
          const n = 1 + Math.floor(rnd() * 4);
          for (let k = 0; k < n; k++) {
            clock += 1 + Math.floor(rnd() * 3);
            batch.push({ symbol, timeMs: clock, id: nextId++, tag: round * 100 + k });
          }
        }
        const old = staged.filter((r) => r.symbol === symbols[round % 3]);
        const pick = old[Math.floor(rnd() * old.length)];
        if (round % 7 === 3 && pick) batch.push({ ...pick, tag: -round }); // a corrected duplicate
        if (round % 11 === 5 && pick) batch.push({ ...pick, id: nextId++, timeMs: pick.timeMs - 1, tag: -1000 - round }); // out of order
        if (dataset === 'trade' && round % 13 === 6 && pick) batch.push({ ...pick, timeMs: clock + 5, tag: -2000 - round }); // re-sent, time moved
        await commit(stores, dataset, batch);
        staged.push(...batch);
        appended += batch.length;
        // Ask for some symbols each round (not always all: a symbol asked later reads its bucket then).
        const asked = new Set(symbols.filter((_, i) => (round + i) % 2 === 0 || round > 30));
        const got = followed.bucketRows(db, dataset, DAY, bucket, asked);
        const fresh = unkept.bucketRows(db, dataset, DAY, bucket, asked);
        for (const s of asked) {
          const want = expected(dataset, staged, s);
          assert.equal(answered(dataset, got.get(s)), want, `${dataset} round ${round} ${s}`);
          assert.equal(answered(dataset, fresh.get(s)), want, `${dataset} round ${round} ${s}, nothing kept`);
          assert.is(got.has(s), want.length > 0, `${s}: absent exactly when nothing is staged`);
        }
      }
      assert.ok(appended > 300, `${appended} rows staged`);
    } finally {
      db.close();
      stores.close();
    }
  });
}

test('what is kept is in the LRU by bytes, one entry per followed bucket', async () => {
  const dir = tempDir('tickvault-tail-lru-');
  const stores = openIngestStores(dir, () => NOW);
  const db = openDb(layoutFor(dir).ingestDb, { readonly: true });
  try {
    const symbols = sameBucket(2);
    const rows: Staged[] = Array.from({ length: 1000 }, (_, i) => ({ symbol: symbols[i % 2]!, timeMs: 36_000_000 + i, id: i, tag: i }));
    await commit(stores, 'level2', rows);
    const lru = new ByteLru(64 << 20);
    const tail = new StagingTail(dir, lru);
    const followed = tail.bucketRows(db, 'level2', DAY, bucketOf(symbols[0]!), new Set(symbols));
    assert.is(lru.size, 1);
    assert.equal(answered('level2', followed.get(symbols[1]!)), expected('level2', rows, symbols[1]!));
    // 500 rows of each symbol: a time and every value field, 8 bytes each (arrays sized to the rows).
    const least = 2 * 500 * (4 + 8 * SCHEMAS.level2.valueFields.length);
    assert.ok(lru.usedBytes >= least && lru.usedBytes < least * 1.1, `${lru.usedBytes} bytes kept for ${least} bytes of rows`);
  } finally {
    db.close();
    stores.close();
  }
});

test.run();
