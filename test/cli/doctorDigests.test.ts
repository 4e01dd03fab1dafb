/**
 * `tickvault doctor --digests` end to end: two sites that seal the same feed independently
 * must print the same list, and any byte that differs must show in exactly one line.
 */
import { createHash } from 'node:crypto';
import { cpSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli } from '../support/cli.js';
import { preparedData, REPLAY_NOW } from '../support/server.js';
import { tempDir } from '../support/tempDir.js';

const t = suite('doctor --digests');

/** Two trading days, two stocks, two indexes: 8 files, quick to replay. */
const SMALL_DATA = { days: 2, stocks: 2, indexes: 2 } as const;
const FLIPPED = 'level2/date=20250103/000001.SZ.parquet';
const GONE = 'index/date=20250102/000300.parquet';
const LINE_RE = /^([0-9a-f]{64}) {2}(\d+) {2}(\d+) {2}(\S+)$/;
const SUMMARY_RE = /^# (\d+) files, sha256 of this list: ([0-9a-f]{64})$/;

/** A second site: the same feed replayed again into its own directory (not a copy). */
async function secondSite(feedFile: string): Promise<string> {
  const dataDir = join(tempDir('tickvault-digests-'), 'data');
  const rep = await runCli(['replay', feedFile, '--data-dir', dataDir], { env: { TICKVAULT_NOW: REPLAY_NOW } });
  assert.is(rep.code, 0, rep.stderr);
  return dataDir;
}

function copyOf(dataDir: string): string {
  const dest = join(tempDir('tickvault-digests-'), 'data');
  cpSync(dataDir, dest, { recursive: true });
  return dest;
}

const digests = (dir: string, ...more: string[]) => runCli(['doctor', '--digests', '--data-dir', dir, ...more]);

t("two directories replayed from one feed print identical lists; each sha256 is the file's own", async () => {
  const { dataDir, feedFile } = await preparedData(SMALL_DATA);
  const other = await secondSite(feedFile);
  const a = await digests(dataDir);
  const b = await digests(other);
  assert.is(a.code, 0, a.stderr);
  assert.is(b.code, 0, b.stderr);
  assert.is(a.stderr, '');
  assert.is(a.stdout, b.stdout);

  const lines = a.stdout.trimEnd().split('\n');
  const summary = lines.pop()!;
  assert.is(lines.length, 8);
  assert.equal(
    lines.map((l) => LINE_RE.exec(l)?.[4]),
    [...lines.map((l) => LINE_RE.exec(l)?.[4])].sort(),
  );
  for (const line of lines) {
    const m = LINE_RE.exec(line);
    assert.ok(m, line);
    const bytes = readFileSync(join(other, m[4]));
    assert.is(m[1], createHash('sha256').update(bytes).digest('hex'), m[4]);
    assert.is(Number(m[3]), bytes.length, m[4]);
    assert.ok(Number(m[2]) > 0, m[4]);
  }
  const s = SUMMARY_RE.exec(summary);
  assert.ok(s, summary);
  assert.is(Number(s[1]), 8);
  // What an operator can recompute: `head -n -1 | sha256sum`.
  assert.is(
    s[2],
    createHash('sha256')
      .update(lines.map((l) => `${l}\n`).join(''))
      .digest('hex'),
  );
});

t('one flipped byte: exactly that line differs, the summary differs, exit 1 naming the file', async () => {
  const { dataDir } = await preparedData(SMALL_DATA);
  const damaged = copyOf(dataDir);
  const bytes = readFileSync(join(damaged, FLIPPED));
  bytes[Math.floor(bytes.length / 2)] ^= 0x01;
  writeFileSync(join(damaged, FLIPPED), bytes);

  const good = await digests(dataDir);
  const bad = await digests(damaged);
  assert.is(good.code, 0, good.stderr);
  assert.is(bad.code, 1, bad.stderr);
  const g = good.stdout.trimEnd().split('\n');
  const d = bad.stdout.trimEnd().split('\n');
  assert.is(d.length, g.length);
  const differing = g.flatMap((line, i) => (line === d[i] ? [] : [i]));
  assert.equal(differing, [g.findIndex((l) => l.endsWith(`  ${FLIPPED}`)), g.length - 1]);
  const line = d[differing[0]];
  assert.is(LINE_RE.exec(line)?.[1], createHash('sha256').update(bytes).digest('hex'), "the sha256 on disk, not the catalog's");
  assert.match(bad.stderr, new RegExp(`^PROBLEM checksum-mismatch +${FLIPPED}: sha256 `, 'm'));
  assert.match(bad.stderr, /^FAILED: 1 problem\(s\): 1 checksum-mismatch$/m);
});

t('a missing file: its line is gone, exit 1 naming the file', async () => {
  const { dataDir } = await preparedData(SMALL_DATA);
  const damaged = copyOf(dataDir);
  unlinkSync(join(damaged, GONE));
  const r = await digests(damaged);
  assert.is(r.code, 1, r.stderr);
  assert.not.match(r.stdout, GONE);
  assert.match(r.stdout, /^# 7 files, sha256 of this list: /m);
  assert.match(r.stderr, new RegExp(`^PROBLEM missing +${GONE}: `, 'm'));
});

t('--json parses and matches the text form', async () => {
  const { dataDir } = await preparedData(SMALL_DATA);
  const text = await digests(dataDir);
  const json = await digests(dataDir, '--json');
  assert.is(json.code, 0, json.stderr);
  const parsed = JSON.parse(json.stdout) as { files: { path: string; sha256: string; rows: number; bytes: number }[]; listDigest: string };
  const lines = text.stdout.trimEnd().split('\n');
  const summary = lines.pop()!;
  assert.equal(
    parsed.files.map((f) => `${f.sha256}  ${f.rows}  ${f.bytes}  ${f.path}`),
    lines,
  );
  assert.equal(
    parsed.files.map((f) => Object.keys(f)),
    parsed.files.map(() => ['path', 'sha256', 'rows', 'bytes']),
  );
  assert.is(summary, `# ${parsed.files.length} files, sha256 of this list: ${parsed.listDigest}`);
});

t('--quick --digests is a usage error: exit 2, one line', async () => {
  const { dataDir } = await preparedData(SMALL_DATA);
  const r = await digests(dataDir, '--quick');
  assert.is(r.code, 2);
  assert.is(r.stdout, '');
  assert.is(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
  assert.match(r.stderr, /--quick and --digests exclude each other/);
});

t.run();
