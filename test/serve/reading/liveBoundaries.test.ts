/**
 * A live day's boundary candidates (serve/reading/liveBoundaries.ts) against rows computed here
 * from what was staged: over rounds of commits of several symbols (in order, out of order,
 * corrected duplicates across minutes), the row before and after every minute of the session
 * equals the one the duplicate rule gives (api-contract: The live day: one snapshot per time,
 * the later message wins), for a process following the day from its start and for one that
 * starts in the middle (a new LRU), and with an LRU too small to keep anything.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { seededRandom } from '../../../ingest/feed/generate.js';
import { openIngestStores } from '../../../ingest/staging/stores.js';
import { SCHEMAS } from '../../../shared/schema.js';
import { openDb } from '../../../shared/sqlite.js';
import { ByteLru } from '../../../serve/reading/byteLru.js';
import { LiveBoundaries } from '../../../serve/reading/liveBoundaries.js';
import { layoutFor } from '../../../storage/layout.js';
import { tempDir } from '../../support/tempDir.js';

const test = suite('serve/reading/liveBoundaries');

const DAY = '20250103';
const NOW = Date.parse('2025-01-03T10:00:00+08:00');
/** A minute of day after the session: every minute asked has passed. */
const AFTER_CLOSE = 18 * 60;
const CLOSE = SCHEMAS.level2.valueFields.findIndex((f) => f.name === 'close');

interface Staged {
  readonly symbol: string;
  readonly timeMs: number;
  readonly tag: number;
}

/** The tag of the row answering (minute, side) for `symbol` under the duplicate rule, or null. */
function expected(staged: readonly Staged[], symbol: string, minute: number, side: 'before' | 'after'): number | null {
  const byTime = new Map<number, number>();
  for (const r of staged) if (r.symbol === symbol) byTime.set(r.timeMs, r.tag); // the later message wins
  const edge = minute * 60_000;
  let best: number | null = null;
  for (const t of byTime.keys()) {
    if (side === 'after' ? t >= edge && (best === null || t < best) : t < edge && (best === null || t > best)) best = t;
  }
  return best === null ? null : byTime.get(best)!;
}

test('the row before and after every minute equals the duplicate rule over what is staged, round after round', async () => {
  const dir = tempDir('tickvault-live-boundaries-');
  const stores = openIngestStores(dir, () => NOW);
  const db = openDb(layoutFor(dir).ingestDb, { readonly: true });
  const symbols = ['600000.SH', '600004.SH', '000001.SZ', '300750.SZ', '688981.SH'];
  const following = new LiveBoundaries(dir, new ByteLru(64 << 20));
  const unkept = new LiveBoundaries(dir, new ByteLru(1));
  const rnd = seededRandom('live-boundaries');
  const staged: Staged[] = [];
  let clock = (9 * 60 + 15) * 60_000;
  let checks = 0;
  try {
    for (let round = 0; round < 30; round++) {
      const batch: Staged[] = [];
      for (const symbol of symbols.slice(0, round < 10 ? 4 : 5)) {
        for (let k = 0; k < 3; k++) {
          clock += 1_000 + Math.floor(rnd() * 20_000);
          batch.push({ symbol, timeMs: clock, tag: round * 1000 + batch.length });
        }
      }
      const old = staged[Math.floor(rnd() * staged.length)];
      if (old && round % 3 === 1) batch.push({ ...old, tag: -round }); // a corrected snapshot: the later one wins
      if (old && round % 4 === 2) batch.push({ symbol: old.symbol, timeMs: old.timeMs - 7, tag: -100 - round }); // out of order
      stores.staging.stage(
        batch.map((r) => {
          const values = new Array<number | null>(SCHEMAS.level2.valueFields.length).fill(null);
          values[CLOSE] = r.tag;
          return { dataset: 'level2' as const, symbol: r.symbol, tradedate: DAY, timeMs: r.timeMs, values };
        }),
        [],
      );
      await stores.staging.flush();
      staged.push(...batch);
      // A process that starts now (a server restarted mid-day) answers the same at once.
      const started = new LiveBoundaries(dir, new ByteLru(64 << 20));
      for (let minute = 9 * 60 + 14; minute <= Math.floor(clock / 60_000) + 1; minute += 1 + Math.floor(rnd() * 4)) {
        for (const side of ['before', 'after'] as const) {
          for (const b of [following, unkept, started]) {
            const { rows, withRows } = b.rows(db, 'level2', DAY, symbols, { minute, side, nowMinute: AFTER_CLOSE });
            assert.is(withRows, round < 10 ? 4 : 5);
            for (const s of symbols) {
              const got = rows.get(s);
              const tag = got === undefined ? null : got.values[CLOSE]![0]!;
              assert.is(tag, expected(staged, s, minute, side), `round ${round} ${s} ${side} ${minute}`);
              if (got !== undefined) assert.is(got.rows, 1);
              checks++;
            }
          }
        }
      }
    }
    assert.ok(checks > 10_000, `${checks} answers checked`);
    // Every symbol of the day when none are named.
    const all = following.rows(db, 'level2', DAY, null, { minute: 10 * 60, side: 'after', nowMinute: AFTER_CLOSE });
    assert.equal([...all.rows.keys()].sort(), [...symbols].sort());
    // Before a minute still to come (now 10:00, asked before 10:30): no row known yet, the symbols with rows still counted.
    const early = following.rows(db, 'level2', DAY, symbols, { minute: 10 * 60 + 30, side: 'before', nowMinute: 10 * 60 });
    assert.is(early.rows.size, 0);
    assert.is(early.withRows, symbols.length);
  } finally {
    db.close();
    stores.close();
  }
});

test.run();
