/**
 * `tickvault backup --to DIR` on a live data directory: a server under request load the whole
 * time, and (second test) a replay sealing new days into it while the backup runs. The copy is
 * a data directory whose `doctor` passes; without ingest its `doctor --digests` equals the
 * source's; with ingest running, it holds a consistent point of it, and the same replay run on
 * the copy brings it to the source's files exactly. A server on the copy answers the source's
 * keys with the source's rows.
 */
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { exited, runCli, startCli } from '../support/cli.js';
import { addAccount, postApi, preparedData, REPLAY_NOW, startServer, type ServerHandle } from '../support/server.js';
import { startLoad, type Load, type Tally } from '../support/load.js';
import { tempDir } from '../support/tempDir.js';

const t = suite('backup');
const DATA = { days: 2, stocks: 3, indexes: 2, ticks: 0.1 } as const;
const env = { TICKVAULT_NOW: REPLAY_NOW };

const QUOTES = (key: string, tradedate: string) => ({
  apiname: 'level2_quote_history',
  apikey: key,
  params: { symbol: '600000.SH', tradedate, page_size: 50 },
});
const TICKS = (key: string, tradedate: string) => ({ apiname: 'tick_history', apikey: key, params: { symbol: '000001', tradedate } });

/** A private copy of the shared prepared lake (its sealed files are read-only for tests). */
async function liveCopy(): Promise<string> {
  const { dataDir } = await preparedData(DATA);
  const dest = join(tempDir('tickvault-backup-src-'), 'data');
  cpSync(dataDir, dest, { recursive: true });
  return dest;
}

/**
 * The doctor report without the line naming the directory, its exit code, and all it said (for
 * a failure's message: a doctor that fails may say why on stderr only).
 */
async function doctor(dataDir: string): Promise<{ code: number | null; report: string; said: string }> {
  const r = await runCli(['doctor', '--data-dir', dataDir], { env });
  return {
    code: r.code,
    report: r.stdout
      .split('\n')
      .filter((l) => !l.startsWith('data directory '))
      .join('\n'),
    said: `${r.stdout}${r.stderr}`,
  };
}

async function digests(dataDir: string): Promise<string> {
  const r = await runCli(['doctor', '--digests', '--data-dir', dataDir], { env });
  assert.is(r.code, 0, r.stderr);
  return r.stdout;
}

/**
 * Requests against the server until stopped, from each of `keys` at once (each its own account:
 * the one-request slot is per account), JSON pages and tick_history in turn. The server stays
 * up the whole time, so a reset or refused connection is a failure, counted and shown with the
 * statuses rather than thrown from a loop nobody awaits.
 */
function load(server: ServerHandle, keys: readonly string[], tradedate: string): Load {
  return startLoad(keys.length, (i, n) => postApi(server, (n + i) % 2 === 0 ? QUOTES(keys[i]!, tradedate) : TICKS(keys[i]!, tradedate)));
}

/** Under load a request may be refused for its rate or slot, never anything else. */
const LOAD_OUTCOMES = [200, 429, 503] as const;

function backupLine(stdout: string): string {
  const line = stdout.trim();
  assert.match(
    line,
    /^backed up .* to .*: 3 SQLite files by the backup API, \d+ listed files \([\d.]+ MiB, SHA-256 checked\), \d+ derived files, \d+ staging segments \([\d.]+ MiB\) in [\d.]+ s$/,
  );
  return line;
}

t("under request load: the copy passes doctor, its digests equal the source's, and a server on it answers the same", async () => {
  const source = await liveCopy();
  const keys = Array.from({ length: 4 }, () => addAccount(source, 'flagship').key);
  const server = await startServer(source);
  let copyServer: ServerHandle | null = null;
  const traffic = load(server, keys, '20250103');
  try {
    const to = join(tempDir('tickvault-backup-'), 'copy');
    const b = await runCli(['backup', '--to', to, '--data-dir', source], { env });
    const statuses = await traffic.stop();
    console.log(`  load meanwhile: ${statuses}`);
    assert.is(b.code, 0, b.stderr);
    console.log(`  ${backupLine(b.stdout)}`);
    assert.ok(statuses.get(200) > 0, String(statuses));
    assert.equal(statuses.unexpected(LOAD_OUTCOMES), [], String(statuses));

    const [a, c] = [await doctor(source), await doctor(to)];
    assert.is(c.code, 0, c.said);
    assert.is(c.report, a.report);
    assert.is(await digests(to), await digests(source));
    assert.ok(existsSync(join(to, 'cursor.key')));
    // Slots held by the source's requests mid-backup would refuse their accounts in the copy.
    const db = new Database(join(to, 'service.db'), { readonly: true });
    assert.is((db.prepare('SELECT count(*) AS n FROM slots').get() as { n: number }).n, 0);
    assert.is((db.prepare('SELECT count(*) AS n FROM accounts').get() as { n: number }).n, keys.length);
    db.close();

    // Restore = serve the copy: the source's keys and cursors hold, the rows are the same.
    copyServer = await startServer(to);
    for (const body of [QUOTES(keys[0]!, '20250103'), TICKS(keys[0]!, '20250102')]) {
      const [x, y] = [await postApi(server, body), await postApi(copyServer, body)];
      assert.is(y.status, 200, y.text);
      assert.equal(y.json.data, x.json.data);
    }
  } finally {
    // No request in flight when the server goes, even when the test failed half-way.
    await traffic.stop().catch(() => undefined);
    await copyServer?.stop();
    await server.stop();
  }
});

