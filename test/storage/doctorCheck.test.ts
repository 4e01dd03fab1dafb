/**
 * The doctor's check over an in-memory data directory: real sealed-file bytes (the project's
 * encoder), a catalog that names them, then one kind of damage at a time.
 */
import { createHash } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseFooterOrReason } from '../../storage/parquet/generalReader.js';
import { checkDataDir, summarizeKinds, type DoctorCatalogEntry, type DoctorPartEntry, type DoctorIo } from '../../storage/doctorCheck.js';
import { encodeParquet, type SymbolDayColumns } from '../../storage/parquet/writer.js';
import { sealedFileRelPath } from '../../storage/layout.js';
import { SCHEMAS, type Dataset } from '../../shared/schema.js';

const t = suite('doctorCheck');

function day(dataset: Dataset, symbol: string, rows: number): SymbolDayColumns {
  const numeric = SCHEMAS[dataset].valueFields;
  const timesMs = new Int32Array(rows);
  for (let i = 0; i < rows; i++) timesMs[i] = 34_200_000 + i * 3000;
  const values = numeric.map((f, c) =>
    Float64Array.from({ length: rows }, (_, i) => (f.name === 'pre_close' ? NaN : f.type === 'int64' ? i * 7 : 10 + c + i / 100)),
  );
  return { dataset, symbol, tradedate: '20250102', rows, timesMs, values };
}

interface FakeDir {
  files: Map<string, Uint8Array>;
  catalog: DoctorCatalogEntry[];
  parts: DoctorPartEntry[];
  running: Set<number>;
  io: DoctorIo;
}

async function cleanDir(): Promise<FakeDir> {
  const files = new Map<string, Uint8Array>();
  const catalog: DoctorCatalogEntry[] = [];
  for (const [dataset, symbol, rows] of [
    ['level2', '600000.SH', 50],
    ['level2', '000001.SZ', 40],
    ['index', '000300', 30],
  ] as const) {
    const bytes = await encodeParquet(day(dataset, symbol, rows), { rowGroupSize: 16 });
    const path = sealedFileRelPath(dataset, '20250102', symbol);
    files.set(path, bytes);
    catalog.push({
      dataset,
      tradedate: '20250102',
      symbol,
      path,
      rows,
      bytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    });
  }
  // A boundary part: opaque bytes to the doctor, checked by size and SHA-256.
  const part = Buffer.from('TVB1 a boundary part TVB1');
  const partPath = '_boundary/index/date=20250102/0123456789abcdef.tvb';
  files.set(partPath, part);
  const parts: DoctorPartEntry[] = [{ path: partPath, bytes: part.length, sha256: createHash('sha256').update(part).digest('hex') }];
  const running = new Set<number>();
  const io: DoctorIo = {
    catalogFiles: () => catalog,
    boundaryParts: () => parts,
    storedTradingDays: () => [...new Set(catalog.map((e) => e.tradedate))].sort(),
    listDataFiles: async () => [...files.keys()].filter((p) => !p.startsWith('_boundary/')).sort(),
    fileSize: async (p) => files.get(p)?.length ?? null,
    readFile: async (p) => {
      const b = files.get(p);
      if (!b) throw new Error(`ENOENT ${p}`);
      return b;
    },
    isPidRunning: (pid) => running.has(pid),
  };
  return { files, catalog, parts, running, io };
}

const L2 = sealedFileRelPath('level2', '20250102', '600000.SH');
const L2B = sealedFileRelPath('level2', '20250102', '000001.SZ');
const IDX = sealedFileRelPath('index', '20250102', '000300');

/** Replaces the file at `path` with a copy whose byte `at` is XORed with `mask` (same size); returns the copy. */
function flipByte(d: FakeDir, path: string, at: (length: number) => number, mask: number): Uint8Array {
  const b = Uint8Array.from(d.files.get(path)!);
  b[at(b.length)] ^= mask;
  d.files.set(path, b);
  return b;
}
const aThird = (length: number) => Math.floor(length / 3);

t('a clean directory has no problems and no warnings', async () => {
  const d = await cleanDir();
  const r = await checkDataDir(d.io);
  assert.ok(r.ok);
  assert.equal(r.problems, []);
  assert.equal(r.warnings, []);
  assert.is(r.catalogFiles, 3);
  assert.is(r.diskFiles, 3);
  assert.equal(r.checks, ['size', 'sha256', 'footer']);
  assert.is(
    r.catalogBytes,
    d.catalog.reduce((a, e) => a + e.bytes, 0),
  );
});

