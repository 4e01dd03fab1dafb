/**
 * Running a planned import (ingest/import/importFiles.ts) when sealing the days already read
 * fails (a full disk, say) while a later file is being read: the import fails with that error,
 * and no file is refused as unreadable for it (the failure once went to the file being read
 * then, refused as "cannot be read", and the import went on without its rows). A file that
 * truly cannot be read is still refused, and the others imported.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { importFiles } from '../../../ingest/import/importFiles.js';
import { planImport } from '../../../ingest/import/importPlan.js';
import { openIngestStores } from '../../../ingest/staging/stores.js';
import { parseInstant } from '../../../shared/clock.js';
import { tempDir } from '../../support/tempDir.js';
import { TRADE_HEADER, tradeLine, writeTradeMapping } from '../../support/tradeCsv.js';

const test = suite('ingest/import/importFiles');

const DAYS = ['20250102', '20250103', '20250106', '20250107', '20250108'];
const NOW = parseInstant('2025-03-03T18:00:00+08:00')!;

/** One small trade file per day: each its own unit, so files end while later ones are read. */
function tradeFiles(dir: string): string[] {
  return DAYS.map((day) => {
    const file = join(dir, `trades_${day}.csv`);
    writeFileSync(file, [TRADE_HEADER, ...Array.from({ length: 20 }, (_, k) => tradeLine(k, 4))].join('\n') + '\n');
    return file;
  });
}

test('a seal that fails during the import fails the import; no file is refused for it', async () => {
  const dir = tempDir('tickvault-import-files-');
  const mapping = writeTradeMapping(dir);
  const planned = await planImport(tradeFiles(dir), { mapping, dataset: null });
  const stores = openIngestStores(join(dir, 'data'), () => NOW);
  const refused: string[] = [];
  let seals = 0;
  try {
    const run = importFiles(
      {
        stores,
        nowMs: NOW,
        workers: 1,
        onFile: (file, _staged, refusal) => {
          if (refusal !== null) refused.push(`${file}: ${refusal}`);
        },
        sealDays: async () => {
          seals++;
          if (seals === 1) throw new Error('ENOSPC: no space left on device, write');
        },
      },
      planned,
    );
    await run.then(
      () => assert.unreachable('the import went on past a failed seal'),
      (e: unknown) => assert.match((e as Error).message, /ENOSPC/),
    );
    assert.is(seals, 1, 'the import stopped at the failed seal');
    assert.equal(refused, [], 'no file was refused for a failure that was not its own');
  } finally {
    stores.close();
  }
});

test('a file that cannot be read is refused, and the others are imported and sealed', async () => {
  const dir = tempDir('tickvault-import-files-unreadable-');
  const mapping = writeTradeMapping(dir);
  const files = tradeFiles(dir);
  // The third file's gzip stream breaks off after its header and first rows (a copy cut short).
  const bad = join(dir, `trades_20250106.csv.gz`);
  const whole = gzipSync([TRADE_HEADER, ...Array.from({ length: 50_000 }, (_, k) => tradeLine(k, 4))].join('\n') + '\n');
  writeFileSync(bad, whole.subarray(0, Math.floor(whole.length / 2)));
  const planned = await planImport([files[0]!, files[1]!, bad, files[3]!, files[4]!], { mapping, dataset: null });
  const stores = openIngestStores(join(dir, 'data'), () => NOW);
  const sealed: string[] = [];
  try {
    const stats = await importFiles({ stores, nowMs: NOW, workers: 1, sealDays: async (days) => void sealed.push(...days) }, planned);
    assert.equal(
      stats.refused.map((r) => [r.file, r.sealedDay]),
      [[bad, false]],
    );
    assert.match(stats.refused[0]!.reason, /^cannot be read: /);
    assert.is(stats.staged, 4 * 20);
  } finally {
    stores.close();
  }
});

test.run();
