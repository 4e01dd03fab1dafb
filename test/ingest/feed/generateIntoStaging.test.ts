/**
 * Generating straight into staging (the demo's path) must give the lake that `generate` then
 * `replay` gives: the same files, byte for byte (the same SHA-256), for every dataset.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { generateIntoStaging } from '../../../ingest/feed/generateIntoStaging.js';
import { sealDays } from '../../../ingest/seal/days.js';
import { openIngestStores } from '../../../ingest/staging/stores.js';
import { encodeParquet } from '../../../storage/parquet/writer.js';
import { runCli } from '../../support/cli.js';
import { tempDir } from '../../support/tempDir.js';
import { catalogFiles, feedFileLines } from './replayReference.js';

const test = suite('generateIntoStaging: the same sealed files as generate + replay');
const root = tempDir('tickvault-gen-staging-');
const DAYS = ['20250102', '20250103'];
const OPTS = { days: DAYS, stocks: 7, indexes: 3, seed: 'direct', faults: 0, ticks: 1, tickDays: ['20250103'] };
const NOW = Date.parse('2025-01-06T16:30:00+08:00');

test('every file of every dataset has the SHA-256 and row count of the replayed feed', async () => {
  const feed = join(root, 'feed.jsonl.zst');
  const viaFeed = join(root, 'via-feed');
  const gen = await runCli([
    'generate',
    '--out',
    feed,
    '--from',
    DAYS[0],
    '--days',
    '2',
    '--stocks',
    '7',
    '--indexes',
    '3',
    '--seed',
    'direct',
    '--tick-days',
    '1',
  ]);
  assert.is(gen.code, 0, gen.stderr);
  const rep = await runCli(['replay', feed, '--data-dir', viaFeed]);
  assert.is(rep.code, 0, rep.stderr);

  const direct = join(root, 'direct');
  const stores = openIngestStores(direct, () => NOW);
  let generated;
  try {
    generated = await generateIntoStaging(OPTS, stores.staging);
    const results = await sealDays(stores, encodeParquet, generated.days, () => NOW);
    assert.is(results.length, 2 * 2 + 2, 'level2 and index on both days, trade and order on the second');
  } finally {
    stores.close();
  }
  const lines = feedFileLines(feed);
  assert.is(generated.rows, lines.length, 'one row per feed line');
  for (const kind of ['level2', 'index', 'trade', 'order'] as const) {
    assert.is(generated.perDataset[kind], lines.filter((l) => l.startsWith(`{"kind":"${kind}"`)).length, kind);
  }
  const key = (r: { path: string; sha256: string; rows: number; minute_counts: Buffer }) =>
    `${r.path} ${r.sha256} ${r.rows} ${r.minute_counts.toString('hex')}`;
  const want = catalogFiles(viaFeed).map(key);
  assert.is(want.length, 2 * 10 + 2 * 7);
  assert.equal(catalogFiles(direct).map(key), want);
});

test('a market with faults is refused: bad lines exist only as text', async () => {
  const stores = openIngestStores(join(root, 'faults'), () => NOW);
  try {
    let failed: unknown = null;
    await generateIntoStaging({ ...OPTS, faults: 0.01 }, stores.staging).catch((e: unknown) => (failed = e));
    assert.match(String(failed), /no faults/);
  } finally {
    stores.close();
  }
});

test.run();
