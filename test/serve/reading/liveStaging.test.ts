/**
 * Where a server reads a live day (serve/reading/liveStaging.ts), over a real ingest.db and
 * staging files: a staged day is live with its rows; a day not staged is not; and a segment
 * removed under the read (the seal finishing between listing and reading) makes the day read as
 * not live (the caller asks the catalog again) instead of failing the request.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openIngestStores } from '../../../ingest/staging/stores.js';
import { SCHEMAS } from '../../../shared/schema.js';
import { ByteLru } from '../../../serve/reading/byteLru.js';
import { LiveStaging } from '../../../serve/reading/liveStaging.js';
import { bucketOf } from '../../../storage/staging/stagingReader.js';
import { tempDir } from '../../support/tempDir.js';

const test = suite('serve/reading/liveStaging');

/** Another stock in the staging bucket of `symbol`. */
function sameBucketAs(symbol: string): string {
  for (let i = 600001; ; i++) if (bucketOf(`${i}.SH`) === bucketOf(symbol)) return `${i}.SH`;
}

const DAY = '20250103';
const NOW = Date.parse('2025-01-03T10:00:00+08:00');

test('a staged day is live with its rows; a segment removed under the read reads as not live', async () => {
  const dir = tempDir('tickvault-live-staging-');
  const stores = openIngestStores(dir, () => NOW);
  const values = new Array<number | null>(SCHEMAS.level2.valueFields.length).fill(null);
  stores.staging.stage(
    [0, 1, 2].map((i) => ({ dataset: 'level2' as const, symbol: '600000.SH', tradedate: DAY, timeMs: 36_000_000 + i * 3000, values })),
    [],
  );
  await stores.staging.flush();
  stores.close();
  const cache = new ByteLru(64 << 20);
  const live = new LiveStaging(dir, cache);
  try {
    const day = live.symbolDay('level2', DAY, '600000.SH');
    assert.is(day?.rows, 3);
    assert.equal(Array.from(day!.timesMs), [36_000_000, 36_003_000, 36_006_000]);
    assert.is(live.symbolDay('level2', '20250106', '600000.SH'), undefined, 'a day with nothing staged is not live');
    assert.is(live.symbolDay('level2', DAY, '600004.SH')?.rows, 0, 'live, nothing staged for that symbol yet');
    assert.ok(cache.size > 0);
    // The files go (the seal removes them after deleting their rows; here the rows stay listed).
    rmSync(join(dir, 'staging', 'level2', DAY), { recursive: true, force: true });
    // A symbol not followed yet in the same bucket: its segment is read, and is gone.
    const neighbour = sameBucketAs('600000.SH');
    assert.is(live.symbolDays('level2', DAY, ['600000.SH', neighbour]), undefined);
    assert.is(live.symbolDay('level2', DAY, neighbour), undefined);
  } finally {
    live.close();
  }
});

test.run();
