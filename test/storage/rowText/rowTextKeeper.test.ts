/**
 * The row text window over a real replayed lake (three trading days of level-2 snapshots,
 * trades and orders): a pass makes row text for the window's level-2 files only, each text the
 * rows DuckDB reads from its file, and removes trades' and orders' (they get none); a second
 * pass makes nothing; a narrower window removes the days that left it; a file whose bytes are
 * not the catalog's is skipped, never made from; a stopped pass stops; the background runner
 * runs one pass at a time and one more when poked.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CatalogReader, openCatalog } from '../../../storage/catalog.js';
import { rowTextRelPath } from '../../../storage/layout.js';
import { keepRowText, type RowTextKept } from '../../../storage/rowText/rowTextKeeper.js';
import { BackgroundRowText } from '../../../storage/rowText/backgroundRowText.js';
import { RowTextPool } from '../../../storage/rowText/rowTextPool.js';
import { decodeRowTextGroup, decodeWholeRowTextIndex } from '../../../storage/rowText/rowTextFile.js';
import { rowTextWindow } from '../../../storage/rowText/rowTextWindow.js';
import { duckRows, sqlString } from '../../support/duckdb.js';
import { preparedData } from '../../support/server.js';
import { tempDir } from '../../support/tempDir.js';

const test = suite('storage/rowText/rowTextKeeper');

const DAYS = ['20250102', '20250103', '20250106'];

/** A copy of the replayed lake without any row text. */
async function lakeWithoutRowText(): Promise<string> {
  const { dataDir } = await preparedData({ ticks: 1 });
  const dest = join(tempDir('tickvault-keeper-'), 'data');
  cpSync(dataDir, dest, { recursive: true });
  rmSync(join(dest, '_rowtext'), { recursive: true, force: true });
  return dest;
}

async function withCatalog<T>(dataDir: string, work: (c: CatalogReader) => Promise<T>): Promise<T> {
  const db = openCatalog(join(dataDir, 'catalog.db'), true);
  try {
    return await work(new CatalogReader(db));
  } finally {
    db.close();
  }
}

/** The files of a day that get row text (level 2), from the catalog. */
function pagedFiles(c: CatalogReader, day: string) {
  return c.filesOfDay('level2', day);
}

test('the window is the latest N days held', () => {
  assert.equal([...rowTextWindow(DAYS, 2)], ['20250103', '20250106']);
  assert.equal([...rowTextWindow(DAYS, 10)], DAYS);
  assert.equal([...rowTextWindow(DAYS, 0)], []);
});

test("a pass makes the window's row text, the rows DuckDB reads from each file; a second pass makes none", async () => {
  const dataDir = await lakeWithoutRowText();
  await withCatalog(dataDir, async (c) => {
    // Trades' row text of an older tickvault: trades get none now, so a pass removes it.
    const oldTrade = c.filesOfDay('trade', '20250106')[0]!;
    mkdirSync(dirname(join(dataDir, rowTextRelPath(oldTrade.path))), { recursive: true });
    writeFileSync(join(dataDir, rowTextRelPath(oldTrade.path)), 'row text of an older tickvault');
    // Two worker threads, as a command that has sealed makes it (the background uses one).
    const pool = new RowTextPool(2);
    const kept = await keepRowText({ dataDir, catalog: c, days: 2, maker: pool.make, concurrency: 2 }).finally(() => pool.close());
    const inWindow = [...pagedFiles(c, '20250103'), ...pagedFiles(c, '20250106')];
    assert.equal(kept.window, ['20250103', '20250106']);
    assert.is(kept.made, inWindow.length);
    assert.is(kept.missing, inWindow.length);
    assert.is(kept.stoppedBy, null);
    assert.equal(kept.skipped, []);
    assert.is(kept.removedDays, 1, 'the trades of 20250106');
    assert.not.ok(existsSync(join(dataDir, '_rowtext', 'trade', 'date=20250106')));
    for (const f of inWindow) assert.ok(existsSync(join(dataDir, rowTextRelPath(f.path))), f.path);
    for (const f of pagedFiles(c, '20250102')) assert.not.ok(existsSync(join(dataDir, rowTextRelPath(f.path))), `${f.path} is outside the window`);
    assert.not.ok(
      c.filesOfDay('index', '20250106').some((f) => existsSync(join(dataDir, rowTextRelPath(f.path)))),
      'indexes have no pages: no row text',
    );

    // Each text is its file's rows: JSON of every field, as DuckDB reads them (one file per dataset).
    for (const f of inWindow.slice(0, 3)) {
      const whole = readFileSync(join(dataDir, rowTextRelPath(f.path)));
      const index = await decodeWholeRowTextIndex(whole);
      assert.is(index.parquetSha256, f.sha256);
      const texts = await Promise.all(
        index.groups.map(async (g) => (await decodeRowTextGroup(g, whole.subarray(g.frameOffset, g.frameOffset + g.frameBytes))).bytes.toString()),
      );
      const rows = JSON.parse(`[${texts.join(',')}]`) as unknown[][];
      const want = await duckRows(`SELECT * FROM read_parquet(${sqlString(join(dataDir, f.path))}, hive_partitioning = false)`);
      assert.is(rows.length, want.length, f.path);
      const asJson = (v: unknown) => (typeof v === 'bigint' ? Number(v) : v);
      for (const r of [0, Math.floor(want.length / 2), want.length - 1]) {
        assert.equal(rows[r], Object.values(want[r]!).map(asJson), `${f.path} row ${r}`);
      }
    }

    const again = await keepRowText({ dataDir, catalog: c, days: 2 });
    assert.is(again.made, 0);
    assert.is(again.missing, 0);
    assert.is(again.removedDays, 0);
  });
});

