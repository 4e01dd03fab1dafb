import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { unitsOf } from '../../../ingest/import/importFiles.js';
import { planImport } from '../../../ingest/import/importPlan.js';
import { UnitImporter } from '../../../ingest/import/importWorker.js';
import { parseInstant } from '../../../shared/clock.js';
import { CatalogReader, openCatalog } from '../../../storage/catalog.js';
import { tempDir } from '../../support/tempDir.js';
import { damaged, tradeLine, writeTradeMapping, type Damage } from '../../support/tradeCsv.js';

const t = suite('import worker: every line of a CSV file accounted for');

t('unit by unit, rows + blank lines = the newlines the chunker counted; malformed lines quarantined with file:line, across 2 MiB chunks and CRLF', async () => {
  const dir = tempDir('tickvault-accounting-');
  const map = writeTradeMapping(dir);
  const file = join(dir, 'trades_20250102.csv');
  // 150,000 rows (about 5 MiB: three chunks), CRLF line ends, a blank line after every
  // 40,000th row and a blank CRLF one at the end; damaged lines at known places, one near a
  // chunk's end.
  const symbols = 50;
  const lines: string[] = ['Code,Clock,No,Px,Lots,Side'];
  const want: { line: number; reason: string }[] = [];
  let blank = 0;
  const damage = new Map<number, Damage>([
    [11, 'quote'],
    [59_900, 'extra'],
    [60_000, 'quote'],
    [123_456, 'fewer'],
  ]);
  for (let k = 0; k < 150_000; k++) {
    const how = damage.get(k);
    lines.push(how === undefined ? tradeLine(k, symbols) : damaged(tradeLine(k, symbols), how));
    if (how !== undefined) {
      const reason =
        how === 'quote'
          ? 'unterminated quote: a quoted field runs past the end of its line'
          : how === 'extra'
            ? 'too many fields: 7, the header has 6'
            : 'too few fields: 5, the header has 6';
      want.push({ line: lines.length, reason });
    }
    if (k % 40_000 === 39_999) {
      lines.push('');
      blank++;
    }
  }
  lines.push('');
  blank++;
  writeFileSync(file, lines.join('\r\n') + '\r\n');

  const [planned] = await planImport([file], { mapping: map, dataset: null });
  const catalogDb = join(dir, 'catalog.db');
  openCatalog(catalogDb).close();
  const importer = new UnitImporter(
    { catalogDb, dataDir: dir, nowMs: parseInstant('2025-03-03T18:00:00+08:00')! },
    new CatalogReader(openCatalog(catalogDb, true)),
  );
  let rows = 0;
  let blanks = 0;
  let units = 0;
  const rejects: { line: number; reason: string }[] = [];
  for await (const u of unitsOf(planned)) {
    const r = await importer.forEachRow(u.unit, () => null);
    assert.is(r.rows + r.blank, u.dataLines, `unit ${units}`);
    // What a refusal would name: the unit's lines, the header left out.
    const m = /^lines ([\d,]+)–([\d,]+) \(([\d,]+) lines\)$/.exec(u.part);
    assert.ok(m, u.part);
    const [from, to, n] = m!.slice(1).map((x) => Number(x.replaceAll(',', '')));
    assert.is(to - from + 1, n);
    assert.is(n, u.dataLines);
    if (units === 0) assert.is(from, 2);
    rows += r.rows;
    blanks += r.blank;
    units++;
    for (const q of r.rejects) rejects.push({ line: Number(q.source.slice(file.length + 1)), reason: q.reason });
    for (const q of r.rejects) assert.is(q.raw, lines[Number(q.source.slice(file.length + 1)) - 1]);
  }
  assert.ok(units >= 3, `${units} units`);
  assert.is(rows, 150_000);
  assert.is(blanks, blank);
  assert.equal(rejects, want);
});

t.run();
