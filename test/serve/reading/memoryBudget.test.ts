/**
 * The one budget: its shares add up to --cache-mb exactly, and the caches inside it hold to
 * their bounds. A day listing's estimate is held against the heap it really takes (gc, then
 * heapUsed + array buffers), so the bound in bytes is a bound on memory, not on a count.
 */
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CatalogReader, CatalogWriter, openCatalog, type NewCatalogFile } from '../../../storage/catalog.js';
import { encodeMinuteCounts } from '../../../storage/minuteIndex.js';
import { ByteLru } from '../../../serve/reading/byteLru.js';
import { DamageRecords } from '../../../serve/reading/damageRecords.js';
import { splitBudget } from '../../../serve/reading/memoryBudget.js';
import { TickDays } from '../../../serve/tickHistory/dayFiles.js';
import { tempDir } from '../../support/tempDir.js';

const test = suite('serve/reading/memoryBudget');
const MiB = 1 << 20;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

test('the shares add up to the budget, with or without row-JSON workers', () => {
  for (const [mb, threads] of [
    [768, 2],
    [768, 0],
    [64, 1],
    [1, 4],
  ] as const) {
    const s = splitBudget(mb * MiB, threads);
    const all = s.boundaryBytes + s.detailBytes + s.workerFooterBytes * threads + s.damageBytes;
    assert.ok(all <= mb * MiB && all >= mb * MiB - threads, `${mb} MiB, ${threads} threads: ${all}`);
    assert.ok(s.detailBytes > 0 && s.boundaryBytes > 0 && s.damageBytes > 0);
    // Rounding down each share loses under a byte per worker; nothing is outside.
    if (threads === 0) assert.is(s.workerFooterBytes, 0);
  }
  // The default keeps the boundary rows' 512 MiB.
  assert.is(splitBudget(768 * MiB, 2).boundaryBytes, 512 * MiB);
});

/** A catalog of `days` sealed level-2 days of `symbols` files spanning 09:15–15:00 (346 minutes). */
function catalogOf(days: number, symbols: number): { reader: CatalogReader; dates: string[] } {
  const db = openCatalog(join(tempDir(), 'catalog.db'));
  const writer = new CatalogWriter(db);
  const dates = Array.from({ length: days }, (_, i) => `2024${String(3 + Math.floor(i / 28)).padStart(2, '0')}${String(1 + (i % 28)).padStart(2, '0')}`);
  for (const d of dates) {
    const files: NewCatalogFile[] = Array.from({ length: symbols }, (_, s) => ({
      symbol: `${600000 + s}.SH`,
      relPath: `level2/date=${d}/${600000 + s}.SH.parquet`,
      rows: 346 * 20,
      firstTimeMs: 33_300_000,
      lastTimeMs: 54_000_000,
      bytes: 400_000,
      sha256: 'ab'.repeat(32),
      minuteBase: 555,
      minuteCounts: encodeMinuteCounts(new Uint16Array(346).fill(20)),
    }));
    writer.recordFiles('level2', d, 1200, files, 1);
    writer.markDaySealed('level2', d, 1);
  }
  return { reader: new CatalogReader(db), dates };
}

test("day listings are kept in the LRU's bytes: the oldest go, and the estimate is the heap they take to within a factor of 2", () => {
  const { reader, dates } = catalogOf(12, 2000);
  // Room for about three days.
  const lru = new ByteLru(3.5 * 2000 * 3000);
  const days = new TickDays(reader, 'level2', lru);
  gc();
  const before = process.memoryUsage();
  const kept = dates.map((d) => days.day(d));
  gc();
  const after = process.memoryUsage();
  const heap = after.heapUsed - before.heapUsed + (after.arrayBuffers - before.arrayBuffers);
  // Every listing is still referenced here, so the heap holds all twelve; the estimate of
  // one listing times twelve must be within a factor of 2 of it.
  const perDay = lru.usedBytes / lru.size;
  assert.ok(perDay * 12 < 2 * heap && heap < 2 * perDay * 12, `estimated ${Math.round(perDay * 12)} B, heap ${heap} B`);
  assert.ok(lru.usedBytes <= lru.maxBytes, `${lru.usedBytes} used of ${lru.maxBytes}`);
  assert.equal(
    lru.keys(),
    dates.slice(-3).map((d) => `listing:level2:${d}`),
    'the three most recent days stay',
  );
  assert.is(days.day(dates[11]!), kept[11], 'a kept day is answered from the LRU');
  assert.is.not(days.day(dates[0]!), kept[0], 'an evicted day is listed again');
  assert.is(days.day(dates[0]!).files.length, 2000);
});

test('damage records stay within their bytes; a forgotten record is reported again', () => {
  const records = new DamageRecords(100_000);
  let first = 0;
  for (let i = 0; i < 1000; i++) if (records.firstReport('part', `_boundary/level2/date=20240102/${i}.tvb`)) first++;
  assert.is(first, 1000);
  assert.ok(records.usedBytes <= 100_000, `${records.usedBytes}`);
  assert.not.ok(records.firstReport('part', '_boundary/level2/date=20240102/999.tvb'), 'a remembered part is not reported twice');
  assert.ok(records.firstReport('part', '_boundary/level2/date=20240102/0.tvb'), 'the oldest was forgotten');
  records.remember('file', 'level2/date=20240102/600000.SH.parquet', { identity: 'x' });
  assert.is(records.count('file'), 1);
  assert.ok(records.count('part') > 0 && records.count('part') < 1000);
});

test.run();