test('a narrower window removes the days that left it; a wider one makes what they lack', async () => {
  const dataDir = await lakeWithoutRowText();
  await withCatalog(dataDir, async (c) => {
    await keepRowText({ dataDir, catalog: c, days: 3 });
    const narrower = await keepRowText({ dataDir, catalog: c, days: 1 });
    assert.is(narrower.made, 0);
    assert.is(narrower.removedDays, 2, 'two days of level 2');
    assert.equal(readdirSync(join(dataDir, '_rowtext')), ['level2']);
    assert.equal(readdirSync(join(dataDir, '_rowtext', 'level2')), ['date=20250106']);
    const wider = await keepRowText({ dataDir, catalog: c, days: 2 });
    assert.is(wider.made, pagedFiles(c, '20250103').length);
  });
});

test("a file whose bytes are not the catalog's is skipped, not made from; a stopped pass stops", async () => {
  const dataDir = await lakeWithoutRowText();
  await withCatalog(dataDir, async (c) => {
    const damaged = c.filesOfDay('level2', '20250106')[0]!;
    const bytes = readFileSync(join(dataDir, damaged.path));
    bytes[Math.floor(bytes.length / 2)]! ^= 0x5a;
    writeFileSync(join(dataDir, damaged.path), bytes);

    let asked = 0;
    const stopped = await keepRowText({ dataDir, catalog: c, days: 1, stop: () => ++asked > 3 });
    assert.is(stopped.stoppedBy, 'stopped');
    assert.ok(stopped.made <= 3);

    const kept = await keepRowText({ dataDir, catalog: c, days: 1 });
    assert.equal(
      kept.skipped.map((s) => s.path),
      [damaged.path],
    );
    assert.match(kept.skipped[0]!.reason, /not the catalog/);
    assert.not.ok(existsSync(join(dataDir, rowTextRelPath(damaged.path))));
    assert.is(kept.made + stopped.made, pagedFiles(c, '20250106').length - 1);
  });
});

test('in the background: one pass at a time, one more when poked during a pass, none after stop', async () => {
  const dataDir = await lakeWithoutRowText();
  await withCatalog(dataDir, async (c) => {
    const passes: RowTextKept[] = [];
    const errors: unknown[] = [];
    const bg = new BackgroundRowText(
      { dataDir, catalog: c, days: 3 },
      (k) => passes.push(k),
      (e) => errors.push(e),
    );
    bg.poke();
    bg.poke();
    bg.poke();
    await bg.idle();
    assert.is(passes.length, 2, 'the pokes during the first pass ask for one more, not two');
    assert.is(passes[0]!.made, DAYS.flatMap((d) => pagedFiles(c, d)).length);
    assert.is(passes[1]!.made, 0);
    rmSync(join(dataDir, '_rowtext'), { recursive: true });
    await bg.stop();
    bg.poke();
    await bg.idle();
    assert.is(passes.length, 2, 'stopped: no pass');
    assert.equal(errors, []);
  });
});

test.run();
