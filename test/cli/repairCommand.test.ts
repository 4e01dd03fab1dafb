/**
 * `tickvault repair` end to end on copies of a replayed lake (level-2, trades, orders,
 * indexes): a flipped byte, a truncation, a deleted file with its row text and a damaged
 * boundary part, repaired from the original's data directory and from a second server over
 * the original (its Parquet downloads; index files through the mirror). Afterwards `doctor`
 * passes with no warning and `doctor --digests` equals the original's; every repaired file's
 * bytes are the original's (read before any test ran). A peer whose file differs too is
 * refused and the local file stays byte for byte as it was (a peer server's damaged file too,
 * by its 503, without waiting); a file the peer lacks is "not found"; a server running on the
 * damaged directory serves the repaired file without a restart; nothing to repair says so; bad
 * arguments are one line, exit 2.
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFeedLines } from '../../ingest/feed/lines.js';
import { runCli, type CliResult } from '../support/cli.js';
import { closedPort } from '../support/mirror.js';
import { readCatalog } from '../support/catalog.js';
import { addAccount, DEFAULT_SERVER_NOW, httpRequest, preparedData, startServer, type ServerHandle } from '../support/server.js';
import { tempDir } from '../support/tempDir.js';
import { rowTextRelPath } from '../../storage/layout.js';

const t = suite('tickvault repair');

/** Two trading days, 3 stocks with trades and orders, 2 indexes. */
const DATA = { days: 2, stocks: 3, indexes: 2, ticks: 0.1 } as const;
const env = { TICKVAULT_NOW: DEFAULT_SERVER_NOW };
const DAY = '20250103';
/** Files of DAY the tests damage: the first stock's level-2 and trades, the last stock's level 2 (deleted with its row text). */
let L2: string;
let TRADE: string;
let GONE: string;

/** A pristine copy of the prepared lake, made before the server on the original writes anything. */
let pristine: string;
let up: ServerHandle;
let key: string;
/** The data directory the server `up` serves (the prepared original). */
let upDataDir: string;
/** Every catalogued file's original bytes' SHA-256, hashed here from the untouched files. */
const original = new Map<string, string>();
let originalDigests: string;
let indexFile: string;
let feedFile: string;
let boundaryPart: string;

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const repair = (dataDir: string, args: readonly string[]) => runCli(['repair', '--data-dir', dataDir, ...args], { env });

function copyOf(dir: string): string {
  const dest = join(tempDir('tickvault-repair-'), 'data');
  cpSync(dir, dest, { recursive: true });
  return dest;
}

function flipByte(dataDir: string, rel: string, at = 0.5): void {
  const path = join(dataDir, rel);
  const b = readFileSync(path);
  const i = Math.floor(b.length * at);
  b[i] ^= 0xff;
  writeFileSync(path, b);
}

async function digests(dataDir: string): Promise<string> {
  const r = await runCli(['doctor', '--digests', '--data-dir', dataDir], { env });
  assert.is(r.code, 0, `doctor --digests on ${dataDir}: ${r.stderr}`);
  return r.stdout;
}

/** Doctor passes, with no warning of any kind. */
async function doctorClean(dataDir: string): Promise<void> {
  const r = await runCli(['doctor', '--data-dir', dataDir], { env });
  assert.is(r.code, 0, `doctor after repair:\n${r.stdout}${r.stderr}`);
  assert.not.match(r.stdout, /^(PROBLEM|WARNING) /m, r.stdout);
}

/** The four damages of a test copy: flipped, truncated, deleted (with its row text), a damaged boundary part. */
function damage(dataDir: string): void {
  flipByte(dataDir, L2);
  const trade = join(dataDir, TRADE);
  truncateSync(trade, readFileSync(trade).length - 100);
  rmSync(join(dataDir, GONE));
  rmSync(join(dataDir, rowTextRelPath(GONE)));
  flipByte(dataDir, boundaryPart, 0.3);
}

function assertOriginalBytes(dataDir: string, rels: readonly string[]): void {
  for (const rel of rels) assert.is(sha(readFileSync(join(dataDir, rel))), original.get(rel), `${rel}: the original's bytes`);
}