t(
  "under load, backups taken again and again while a replay stages and seals new days: each copy is a consistent point — doctor passes, its files are the source's — and the same replay on it gives the source's files",
  async () => {
    const source = await liveCopy();
    const before = await digests(source);
    const dir = tempDir('tickvault-backup-feed-');
    const feed = join(dir, 'later.jsonl.zst');
    const gen = await runCli(
      [
        'generate',
        '--out',
        feed,
        '--from',
        '20250106',
        '--days',
        '3',
        '--stocks',
        String(DATA.stocks),
        '--indexes',
        String(DATA.indexes),
        '--ticks',
        String(DATA.ticks),
      ],
      { env },
    );
    assert.is(gen.code, 0, gen.stderr);
    const keys = Array.from({ length: 4 }, () => addAccount(source, 'flagship').key);
    const server = await startServer(source);
    const copies: { dir: string; line: string; segments: number }[] = [];
    const traffic = load(server, keys, '20250102');
    let statuses: Tally;
    const replay = startCli(['replay', feed, '--data-dir', source], { env });
    try {
      let replayErr = '';
      replay.stderr!.setEncoding('utf8').on('data', (d: string) => (replayErr += d));
      replay.stdin!.end();
      let replayCode: number | null | undefined;
      void exited(replay).then((r) => (replayCode = r.code));
      // From the first staged segment to the replay's end: copies while staging, while sealing.
      while (!existsSync(join(source, 'staging')) && replayCode === undefined) await new Promise((r) => setTimeout(r, 10));
      while (replayCode === undefined) {
        const to = join(tempDir('tickvault-backup-'), 'copy');
        const b = await runCli(['backup', '--to', to, '--data-dir', source], { env });
        assert.is(b.code, 0, b.stderr);
        const line = backupLine(b.stdout);
        copies.push({ dir: to, line, segments: Number(/(\d+) staging segments/.exec(line)![1]) });
      }
      statuses = await traffic.stop();
      assert.is(replayCode, 0, replayErr);
    } finally {
      // No request in flight when the server goes, even when the test failed half-way.
      await traffic.stop().catch(() => undefined);
      // A replay still going after a failure would write on into a directory being removed.
      if (replay.exitCode === null && replay.signalCode === null) replay.kill('SIGKILL');
      await exited(replay);
      await server.stop();
    }
    console.log(`  load meanwhile: ${statuses}`);
    assert.ok(statuses.get(200) > 0, String(statuses));
    assert.equal(statuses.unexpected(LOAD_OUTCOMES), [], String(statuses));
    assert.ok(copies.length > 0);

    const lines = (text: string) => text.trimEnd().split('\n').slice(0, -1);
    const after = await digests(source);
    const kept = lines(before);
    const copied: string[][] = [];
    for (const c of copies) {
      const d = await doctor(c.dir);
      assert.is(d.code, 0, `${c.line}\n${d.said}`);
      const files = lines(await digests(c.dir));
      // Every file the copy holds is the source's own, and everything sealed before is there.
      for (const l of files) assert.ok(after.includes(l), `not in the source: ${l}`);
      for (const l of kept) assert.ok(files.includes(l), `missing from the copy: ${l}`);
      copied.push(files);
      console.log(`  during replay: ${c.segments} segments staged, ${files.length} files sealed (source before ${kept.length}, after ${lines(after).length})`);
    }
    // The copies resume where they were taken: the same replay completes them to the source's
    // files. The one with the most staged segments, and one taken mid-seal if any was.
    const staged = copies.reduce((a, b) => (b.segments > a.segments ? b : a));
    const midSeal = copies.find((_, i) => copied[i]!.length > kept.length && copied[i]!.length < lines(after).length);
    for (const c of new Set([staged, ...(midSeal ? [midSeal] : [])])) {
      const again = await runCli(['replay', feed, '--data-dir', c.dir], { env });
      assert.is(again.code, 0, again.stderr);
      assert.is(await digests(c.dir), after, c.line);
      const d = await doctor(c.dir);
      assert.is(d.code, 0, d.said);
    }
    console.log(`  replayed again into ${midSeal ? 2 : 1} copies (${staged.segments} segments staged${midSeal ? ', one mid-seal' : ''}): the source's files`);
  },
);

t('a listed file damaged at the source is left out and named, exit 1; doctor on the copy names it missing', async () => {
  const source = await liveCopy();
  const damaged = 'level2/date=20250103/600000.SH.parquet';
  const bytes = readFileSync(join(source, damaged));
  bytes[bytes.length >> 1] ^= 0xff;
  writeFileSync(join(source, damaged), bytes);
  const to = join(tempDir('tickvault-backup-'), 'copy');
  const b = await runCli(['backup', '--to', to, '--data-dir', source], { env });
  assert.is(b.code, 1, b.stderr);
  assert.match(b.stderr, new RegExp(`^DAMAGED ${damaged.replace(/\./g, '\\.')}: .*differs from the catalog's`, 'm'));
  assert.ok(!existsSync(join(to, damaged)), 'never installed');
  const d = await runCli(['doctor', '--data-dir', to], { env });
  assert.is(d.code, 1);
  assert.match(d.stdout, new RegExp(`missing.*${damaged.replace(/\./g, '\\.')}`));
});

t('refuses a destination that is not empty (exit 1, one line), and --to is required (exit 2)', async () => {
  const source = await liveCopy();
  const r = await runCli(['backup', '--to', source, '--data-dir', source], { env });
  assert.is(r.code, 2, r.stderr);
  const busy = tempDir('tickvault-backup-busy-');
  cpSync(join(source, 'catalog.db'), join(busy, 'catalog.db'));
  const n = await runCli(['backup', '--to', busy, '--data-dir', source], { env });
  assert.is(n.code, 1);
  assert.match(n.stderr, /^tickvault backup: failed: .* is not empty: back up into a new or empty directory\n$/);
  assert.is((await runCli(['backup', '--data-dir', source], { env })).code, 2);
});

t.run();