t('an empty directory (no catalog, no files) is clean', async () => {
  const d = await cleanDir();
  d.files.clear();
  d.catalog.length = 0;
  d.parts.length = 0;
  const r = await checkDataDir(d.io);
  assert.ok(r.ok);
  assert.is(r.catalogFiles, 0);
});

t('a catalogued file that is gone is missing, and only missing', async () => {
  const d = await cleanDir();
  d.files.delete(L2);
  const r = await checkDataDir(d.io);
  assert.not.ok(r.ok);
  assert.equal(
    r.problems.map((p) => [p.kind, p.path]),
    [['missing', L2]],
  );
});

t('one flipped byte in the data is a checksum mismatch (size unchanged)', async () => {
  const d = await cleanDir();
  flipByte(d, L2B, aThird, 0xff);
  const r = await checkDataDir(d.io);
  assert.equal(
    r.problems.map((p) => p.kind),
    ['checksum-mismatch'],
  );
  assert.is(r.problems[0].path, L2B);
  assert.match(r.problems[0].detail, /sha256/);
});

t('--quick skips the checksum but still checks sizes and footers', async () => {
  const d = await cleanDir();
  flipByte(d, L2B, aThird, 0xff);
  const r = await checkDataDir(d.io, { quick: true });
  assert.ok(r.ok);
  assert.equal(r.checks, ['size', 'footer']);
});

t('a truncated file is a size mismatch and unreadable, without a redundant checksum line', async () => {
  const d = await cleanDir();
  d.files.set(IDX, d.files.get(IDX)!.subarray(0, 100));
  const r = await checkDataDir(d.io);
  assert.equal(r.problems.map((p) => p.kind).sort(), ['size-mismatch', 'unreadable']);
  assert.ok(r.problems.every((p) => p.path === IDX));
  assert.match(r.problems.find((p) => p.kind === 'unreadable')!.detail, /PAR1/);
});

t('a file whose footer is garbage between intact magics is unreadable', async () => {
  const d = await cleanDir();
  const b = Uint8Array.from(d.files.get(L2)!);
  // The footer length sits in the 4 bytes before the trailing magic; garble the footer itself.
  const footerLen = new DataView(b.buffer).getUint32(b.length - 8, true);
  for (let i = b.length - 8 - footerLen; i < b.length - 8; i++) b[i] = 0xff;
  d.files.set(L2, b);
  const r = await checkDataDir(d.io, { quick: true });
  assert.equal(
    r.problems.map((p) => p.kind),
    ['unreadable'],
  );
  assert.match(r.problems[0].detail, /footer/);
});

t('a footer row count differing from the catalog is reported', async () => {
  const d = await cleanDir();
  const i = d.catalog.findIndex((e) => e.path === L2);
  d.catalog[i] = { ...d.catalog[i], rows: 51 };
  const r = await checkDataDir(d.io);
  assert.equal(
    r.problems.map((p) => [p.kind, p.detail]),
    [['row-count-mismatch', 'footer says 50 rows, catalog says 51']],
  );
});

t('a level2 file catalogued as index data is a schema mismatch, and a catalog path off the layout is named', async () => {
  const d = await cleanDir();
  const i = d.catalog.findIndex((e) => e.path === L2);
  d.catalog[i] = { ...d.catalog[i], dataset: 'index', symbol: '000300' };
  const r = await checkDataDir(d.io);
  const kinds = r.problems.map((p) => p.kind).sort();
  assert.equal(kinds, ['path-mismatch', 'schema-mismatch']);
});

t('files the catalog does not list are extra; temp files are warnings that keep the report ok', async () => {
  const d = await cleanDir();
  d.files.set('index/date=20250102/999999.parquet', new Uint8Array([1, 2, 3]));
  d.files.set('level2/date=20250102/notes.txt', new Uint8Array([1]));
  const r = await checkDataDir(d.io);
  assert.equal(
    r.problems.map((p) => [p.kind, p.path]),
    [
      ['extra', 'index/date=20250102/999999.parquet'],
      ['extra', 'level2/date=20250102/notes.txt'],
    ],
  );

  const e = await cleanDir();
  e.files.set(`${L2}.tmp-4242`, new Uint8Array([0]));
  e.files.set(`${IDX}.tmp-77`, new Uint8Array([0]));
  e.running.add(77);
  const w = await checkDataDir(e.io);
  assert.ok(w.ok, 'stale temps alone do not fail the check');
  assert.equal(
    w.warnings.map((x) => [x.kind, x.path]),
    [
      ['stale-temp', `${IDX}.tmp-77`],
      ['stale-temp', `${L2}.tmp-4242`],
    ],
  );
  assert.match(w.warnings[0].detail, /running: a seal may be in progress/);
  assert.match(w.warnings[1].detail, /no longer running/);
});

