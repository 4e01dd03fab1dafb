import { createHash } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { digestList, digestListJson } from '../../storage/fileDigests.js';

/** The digest list's text and JSON forms, which two sites compare: fixed layout and order. */
const t = suite('fileDigests');

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const A = { path: 'level2/date=20250102/600000.SH.parquet', sha256: sha('a'), rows: 5001, bytes: 430839 };
const B = { path: 'index/date=20250102/000300.parquet', sha256: sha('b'), rows: 4801, bytes: 579488 };
const C = { path: 'index/date=20250102/000001.parquet', sha256: sha('c'), rows: 4801, bytes: 580333 };

t('sorted by path; sha256sum-like lines; the summary hashes the lines as printed', () => {
  const list = digestList([A, B, C]);
  assert.equal(list.lines, [`${C.sha256}  4801  580333  ${C.path}`, `${B.sha256}  4801  579488  ${B.path}`, `${A.sha256}  5001  430839  ${A.path}`]);
  assert.is(list.listDigest, sha(list.lines.join('\n') + '\n'));
  assert.is(list.summary, `# 3 files, sha256 of this list: ${list.listDigest}`);
  // Input order does not matter: each site's workers finish in their own order.
  assert.equal(digestList([C, A, B]), list);
});

t('an empty directory: no lines, the digest of nothing', () => {
  const list = digestList([]);
  assert.equal(list.lines, []);
  assert.is(list.summary, `# 0 files, sha256 of this list: ${sha('')}`);
});

t('path order is by code unit, not locale (upper case before lower case)', () => {
  const lower = { ...A, path: 'level2/date=20250102/a.parquet' };
  const upper = { ...A, path: 'level2/date=20250102/B.parquet' };
  assert.equal(
    digestList([lower, upper]).files.map((f) => f.path),
    [upper.path, lower.path],
  );
});

t('JSON: files with path, sha256, rows, bytes in order, and the same list digest', () => {
  const list = digestList([A, B]);
  assert.is(
    digestListJson(list),
    JSON.stringify({ files: [B, A].map(({ path, sha256, rows, bytes }) => ({ path, sha256, rows, bytes })), listDigest: list.listDigest }),
  );
});

t.run();
