/**
 * `tickvault doctor` end to end on a real replayed data directory (shared, so copied before
 * any damage): a clean copy exits 0; a damaged one names every problem and exits 1.
 */
import { cpSync, existsSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli } from '../support/cli.js';
import { preparedData } from '../support/server.js';
import { tempDir } from '../support/tempDir.js';

const t = suite('doctor command');

/** Two trading days (20250102, 20250103), stocks 600000.SH and 000001.SZ, indexes 000001 and 000300: quick to replay. */
const SMALL_DATA = { days: 2, stocks: 2, indexes: 2 } as const;

async function copyOfData(): Promise<string> {
  const { dataDir } = await preparedData(SMALL_DATA);
  const dest = join(tempDir('tickvault-doctor-'), 'data');
  cpSync(dataDir, dest, { recursive: true });
  return dest;
}

const L2_GONE = 'level2/date=20250102/600000.SH.parquet';
const L2_CORRUPT = 'level2/date=20250103/600000.SH.parquet';
const EXTRA = 'index/date=20250102/999999.parquet';
const TEMP = 'index/date=20250103/000300.parquet.tmp-999999999';

t('a clean data directory: exit 0 and an ok summary', async () => {
  const dir = await copyOfData();
  const r = await runCli(['doctor', '--data-dir', dir]);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^catalog: \d+ files, [\d.]+ MiB; on disk: \d+ files; checked: size, sha256, footer$/m);
  assert.match(r.stdout, /^ok: no problems in \d+ files$/m);
  assert.not.match(r.stdout, /PROBLEM|WARNING/);
});

t('a damaged data directory: missing, checksum, extra and stale temp each reported; exit 1', async () => {
  const dir = await copyOfData();
  unlinkSync(join(dir, L2_GONE));
  const bytes = readFileSync(join(dir, L2_CORRUPT));
  bytes[Math.floor(bytes.length / 2)] ^= 0x5a;
  writeFileSync(join(dir, L2_CORRUPT), bytes);
  writeFileSync(join(dir, EXTRA), 'not parquet');
  writeFileSync(join(dir, TEMP), 'half a file');

  const r = await runCli(['doctor', '--data-dir', dir]);
  assert.is(r.code, 1, r.stderr);
  const lines = r.stdout.split('\n');
  const line = (re: RegExp) => lines.find((l) => re.test(l));
  assert.ok(line(new RegExp(`^PROBLEM missing +${L2_GONE}: `)), r.stdout);
  assert.ok(line(new RegExp(`^PROBLEM checksum-mismatch +${L2_CORRUPT}: sha256 `)), r.stdout);
  assert.ok(line(new RegExp(`^PROBLEM extra +${EXTRA}: on disk but not in the catalog`)), r.stdout);
  assert.ok(line(/^WARNING stale-temp +index\/date=20250103\/000300\.parquet\.tmp-999999999: .*no longer running/), r.stdout);
  assert.match(r.stdout, /^FAILED: 3 problem\(s\): 1 extra, 1 missing, 1 checksum-mismatch; 1 warning\(s\): 1 stale-temp$/m);

  // The same findings as JSON, for monitoring.
  const j = await runCli(['doctor', '--data-dir', dir, '--json']);
  assert.is(j.code, 1);
  const report = JSON.parse(j.stdout) as { ok: boolean; problems: { kind: string; path: string }[]; warnings: { kind: string; path: string }[] };
  assert.is(report.ok, false);
  assert.equal(report.problems.map((p) => `${p.kind} ${p.path}`).sort(), [`checksum-mismatch ${L2_CORRUPT}`, `extra ${EXTRA}`, `missing ${L2_GONE}`]);
  assert.equal(
    report.warnings.map((p) => `${p.kind} ${p.path}`),
    [`stale-temp ${TEMP}`],
  );
});

t('only a stale temp file: a warning, exit 0; --remove-temps deletes it', async () => {
  const dir = await copyOfData();
  writeFileSync(join(dir, TEMP), 'half a file');
  const r = await runCli(['doctor', '--data-dir', dir, '--quick']);
  assert.is(r.code, 0, r.stdout);
  assert.match(r.stdout, /checked: size, footer$/m);
  assert.match(r.stdout, /^ok: no problems in \d+ files; 1 warning\(s\): 1 stale-temp$/m);
  const fixed = await runCli(['doctor', '--data-dir', dir, '--remove-temps']);
  assert.is(fixed.code, 0);
  assert.match(fixed.stdout, /\(removed\)$/m);
  assert.not.ok(existsSync(join(dir, TEMP)));
  const again = await runCli(['doctor', '--data-dir', dir]);
  assert.not.match(again.stdout, /WARNING/);
});