t('deep mode decodes every page and still passes a clean directory', async () => {
  const d = await cleanDir();
  const r = await checkDataDir(d.io, { deep: true });
  assert.ok(r.ok, JSON.stringify(r.problems));
  assert.equal(r.checks, ['size', 'sha256', 'footer', 'pages']);
});

t('several kinds at once: each reported once, sorted by path; progress sees every catalogued file', async () => {
  const d = await cleanDir();
  d.files.delete(L2);
  flipByte(d, IDX, () => 20, 0x01);
  d.files.set('index/date=20250103/000905.parquet', new Uint8Array(16));
  d.files.set(`${L2B}.tmp-1`, new Uint8Array(1));
  let progressed = 0;
  const r = await checkDataDir(d.io, { onFile: (n) => (progressed += n), concurrency: 2 });
  assert.equal(
    r.problems.map((p) => p.kind),
    ['checksum-mismatch', 'extra', 'missing'],
  );
  assert.equal(
    r.warnings.map((p) => p.kind),
    ['stale-temp'],
  );
  assert.is(progressed, r.catalogBytes);
  assert.is(summarizeKinds(r.problems), '1 checksum-mismatch, 1 extra, 1 missing');
});

t("onDigest: the SHA-256 of the bytes on disk, not the catalog's; none for a missing file or with quick", async () => {
  const d = await cleanDir();
  d.files.delete(L2);
  const b = flipByte(d, L2B, () => 7, 0x01);
  const seen = new Map<string, { sha256: string; rows: number; bytes: number }>();
  const r = await checkDataDir(d.io, { onDigest: ({ path, ...rest }) => seen.set(path, rest) });
  assert.equal([...seen.keys()].sort(), [IDX, L2B].sort());
  assert.equal(seen.get(L2B), { sha256: createHash('sha256').update(b).digest('hex'), rows: 40, bytes: b.length });
  assert.is.not(seen.get(L2B)!.sha256, d.catalog.find((e) => e.path === L2B)!.sha256);
  assert.equal(
    r.problems.map((p) => p.kind),
    ['checksum-mismatch', 'missing'],
  );

  let quickDigests = 0;
  await checkDataDir(d.io, { quick: true, onDigest: () => quickDigests++ });
  assert.is(quickDigests, 0);
});

t('a boundary part gone, cut short or changed is reported; --quick checks its size only', async () => {
  const dir = await cleanDir();
  const path = dir.parts[0].path;
  const original = dir.files.get(path)!;
  const changed = Buffer.from(original);
  changed[5] ^= 1;
  dir.files.set(path, changed);
  assert.equal(
    (await checkDataDir(dir.io)).problems.map((p) => [p.kind, p.path]),
    [['checksum-mismatch', path]],
  );
  assert.ok((await checkDataDir(dir.io, { quick: true })).ok);
  dir.files.set(path, original.subarray(0, 10));
  assert.equal(
    (await checkDataDir(dir.io, { quick: true })).problems.map((p) => [p.kind, p.path]),
    [['size-mismatch', path]],
  );
  dir.files.delete(path);
  const report = await checkDataDir(dir.io);
  assert.equal(
    report.problems.map((p) => [p.kind, p.path]),
    [['missing', path]],
  );
  assert.match(report.problems[0].detail, /boundary part/);
  // Not a data file: never counted or digested as one.
  assert.is(report.catalogFiles, 3);
});

t("an offloaded day's files are not looked for: no problem for their absence, digests from the catalog, counted", async () => {
  const d = await cleanDir();
  const digestsHere: string[] = [];
  await checkDataDir(d.io, { onDigest: (g) => digestsHere.push(JSON.stringify(g)) });
  // offload removed every file of the day, its boundary part too.
  d.files.clear();
  const digests: string[] = [];
  const r = await checkDataDir({ ...d.io, offloadedDays: () => new Set(['20250102']) }, { onDigest: (g) => digests.push(JSON.stringify(g)) });
  assert.ok(r.ok, JSON.stringify(r.problems));
  assert.equal(r.offloaded, { days: 1, files: 3 });
  assert.equal(digests.sort(), digestsHere.sort(), 'the same digests as with the files here');
  // Another day is still looked for.
  const other = await checkDataDir({ ...d.io, offloadedDays: () => new Set(['20250103']) });
  assert.is(summarizeKinds(other.problems), '4 missing');
});

t('parseFooterOrReason: too short, no magic', () => {
  assert.match(String(parseFooterOrReason(new Uint8Array(5))), /too short/);
  assert.match(String(parseFooterOrReason(new Uint8Array(64))), /magic/);
});

t.run();
