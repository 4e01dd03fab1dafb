/**
 * `tickvault import` seals bars like replay (api-contract: Bars): the sealed trade and level-2
 * files of a replayed lake, imported into a new data directory, give the same bar files, byte
 * for byte, and the same daily rows.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { BarCatalogReader } from '../../storage/bars/barCatalog.js';
import { BAR_DAYS, barLake } from '../support/barsReference.js';
import { readCatalog } from '../support/catalog.js';
import { runCli } from '../support/cli.js';
import { REPLAY_NOW } from '../support/server.js';
import { tempDir } from '../support/tempDir.js';

test('imported trade and level-2 files give the replayed lake’s bar files and daily rows', async () => {
  const { dataDir: replayed } = await barLake();
  const dataDir = join(tempDir('tickvault-import-bars-'), 'data');
  const r = await runCli(['import', join(replayed, 'level2'), join(replayed, 'trade'), '--data-dir', dataDir], { env: { TICKVAULT_NOW: REPLAY_NOW } });
  assert.is(r.code, 0, r.stderr);
  const bars = (dir: string) =>
    readCatalog(
      dir,
      (c) => {
        const b = new BarCatalogReader(c.db);
        return BAR_DAYS.map((d) => ({ day: b.barDay(d), rows: b.dailyOfAll(d, d) }));
      },
      [],
    );
  const [want, got] = [bars(replayed), bars(dataDir)];
  assert.is(got.length, BAR_DAYS.length);
  got.forEach((g, i) => {
    assert.is(g.day!.minuteSha256, want[i].day!.minuteSha256, `${BAR_DAYS[i]}: the minute file, byte for byte`);
    assert.is(g.day!.dailySha256, want[i].day!.dailySha256, `${BAR_DAYS[i]}: the daily file, byte for byte`);
    assert.equal(g.rows, want[i].rows);
  });
});

test.run();