function stdoutLines(r: CliResult): string[] {
  return r.stdout.trimEnd().split('\n');
}

t.before(async () => {
  const data = await preparedData(DATA);
  pristine = copyOf(data.dataDir);
  feedFile = data.feedFile;
  const files = readCatalog(pristine, (c) => [...c.everyFile()], []);
  for (const f of files) original.set(f.path, sha(readFileSync(join(pristine, f.path))));
  const ofDay = (dataset: string) =>
    files
      .filter((f) => f.dataset === dataset && f.tradedate === DAY)
      .map((f) => f.path)
      .sort();
  L2 = ofDay('level2')[0]!;
  TRADE = ofDay('trade')[0]!;
  GONE = ofDay('level2').at(-1)!;
  indexFile = ofDay('index')[0]!;
  boundaryPart = readCatalog(pristine, (c) => c.everyBoundaryPart(), []).find((p) => p.path.includes(`date=${DAY}`))!.path;
  originalDigests = await digests(pristine);
  upDataDir = data.dataDir;
  key = addAccount(data.dataDir, 'professional').key;
  up = await startServer(data.dataDir);
});

t.after(async () => {
  await up?.stop();
});

t('the original holds what the tests damage', () => {
  for (const rel of [L2, TRADE, GONE, indexFile]) assert.ok(original.has(rel), `${rel} is catalogued`);
  assert.ok(existsSync(join(pristine, rowTextRelPath(GONE))), 'the level-2 file has row text');
  assert.not.ok(existsSync(join(pristine, rowTextRelPath(TRADE))), 'trades have none (level 2 only, issue 52)');
  assert.match(boundaryPart, /^_boundary\/(level2|index)\/date=20250103\/.+\.tvb$/);
});

t('nothing to repair: exit 0, and it says so', async () => {
  const r = await repair(copyOf(pristine), ['--from', pristine]);
  assert.is(r.code, 0, r.stderr);
  assert.equal(stdoutLines(r).length, 1, r.stdout);
  assert.match(r.stdout, /^nothing to repair: doctor finds no damaged or missing file among \d+ catalogued files/);
});

t('--from DIR: a flipped byte, a truncation, a deleted file and a damaged boundary part repaired', async () => {
  const local = copyOf(pristine);
  damage(local);
  const before = await runCli(['doctor', '--data-dir', local], { env });
  assert.is(before.code, 1, 'doctor fails on the damaged copy');
  const inode = statSync(join(local, L2)).ino;

  const started = Date.now();
  const r = await repair(local, ['--from', pristine]);
  const ms = Date.now() - started;
  assert.is(r.code, 0, `${r.stdout}${r.stderr}`);
  assert.is(r.stderr, '', 'nothing on stderr');
  const lines = stdoutLines(r);
  // The flipped and the truncated file's row text was sound (it is bound to the catalog's
  // SHA-256, not to the damaged bytes): kept. The deleted file's row text is gone: rebuilt.
  for (const rel of [L2, TRADE]) assert.ok(lines.includes(`repaired ${rel} (from ${pristine})`), `${rel}: ${r.stdout}`);
  assert.ok(lines.includes(`repaired ${GONE} (from ${pristine}); row text rebuilt`), r.stdout);
  assert.ok(lines.includes(`rebuilt ${boundaryPart} (boundary part, from its files here)`), r.stdout);
  assert.match(
    lines[lines.length - 1],
    /^repair from .*: 3 damaged or missing files: 3 repaired, 0 refused, 0 not found, 0 not repaired; 1 of 1 boundary part rebuilt; 1 row text rebuilt; all repaired in /,
  );
  assert.is(lines.length, 5, r.stdout);

  assertOriginalBytes(local, [L2, TRADE, GONE]);
  assert.is.not(statSync(join(local, L2)).ino, inode, 'replaced by rename: a new inode (a server holding the old one open is not written under)');
  await doctorClean(local);
  assert.is(await digests(local), originalDigests);
  console.log(`  repair --from DIR of 3 files and 1 boundary part: ${ms} ms (the command, start to end)`);
});

