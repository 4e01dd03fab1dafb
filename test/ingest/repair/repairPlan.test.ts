/**
 * planRepair over doctor reports built by hand: which findings become fetches, part
 * rebuilds, row-text rebuilds, and which are left alone (extra files, catalog rows off the
 * layout), each path once whatever number of problems doctor found for it.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { DoctorCatalogEntry, DoctorPartEntry, DoctorReport, Problem, Warning } from '../../../storage/doctorCheck.js';
import { isEmptyPlan, planRepair } from '../../../ingest/repair/repairPlan.js';

const t = suite('repairPlan');

const entry = (dataset: DoctorCatalogEntry['dataset'], symbol: string, version = 1): DoctorCatalogEntry => ({
  dataset,
  tradedate: '20250102',
  symbol,
  version,
  rows: 10,
  bytes: 1000,
  sha256: 'a'.repeat(64),
  path: `${dataset}/date=20250102/${symbol}${version === 1 ? '' : `.v${version}`}.parquet`,
});
const L2 = entry('level2', '600000.SH');
const L2V2 = entry('level2', '600000.SH', 2);
const TRADE = entry('trade', '600000.SH');
const INDEX = entry('index', '000001');
const PART: DoctorPartEntry = { path: '_boundary/level2/date=20250102/0123456789abcdef.tvb', bytes: 500, sha256: 'b'.repeat(64) };
const ENTRIES = [L2, L2V2, TRADE, INDEX];

function report(problems: Problem[], warnings: Warning[] = []): DoctorReport {
  return {
    catalogFiles: ENTRIES.length,
    catalogBytes: 4000,
    diskFiles: 4,
    checks: ['size', 'sha256', 'footer'],
    problems,
    warnings,
    ok: problems.length === 0,
  };
}
const p = (kind: Problem['kind'], path: string): Problem => ({ kind, path, detail: kind });

t('a sound report: nothing to do', () => {
  const plan = planRepair(report([]), ENTRIES, [PART]);
  assert.ok(isEmptyPlan(plan));
});

t('each damage kind of a catalogued file is a fetch, every version alike, one per path', () => {
  const plan = planRepair(
    report([
      p('size-mismatch', TRADE.path),
      p('unreadable', TRADE.path),
      p('checksum-mismatch', L2V2.path),
      p('missing', INDEX.path),
      p('row-count-mismatch', L2.path),
    ]),
    ENTRIES,
    [PART],
  );
  assert.equal(
    plan.files.map((f) => f.entry.path),
    [TRADE.path, L2V2.path, INDEX.path, L2.path],
  );
  assert.equal(plan.files[0]!.kinds, ['size-mismatch', 'unreadable']);
  assert.is(plan.files[1]!.entry.version, 2, 'the catalog entry carries the version to fetch');
  assert.equal(plan.parts, []);
  assert.equal(plan.leftAlone, []);
});

t('a damaged boundary part is rebuilt, never fetched', () => {
  const plan = planRepair(report([p('checksum-mismatch', PART.path)]), ENTRIES, [PART]);
  assert.equal(plan.files, []);
  assert.equal(
    plan.parts.map((x) => x.part.path),
    [PART.path],
  );
});

t('extra files and rows off the layout are left alone, whatever else is said of that path', () => {
  const plan = planRepair(
    report([p('extra', 'level2/date=20250102/stray.parquet'), p('path-mismatch', L2.path), p('missing', L2.path), p('missing', TRADE.path)]),
    ENTRIES,
    [PART],
  );
  assert.equal(
    plan.files.map((f) => f.entry.path),
    [TRADE.path],
  );
  assert.equal(
    plan.leftAlone.map((x) => `${x.kind} ${x.path}`),
    [`extra level2/date=20250102/stray.parquet`, `path-mismatch ${L2.path}`, `missing ${L2.path}`],
  );
  assert.not.ok(isEmptyPlan(plan));
});

t("row-text warnings: of sound files alone, or with a damaged file's repair", () => {
  const w = (path: string): Warning => ({ kind: 'row-text', path, detail: 'stale' });
  const plan = planRepair(
    report([p('checksum-mismatch', L2.path)], [w(L2.path), w(TRADE.path), { kind: 'stale-temp', path: 'x.tmp-1', detail: '' }]),
    ENTRIES,
    [PART],
  );
  assert.equal(plan.rowTextOnly, [TRADE.path]);
  assert.equal(
    plan.files.map((f) => [f.entry.path, f.rowText]),
    [[L2.path, true]],
  );
  const sound = planRepair(report([p('missing', L2.path)]), ENTRIES, [PART]);
  assert.equal(
    sound.files.map((f) => f.rowText),
    [false],
    'a file whose row text doctor found sound keeps it',
  );
});

t('stale temp files alone: nothing to repair', () => {
  const plan = planRepair(report([], [{ kind: 'stale-temp', path: 'level2/date=20250102/x.parquet.tmp-1', detail: '' }]), ENTRIES, [PART]);
  assert.ok(isEmptyPlan(plan));
});

t.run();