t('bad arguments: a missing data directory and --quick with --deep exit 2 with one line', async () => {
  const nowhere = join(tempDir('tickvault-doctor-'), 'nope');
  const r = await runCli(['doctor', '--data-dir', nowhere]);
  assert.is(r.code, 2);
  assert.match(r.stderr, /data directory not found/);
  const dir = await copyOfData();
  const both = await runCli(['doctor', '--data-dir', dir, '--quick', '--deep']);
  assert.is(both.code, 2);
  assert.match(both.stderr, /exclude each other/);
});

t('row text missing, damaged or stale: warnings (exit 0, digests unchanged); --rebuild writes it again, never from a damaged file', async () => {
  const dir = await copyOfData();
  const text = (rel: string) => join(dir, '_rowtext', rel.replace(/\.parquet$/, '.tvr'));
  const GONE = 'level2/date=20250102/000001.SZ.parquet';
  const FLIPPED = 'level2/date=20250103/000001.SZ.parquet';
  const STALE = 'level2/date=20250102/600000.SH.parquet';
  const original = { gone: readFileSync(text(GONE)), flipped: readFileSync(text(FLIPPED)) };
  const digestsBefore = await runCli(['doctor', '--data-dir', dir, '--digests']);
  unlinkSync(text(GONE));
  const flipped = Buffer.from(original.flipped);
  flipped[10] ^= 0x40;
  writeFileSync(text(FLIPPED), flipped);
  // Another file's row text in its place: made from other bytes.
  writeFileSync(text(STALE), readFileSync(text('level2/date=20250103/600000.SH.parquet')));

  const r = await runCli(['doctor', '--data-dir', dir]);
  assert.is(r.code, 0, r.stdout + r.stderr);
  const warned = r.stdout.split('\n').filter((l) => l.startsWith('WARNING row-text'));
  assert.equal(warned.map((l) => l.split(/\s+/)[2]!.replace(/:$/, '')).sort(), [GONE, STALE, FLIPPED].sort());
  assert.match(r.stdout, new RegExp(`${GONE.replace(/[.]/g, '\\.')}: no row text at _rowtext/`));
  assert.match(r.stdout, /date=20250103\/000001\.SZ\.parquet: row text at .* is damaged: row group 0 fails its CRC-32/);
  assert.match(r.stdout, /600000\.SH\.parquet: row text at .* was made from other bytes/);
  const digestsAfter = await runCli(['doctor', '--data-dir', dir, '--digests']);
  assert.is(digestsAfter.stdout, digestsBefore.stdout, 'row text is not part of the digests');

  const rebuilt = await runCli(['doctor', '--data-dir', dir, '--rebuild']);
  assert.is(rebuilt.code, 0, rebuilt.stderr);
  assert.is(rebuilt.stdout.split('\n').filter((l) => l.startsWith('WARNING row-text') && l.endsWith(' (rebuilt)')).length, 3, rebuilt.stdout);
  assert.ok(readFileSync(text(GONE)).equals(original.gone), 'rebuilt byte for byte');
  assert.ok(readFileSync(text(FLIPPED)).equals(original.flipped), 'rebuilt byte for byte');
  const clean = await runCli(['doctor', '--data-dir', dir]);
  assert.not.match(clean.stdout, /WARNING/);

  // A damaged Parquet file: its row text is reported, and never made from the damaged bytes.
  unlinkSync(text(GONE));
  const pq = readFileSync(join(dir, GONE));
  pq[pq.length >> 1] ^= 0x01;
  writeFileSync(join(dir, GONE), pq);
  const refused = await runCli(['doctor', '--data-dir', dir, '--rebuild']);
  assert.is(refused.code, 1);
  assert.match(refused.stdout, /PROBLEM checksum-mismatch/);
  assert.not.ok(existsSync(text(GONE)), 'no row text from a damaged file');
});

t.run();