t('--from URL: the same damages and a deleted index file, from a second server over the original', async () => {
  const local = copyOf(pristine);
  damage(local);
  rmSync(join(local, indexFile));

  const started = Date.now();
  const r = await repair(local, ['--from', up.url, '--key', key]);
  const ms = Date.now() - started;
  assert.is(r.code, 0, `${r.stdout}${r.stderr}`);
  const lines = stdoutLines(r);
  for (const rel of [L2, TRADE]) assert.ok(lines.includes(`repaired ${rel} (from ${up.url})`), `${rel}: ${r.stdout}`);
  assert.ok(lines.includes(`repaired ${GONE} (from ${up.url}); row text rebuilt`), r.stdout);
  assert.ok(lines.includes(`repaired ${indexFile} (from ${up.url})`), r.stdout);
  assert.ok(lines.includes(`rebuilt ${boundaryPart} (boundary part, from its files here)`), r.stdout);
  assert.match(
    lines[lines.length - 1],
    /: 4 damaged or missing files: 4 repaired, 0 refused, 0 not found, 0 not repaired; 1 of 1 boundary part rebuilt; 1 row text rebuilt; all repaired in /,
  );

  assertOriginalBytes(local, [L2, TRADE, GONE, indexFile]);
  await doctorClean(local);
  assert.is(await digests(local), originalDigests);
  console.log(`  repair --from URL of 4 files (3 downloads, 1 index day mirrored) and 1 boundary part: ${ms} ms`);
});

t("--from URL with a plan without Parquet downloads: stock files rebuilt from the peer's pages by the mirror", async () => {
  const local = copyOf(pristine);
  flipByte(local, L2);
  flipByte(local, rowTextRelPath(L2));
  rmSync(join(local, TRADE));
  const trialKey = addAccount(upDataDir, 'trial').key;
  const r = await repair(local, ['--from', up.url, '--key', trialKey]);
  assert.is(r.code, 0, `${r.stdout}${r.stderr}`);
  const lines = stdoutLines(r);
  assert.ok(lines.includes(`repaired ${L2} (from ${up.url}); row text rebuilt`), r.stdout);
  assert.ok(lines.includes(`repaired ${TRADE} (from ${up.url})`), r.stdout);
  assert.match(r.stderr, /Parquet downloads refused by the peer/);
  assertOriginalBytes(local, [L2, TRADE]);
  await doctorClean(local);
  assert.is(await digests(local), originalDigests);
});

t('a sound file with damaged row text: its row text rebuilt here, nothing fetched', async () => {
  const local = copyOf(pristine);
  flipByte(local, rowTextRelPath(L2));
  const r = await repair(local, ['--from', pristine]);
  assert.is(r.code, 0, `${r.stdout}${r.stderr}`);
  const lines = stdoutLines(r);
  assert.is(lines[0], `row text rebuilt ${L2}`);
  assert.match(lines[1], /: 0 damaged or missing files: .*1 row text rebuilt; all repaired in /);
  await doctorClean(local);
});

t('a server running on the damaged directory serves the repaired file without a restart', async () => {
  const local = copyOf(pristine);
  flipByte(local, L2);
  const localKey = addAccount(local, 'professional').key;
  const [, folder, name] = L2.split('/');
  const download = () =>
    httpRequest(`${served.url}/api`, {
      body: JSON.stringify({
        apiname: 'level2_quote_history',
        apikey: localKey,
        params: { symbol: name!.replace(/\.parquet$/, ''), tradedate: folder!.slice(5), format: 'parquet' },
      }),
      headers: { 'content-type': 'application/json' },
    });
  const served = await startServer(local);
  try {
    const before = await download();
    assert.is(before.status, 503, `the damaged file is refused: ${before.text.slice(0, 200)}`);
    const r = await repair(local, ['--from', pristine]);
    assert.is(r.code, 0, `${r.stdout}${r.stderr}`);
    const after = await download();
    assert.is(after.status, 200, after.text.slice(0, 200));
    assert.is(sha(after.body), original.get(L2), 'the original bytes, served by the same process');
  } finally {
    await served.stop();
  }
});

