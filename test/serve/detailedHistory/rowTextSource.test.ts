/**
 * Pages from row text (serve/detailedHistory/rowTextSource.ts) against pages made from the
 * Parquet file: the same bytes for level-2, trade and order files, for whole days and for
 * pages that start and end inside row groups; row text that is missing, made from other bytes
 * or damaged gives the file's own page (a damaged one reported once), never other rows.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CatalogFile } from '../../../storage/catalog.js';
import { SCHEMAS } from '../../../shared/schema.js';
import { rowTextRelPath } from '../../../storage/layout.js';
import { FileColumnCache } from '../../../serve/reading/fileColumns.js';
import { pageRowsJson } from '../../../serve/detailedHistory/rows.js';
import { isStoredRows, piecesText } from '../../../serve/http/jsonPieces.js';
import { RowTextSource } from '../../../serve/detailedHistory/rowTextSource.js';
import { preparedFiles } from '../../support/server.js';
import { tempDir } from '../../support/tempDir.js';

const test = suite('serve/detailedHistory row text');

const lake = () => preparedFiles({ ticks: 1 });

const allFields = (f: CatalogFile) => SCHEMAS[f.dataset].fields.map((_, i) => i);

async function page(dataDir: string, file: CatalogFile, first: number, end: number, rowText: RowTextSource | null): Promise<Buffer> {
  return Buffer.concat(
    await piecesText(await pageRowsJson(new FileColumnCache(dataDir, 64 << 20), file, first, end, allFields(file), { rowText, pool: null })),
  );
}

test('level-2 pages from row text equal pages made from the file, inside row groups too; trades and orders have none', async () => {
  const { dataDir, files } = await lake();
  let compared = 0;
  for (const dataset of ['trade', 'order'] as const) {
    const file = files.find((f) => f.dataset === dataset)!;
    const source = new RowTextSource(new FileColumnCache(dataDir, 64 << 20), () => undefined);
    assert.is(await source.rows(file, 0), null, `${file.path}: no row text (level 2 only, issue 52)`);
  }
  for (const dataset of ['level2'] as const) {
    for (const file of files.filter((f) => f.dataset === dataset).slice(0, 5)) {
      const reports: string[] = [];
      const source = new RowTextSource(new FileColumnCache(dataDir, 64 << 20), (p) => reports.push(p));
      // The row text really gives every group (else this would compare the file with itself).
      const groups = Math.ceil(file.rows / file.rowGroupSize);
      for (let g = 0; g < groups; g++) assert.ok(await source.rows(file, g), `${file.path}#${g} from row text`);
      // A whole-day page holds its groups still stored: inflated only when its text is asked for.
      const cache = new FileColumnCache(dataDir, 64 << 20);
      const pieces = await pageRowsJson(cache, file, 0, file.rows, allFields(file), { rowText: source, pool: null });
      assert.is(pieces.filter((p) => isStoredRows(p)).length, groups, `${file.path}: stored pieces`);
      assert.is(cache.lru.keys().filter((k) => k.endsWith('#rowjson')).length, 0, 'nothing inflated yet');
      const size = file.rowGroupSize;
      const ranges: [number, number][] = [
        [0, file.rows],
        [5, Math.min(17, file.rows)],
        [Math.max(0, size - 7), Math.min(file.rows, size + 13)],
        [file.rows - 1, file.rows],
      ];
      for (const [a, b] of ranges) {
        const fromText = await page(dataDir, file, a, b, new RowTextSource(new FileColumnCache(dataDir, 64 << 20), (p) => reports.push(p)));
        const fromFile = await page(dataDir, file, a, b, null);
        assert.ok(fromText.length > 0 && fromText.equals(fromFile), `${file.path} rows ${a}..${b}`);
        compared++;
      }
      assert.equal(reports, []);
    }
  }
  assert.ok(compared >= 20, `${compared} pages`);
});

test("missing, stale or damaged row text: the file's own page; only damage is reported, once", async () => {
  const { dataDir, files } = await lake();
  const file = files.find((f) => f.dataset === 'level2' && f.rows > 2 * f.rowGroupSize)!;
  const dir = tempDir();
  const copy = (rel: string) => {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    copyFileSync(join(dataDir, rel), join(dir, rel));
  };
  copy(file.path);
  const want = await page(dataDir, file, 0, file.rows, null);
  const reports: string[] = [];
  const fresh = () => new RowTextSource(new FileColumnCache(dir, 64 << 20), (p, reason) => reports.push(`${p}: ${reason}`));

  assert.is(await fresh().rows(file, 0), null, 'no row text');
  assert.ok((await page(dir, file, 0, file.rows, fresh())).equals(want));

  copy(rowTextRelPath(file.path));
  assert.ok(await fresh().rows(file, 0), 'the copied row text is used');
  assert.is(await fresh().rows({ ...file, sha256: '00'.repeat(32) }, 0), null, 'made from other bytes');
  assert.equal(reports, []);

  const textPath = join(dir, rowTextRelPath(file.path));
  const bytes = readFileSync(textPath);
  bytes[100] ^= 0x01; // inside row group 0's frame
  writeFileSync(textPath, bytes);
  const source = fresh();
  const got = await page(dir, file, 0, file.rows, source);
  assert.ok(got.equals(want), 'the damaged group comes from the file');
  assert.is(await source.rows(file, 0), null);
  assert.ok(await source.rows(file, 1), 'the undamaged groups still come from row text');
  assert.is(reports.length, 1, reports.join('\n')); // once, though the page and the direct ask both met it
  assert.match(reports[0]!, /CRC-32/);

  writeFileSync(textPath, bytes.subarray(0, bytes.length - 40));
  const truncated = fresh();
  assert.ok((await page(dir, file, 0, file.rows, truncated)).equals(want));
  assert.match(reports.at(-1)!, /_rowtext\/level2\/date=\d{8}\/.*\.tvr: no row text trailer/);
});

test.run();
