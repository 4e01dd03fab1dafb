/**
 * Staging as its readers see it (storage/staging/stagingReader.ts): the bucket of a symbol is
 * part of the on-disk format (a segment file per bucket), so it must never change; a staged
 * day written by the one writer is listed by a reader on its own read-only handle.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { recordBytes } from '../../../storage/staging/recordCodec.js';
import { openDb } from '../../../shared/sqlite.js';
import { Staging } from '../../../ingest/staging/segments.js';
import { BUCKETS, bucketOf, StagingReader } from '../../../storage/staging/stagingReader.js';
import { tempDir } from '../../support/tempDir.js';
import { SCHEMAS, type SnapshotRow } from '../../../shared/schema.js';

const test = suite('storage/staging/stagingReader');

test('bucketOf is FNV-1a (32-bit) of the symbol modulo 256, as segment files are named', () => {
  assert.is(BUCKETS, 256);
  // Computed independently (Python: h = (h ^ byte) * 0x01000193 mod 2^32 from 0x811c9dc5).
  assert.equal(['600000.SH', '000001.SZ', '830799.BJ', '000300'].map(bucketOf), [68, 213, 119, 156]);
});

test('a day staged by the writer is listed and read back through a read-only handle, duplicates resolved', () => {
  const dir = tempDir();
  const width = SCHEMAS.level2.valueFields.length;
  const row = (symbol: string, timeMs: number, close: number): SnapshotRow => {
    const values: (number | null)[] = new Array(width).fill(null);
    values[3] = close;
    return { dataset: 'level2', symbol, tradedate: '20250102', timeMs, values };
  };
  const staging = Staging.open(join(dir, 'ingest.db'), () => 0);
  staging.stage([row('600000.SH', 2000, 2), row('600000.SH', 1000, 1), row('000001.SZ', 1000, 5)], []);
  staging.stage([row('600000.SH', 2000, 3)], []); // a re-send: the later one wins
  staging.close();
  const db = openDb(join(dir, 'ingest.db'), { readonly: true });
  try {
    assert.equal(StagingReader.stagedDays(db), [{ dataset: 'level2', tradedate: '20250102', symbols: 2, records: 4 }]);
    // Two buckets' segments, their committed lengths whole records.
    const segs = StagingReader.segments(db);
    assert.is(segs.length, 2);
    assert.is(
      segs.reduce((n, x) => n + x.committedBytes, 0),
      4 * recordBytes('level2'),
    );
    for (const x of segs) assert.ok(statSync(join(dir, x.path)).size >= x.committedBytes, x.path);
    const reader = new StagingReader(db, dir);
    assert.equal(reader.openDays(), [{ dataset: 'level2', tradedate: '20250102' }]);
    assert.equal(reader.symbolsOf('level2', '20250102'), ['000001.SZ', '600000.SH']);
    const b = bucketOf('600000.SH');
    const [day] = [...reader.readBucket('level2', '20250102', b, new Set(['600000.SH']))];
    assert.is(day!.symbol, '600000.SH');
    assert.equal([...day!.timesMs], [1000, 2000]);
    assert.equal([...day!.values[3]!], [1, 3]);
  } finally {
    db.close();
  }
});

test.run();