t('a peer whose file differs too: refused, the local file untouched, exit 1', async () => {
  const local = copyOf(pristine);
  flipByte(local, L2);
  const damagedBytes = readFileSync(join(local, L2));
  const peer = copyOf(pristine);
  flipByte(peer, L2, 0.25);
  const peerSha = sha(readFileSync(join(peer, L2)));

  const r = await repair(local, ['--from', peer]);
  assert.is(r.code, 1, `${r.stdout}${r.stderr}`);
  const lines = stdoutLines(r);
  assert.ok(lines[0]!.startsWith(`refused ${L2}: peer's SHA-256 ${peerSha} differs from the catalog's ${original.get(L2)}`), r.stdout);
  assert.match(lines[1], /: 1 damaged or missing file: 0 repaired, 1 refused, 0 not found, 0 not repaired; .*1 finding left/);
  assert.ok(Buffer.compare(readFileSync(join(local, L2)), damagedBytes) === 0, 'the local file is byte for byte as it was');
  const r2 = await runCli(['doctor', '--data-dir', local], { env });
  assert.not.match(r2.stdout, /stale-temp/, 'no temporary file left behind');
});

t('a peer server whose file is damaged too: not repaired with its 503 at once (no waiting it out), exit 1, the local file untouched', async () => {
  const local = copyOf(pristine);
  flipByte(local, L2);
  flipByte(local, indexFile);
  const damagedBytes = readFileSync(join(local, L2));
  const damagedIndex = readFileSync(join(local, indexFile));
  const peer = copyOf(pristine);
  flipByte(peer, L2, 0.25);
  // An index file comes through the mirror's pages: its day is not sealed in the scratch, and the line says why.
  flipByte(peer, indexFile, 0.25);
  const peerKey = addAccount(peer, 'professional').key;
  const server = await startServer(peer);
  try {
    const started = Date.now();
    const r = await repair(local, ['--from', server.url, '--key', peerKey]);
    const ms = Date.now() - started;
    assert.is(r.code, 1, `${r.stdout}${r.stderr}`);
    const lines = stdoutLines(r);
    assert.ok(
      lines.some((l) => l.startsWith(`not repaired ${L2}: the peer answered 503: stored file ${L2} is damaged`)),
      lines.join('\n'),
    );
    assert.ok(
      lines.some((l) => l.startsWith(`not repaired ${indexFile}: index ${DAY} not mirrored: the upstream's index of `) && l.includes('is damaged there')),
      lines.join('\n'),
    );
    assert.ok(ms < 30_000, `answered without waiting out the peer's Retry-After (took ${ms} ms)`);
  } finally {
    await server.stop();
  }
  assert.ok(Buffer.compare(readFileSync(join(local, L2)), damagedBytes) === 0, 'the local file is byte for byte as it was');
  assert.ok(Buffer.compare(readFileSync(join(local, indexFile)), damagedIndex) === 0, 'the local index file is byte for byte as it was');
});

t('a file the peer lacks too: not found, exit 1', async () => {
  const local = copyOf(pristine);
  rmSync(join(local, TRADE));
  const peer = copyOf(pristine);
  rmSync(join(peer, TRADE));
  const r = await repair(local, ['--from', peer]);
  assert.is(r.code, 1, `${r.stdout}${r.stderr}`);
  assert.is(stdoutLines(r)[0], `not found ${TRADE} at ${peer}`);
  assert.not.ok(existsSync(join(local, TRADE)));
});

t('a peer that does not answer: each file not repaired with the reason, exit 1, the local file untouched', async () => {
  const local = copyOf(pristine);
  rmSync(join(local, TRADE));
  const url = `http://127.0.0.1:${await closedPort()}`;
  const r = await repair(local, ['--from', url, '--key', 'any']);
  assert.is(r.code, 1, `${r.stdout}${r.stderr}`);
  assert.match(stdoutLines(r)[0], new RegExp(`^not repaired ${TRADE}: .*did not answer: ECONNREFUSED`));
  assert.not.match(r.stderr, /^ {4}at /m, 'no stack trace');
  assert.not.ok(existsSync(join(local, TRADE)));
});

t("versions: a restated day's current version from a server's download, its old version only from a directory", async () => {
  // The peer restates one level-2 symbol-day (one bid1 changed): version 2 current, version 1 kept.
  const peer = copyOf(pristine);
  const [dataset, folder, name] = L2.split('/');
  const symbol = name!.replace(/\.parquet$/, '');
  const rows: Record<string, unknown>[] = [];
  for await (const batch of readFeedLines(feedFile)) {
    for (const line of batch.lines) {
      if (line === '') continue;
      const row = JSON.parse(line) as Record<string, unknown>;
      if (row.kind === dataset && row.symbol === symbol && `date=${String(row.tradedate)}` === folder) rows.push(row);
    }
  }
  const changed = { ...rows[100]!, bid1: Math.round(((rows[100]!.bid1 as number) + 0.01) * 100) / 100 };
  const corrections = join(tempDir('tickvault-repair-corr-'), 'c.jsonl');
  writeFileSync(corrections, JSON.stringify(changed) + '\n');
  const restated = await runCli(['restate', '--data-dir', peer, '--dataset', dataset!, '--date', DAY, corrections], { env });
  assert.is(restated.code, 0, restated.stderr);
  const V2 = L2.replace(/\.parquet$/, '.v2.parquet');
  assert.ok(existsSync(join(peer, V2)), 'version 2 written');
  const v1 = sha(readFileSync(join(peer, L2)));
  const v2 = sha(readFileSync(join(peer, V2)));

  const local = copyOf(peer);
  flipByte(local, L2);
  flipByte(local, V2);
  const peerKey = addAccount(peer, 'professional').key;
  const server = await startServer(peer);
  try {
    const r = await repair(local, ['--from', server.url, '--key', peerKey]);
    assert.is(r.code, 1, `${r.stdout}${r.stderr}`);
    const lines = stdoutLines(r);
    assert.ok(lines.includes(`repaired ${V2} (from ${server.url})`), r.stdout);
    assert.ok(
      lines.includes(
        `not repaired ${L2}: the peer's current version is 2, this file is version 1 (a download is always the current version; repair from a data directory or backup that holds version 1)`,
      ),
      r.stdout,
    );
  } finally {
    await server.stop();
  }
  assert.is(sha(readFileSync(join(local, V2))), v2);
  const fromDir = await repair(local, ['--from', peer]);
  assert.is(fromDir.code, 0, fromDir.stdout);
  assert.is(stdoutLines(fromDir)[0], `repaired ${L2} (from ${peer})`);
  assert.is(sha(readFileSync(join(local, L2))), v1);
  await doctorClean(local);
  assert.is(await digests(local), await digests(peer));
});

t('bad arguments: one line, exit 2', async () => {
  const local = copyOf(pristine);
  const cases: [readonly string[], RegExp][] = [
    [[], /^tickvault repair: --from URL\|DIR is required/],
    [['--from', join(local, 'no-such-dir')], /^tickvault repair: --from .* is neither an http\(s\):\/\/ address nor a directory$/],
    [['--from', join(local, 'level2')], /^tickvault repair: --from .* holds no catalog\.db/],
    [['--from', local], /^tickvault repair: --from names the data directory itself$/],
    [['--from', 'ftp://host/x'], /^tickvault repair: --from must be an http:\/\/ or https:\/\/ address or a directory/],
    [['--from', 'http://127.0.0.1:1'], /^tickvault repair: --key KEY is required with --from URL/],
    [['--from', pristine, '--key', 'k'], /^tickvault repair: --key goes with --from URL/],
  ];
  for (const [args, want] of cases) {
    const r = await runCli(['repair', '--data-dir', local, ...args], { env: { ...env, TICKVAULT_UPSTREAM_KEY: undefined, TICKVAULT_REPAIR_FROM: undefined } });
    assert.is(r.code, 2, `${args.join(' ')}: exit ${r.code}\n${r.stderr}`);
    const err = r.stderr.trimEnd().split('\n');
    assert.is(err.length, 1, `${args.join(' ')}: one line, got:\n${r.stderr}`);
    assert.match(err[0], want);
    assert.is(r.stdout, '');
  }
});

t.run();
