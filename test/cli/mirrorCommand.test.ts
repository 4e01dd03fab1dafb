/**
 * `tickvault mirror` end to end against a real second server: an upstream `tickvault serve`
 * on a replayed lake of all four datasets, a downstream empty data directory. After a mirror,
 * the downstream's `doctor --digests` lines for the days equal the upstream's (byte-identical
 * files): uninterrupted, with the Parquet quota running out half-way (the rest as JSON), under
 * 429 and 503, and after SIGKILLs at several points. The upstream's request log shows no
 * refusal when `--rate` is under its limit; bad input ends in one line and the documented
 * exit code.
 */
import { cpSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { exited, runCli, startCli, waitForLine, type CliResult } from '../support/cli.js';
import { duckRows, sqlString } from '../support/duckdb.js';
import type { Outcome } from '../support/load.js';
import { closedPort, digestLines, holdSlotLoop, jsonLines, requestLines, settledLogs, type JsonLogLine } from '../support/mirror.js';
import {
  addAccount,
  DEFAULT_SERVER_NOW,
  httpRequest,
  preparedData,
  sealSyntheticFile,
  startServer,
  type PreparedData,
  type ServerHandle,
} from '../support/server.js';
import { tempDir } from '../support/tempDir.js';

const t = suite('tickvault mirror');

/** Two trading days (20250102, 20250103), 3 stocks with trades and orders, 2 indexes: 22 files. */
const DATA = { days: 2, stocks: 3, indexes: 2, ticks: 0.1 } as const;
const DAYS = ['20250102', '20250103'] as const;
const FILES = DAYS.length * (3 * 3 + 2);
/** The upstream's clock and the mirror's: after the data days, both inside a professional plan's 30 trading days. */
const NOW = DEFAULT_SERVER_NOW;
const env = { TICKVAULT_NOW: NOW };
const RANGE = ['--from', DAYS[0], '--to', DAYS[DAYS.length - 1]];
const FETCHED = /"msg":"symbol-day fetched"/;
const SEALED = /"msg":"day sealed"/;
const VIAS = ['parquet', 'json', 'nodata'];

let data: PreparedData;
let up: ServerHandle;
/** The upstream's `doctor --digests` lines for DAYS (every dataset). */
let upDigests: string[];

const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));
const fresh = () => {
  const dir = join(tempDir('tickvault-mirror-'), 'data');
  mkdirSync(dir);
  return dir;
};
const mirror = (args: readonly string[], downstream: string) => runCli(['mirror', ...args, '--data-dir', downstream], { env });
const upstreamArgs = (server: { readonly url: string }, key: string) => ['--upstream', server.url, '--key', key, ...RANGE];

/** The command's `symbol-day fetched` debug lines. */
const fetchedLines = (stderr: string) => jsonLines(stderr).filter((l) => l.msg === 'symbol-day fetched');
/** Lines of stderr that report a problem (not log lines). */
const problemLines = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('tickvault mirror: '));

/** Exit 0, one summary line on stdout, no problem line. */
function finished(r: CliResult, what: string): void {
  assert.is(r.code, 0, `${what}: exit ${r.code} (${r.signal ?? 'no signal'}); stderr:\n${r.stderr.slice(-3000)}`);
  const out = r.stdout.trimEnd().split('\n');
  assert.is(out.length, 1, `${what}: one line on stdout, got:\n${r.stdout}`);
  assert.match(out[0], /^mirrored /, what);
  assert.equal(problemLines(r.stderr), [], `${what}: no problem lines`);
}

/** Exit `code`, one `tickvault mirror: ` line on stderr and no stack trace; returns the line. */
function refused(r: CliResult, code: number, what: string): string {
  assert.is(r.code, code, `${what}: exit ${r.code}; stderr:\n${r.stderr}`);
  assert.not.match(r.stderr, /^ {4}at /m, `${what}: no stack trace`);
  const lines = r.stderr.trimEnd().split('\n');
  assert.is(lines.length, 1, `${what}: one line, got:\n${r.stderr}`);
  assert.match(lines[0], /^tickvault mirror: \S/, what);
  return lines[0];
}

/** Waits for the server to log what it answered so far, then returns its log's length (a mark to slice from). */
async function logMark(server: ServerHandle): Promise<number> {
  return (await settledLogs(server)).length;
}

/** Rows of one file as DuckDB reads it. */
async function duckCount(path: string): Promise<number> {
  const [row] = await duckRows(`SELECT count(*) AS n FROM read_parquet(${sqlString(path)})`);
  return Number(row.n);
}

/** Every fetched symbol-day line is well formed; data ones name a file of the digests with its row count. */
function checkFetched(lines: readonly JsonLogLine[], digests: readonly string[]): void {
  const rowsOf = new Map(
    digests.map((l) => {
      const [, rows, , path] = l.split('  ');
      return [path, Number(rows)] as const;
    }),
  );
  for (const l of lines) {
    assert.ok(['level2', 'trade', 'order', 'index'].includes(l.dataset as string), JSON.stringify(l));
    assert.ok(DAYS.includes(l.tradedate as (typeof DAYS)[number]), JSON.stringify(l));
    assert.ok(VIAS.includes(l.via as string), JSON.stringify(l));
    assert.type(l.rows, 'number', JSON.stringify(l));
    if (l.via === 'nodata') continue;
    const path = `${l.dataset}/date=${l.tradedate}/${l.symbol}.parquet`;
    assert.is(l.rows, rowsOf.get(path), `${path}: rows logged equal the upstream file's`);
  }
}

interface Run {
  readonly downstream: string;
  readonly key: string;
  readonly result: CliResult;
}

/** The uninterrupted mirror of DAYS with a flagship key, debug log (run once; later tests compare with it). */
let fullRun: Promise<Run> | null = null;
function uninterrupted(): Promise<Run> {
  fullRun ??= (async () => {
    const downstream = fresh();
    const key = addAccount(data.dataDir, 'flagship').key;
    const result = await mirror([...upstreamArgs(up, key), '--log-level', 'debug'], downstream);
    return { downstream, key, result };
  })();
  return fullRun;
}

t.before(async () => {
  data = await preparedData(DATA);
  up = await startServer(data.dataDir, { now: NOW, env: { TICKVAULT_LOG_LEVEL: 'info' } });
  upDigests = await digestLines(data.dataDir, DAYS);
});

t.after(async () => {
  await up?.stop();
});

t('a full mirror: the same files byte for byte, each symbol-day logged once; a second run fetches nothing', async () => {
  assert.is(upDigests.length, FILES, `the upstream holds all four datasets:\n${upDigests.join('\n')}`);
  const { downstream, key, result } = await uninterrupted();
  finished(result, 'first run');
  assert.match(result.stdout, new RegExp(`^mirrored ${FILES} symbol-days`));
  assert.equal(await digestLines(downstream, DAYS), upDigests);

  const fetched = fetchedLines(result.stderr);
  checkFetched(fetched, upDigests);
  const withData = fetched.filter((l) => l.via !== 'nodata').map((l) => `${l.dataset}/date=${l.tradedate}/${l.symbol}.parquet`);
  assert.equal([...withData].sort(), upDigests.map((l) => l.split('  ')[3]).sort(), 'every file fetched once');
  assert.ok(
    jsonLines(result.stderr).some((l) => l.msg === 'day sealed'),
    'sealed days are logged',
  );

  // DuckDB, the independent reader, sees the same rows in a mirrored file as in the upstream's.
  for (const rel of ['trade/date=20250103/600000.SH.parquet', 'level2/date=20250102/000001.SZ.parquet']) {
    const n = await duckCount(join(data.dataDir, rel));
    assert.ok(n > 0, rel);
    assert.is(await duckCount(join(downstream, rel)), n, rel);
  }

  // Again: nothing left to fetch, no detailed interface asked again, nothing changed.
  const mark = await logMark(up);
  const again = await mirror([...upstreamArgs(up, key), '--log-level', 'debug'], downstream);
  finished(again, 'second run');
  assert.match(again.stdout, /^mirrored 0 symbol-days/);
  assert.equal(fetchedLines(again.stderr), [], 'the second run fetches no symbol-day');
  const detailed = requestLines((await settledLogs(up)).slice(mark)).filter((l) => String(l.apiname).startsWith('level2_'));
  assert.equal(detailed, [], 'no level2_* request in the second run');
  assert.equal(await digestLines(downstream, DAYS), upDigests);
});

t("rules kept: --rate 10 under the upstream's 20 per second meets no 429 and no 503 (a URL ending in /api taken as is)", async () => {
  const key = addAccount(data.dataDir, 'flagship').key;
  const downstream = fresh();
  const mark = await logMark(up);
  const r = await mirror(['--upstream', `${up.url}/api`, '--key', key, ...RANGE, '--rate', '10'], downstream);
  finished(r, 'mirror --rate 10');
  const lines = requestLines((await settledLogs(up)).slice(mark));
  assert.ok(lines.length >= FILES, `the upstream logged the mirror's requests (${lines.length})`);
  const refusedLines = lines.filter((l) => l.code === 429 || l.code === 503);
  assert.equal(refusedLines, [], "no request refused for breaking the upstream's rules");
  assert.equal(await digestLines(downstream, DAYS), upDigests);
});

t('the Parquet quota runs out half-way: the rest of level2 comes as JSON, the files still equal', async () => {
  // professional: 30 Parquet files per Beijing day per interface; spend 27 of level2's first.
  const key = addAccount(data.dataDir, 'professional').key;
  const body = JSON.stringify({ apiname: 'level2_quote_history', apikey: key, params: { symbol: '600000.SH', tradedate: DAYS[0], format: 'parquet' } });
  for (let done = 0; done < 27;) {
    const res = await httpRequest(`${up.url}/api`, { body, headers: { 'content-type': 'application/json' } });
    if (res.status === 429 && /per second/.test(res.text)) {
      await sleep(Number(res.headers['retry-after'] ?? 1) * 1000);
      continue;
    }
    assert.is(res.status, 200, res.text.slice(0, 300));
    assert.match(String(res.headers['content-type']), /parquet/);
    done++;
  }
  const downstream = fresh();
  const r = await mirror([...upstreamArgs(up, key), '--log-level', 'debug'], downstream);
  assert.is(r.code, 0, r.stderr.slice(-3000));
  assert.match(r.stdout, /^mirrored /);
  assert.equal(await digestLines(downstream, DAYS), upDigests);
  const fetched = fetchedLines(r.stderr);
  checkFetched(fetched, upDigests);
  const level2 = fetched.filter((l) => l.dataset === 'level2');
  assert.is(level2.filter((l) => l.via === 'parquet').length, 3, 'the 3 downloads left, as Parquet');
  assert.is(level2.filter((l) => l.via === 'json').length, DAYS.length * 3 - 3, 'the rest as JSON');
  for (const dataset of ['trade', 'order']) {
    assert.ok(
      fetched.filter((l) => l.dataset === dataset).every((l) => l.via === 'parquet'),
      `${dataset}: its own quota, untouched, all Parquet`,
    );
  }
});

t('under load: an upstream limited to 2 requests a second and another client holding the level2 slot; 429 and 503 waited out', async () => {
  // A copy of the upstream with one large file on another day: the other client's paused
  // download of it keeps the account's level2 slot busy.
  const copy = join(tempDir('tickvault-mirror-up-'), 'data');
  cpSync(data.dataDir, copy, { recursive: true, filter: (src) => !/service\.db/.test(src) });
  const BIG = { symbol: '600998.SH', tradedate: '20250106' };
  await sealSyntheticFile(copy, BIG.symbol, BIG.tradedate, 70_000);
  const loaded = await startServer(copy, { now: NOW, args: ['--rate-limit', '2'], env: { TICKVAULT_LOG_LEVEL: 'info' } });
  try {
    const key = addAccount(copy, 'flagship').key;
    const downstream = fresh();
    // The first download is held until the server has refused the mirror (or 20 s), so the
    // mirror meets 503 however quickly it runs; later ones are dropped at once, so its waits
    // cannot line up with the holds for ever.
    const mirror503 = (own: readonly Outcome[]) => requestLines(loaded.logs()).filter((l) => l.code === 503).length - own.filter((s) => s === 503).length;
    const holder = holdSlotLoop(loaded, key, BIG, { holdMs: 20_000, releaseWhen: (own) => mirror503(own) > 0 });
    let r: CliResult;
    let theirs: Outcome[];
    try {
      // The holder's first download holds the slot before the mirror starts (a fresh account's
      // first request is answered); waited for, not slept on, so a busy machine cannot reorder them.
      assert.is(await holder.first(), 200);
      // Stocks discovered, one index named: few requests, as the upstream allows 2 a second.
      r = await mirror([...upstreamArgs(loaded, key), '--rate', '50', '--datasets', 'level2,index', '--indexes', '000300', '--log-level', 'debug'], downstream);
    } finally {
      theirs = await holder.stop();
    }
    finished(r, 'mirror under load');
    const wanted = (l: string) => {
      const path = l.split('  ')[3];
      return path.startsWith('level2/') || /^index\/date=\d{8}\/000300\.parquet$/.test(path);
    };
    const expected = upDigests.filter(wanted);
    assert.is(expected.length, DAYS.length * 4);
    assert.equal(await digestLines(downstream, DAYS), expected);
    checkFetched(fetchedLines(r.stderr), upDigests);

    // What the server refused of the mirror: all it refused minus what it refused the other client.
    const lines = requestLines(await settledLogs(loaded));
    const count = (code: number) => lines.filter((l) => l.code === code).length;
    const mine429 = count(429) - theirs.filter((s) => s === 429).length;
    const mine503 = count(503) - theirs.filter((s) => s === 503).length;
    assert.ok(theirs.filter((s) => s === 200).length >= 1, `the other client held the slot (${theirs.join(',')})`);
    // The server stayed up: none of the other client's connections was reset or refused.
    assert.equal(
      theirs.filter((s) => typeof s !== 'number'),
      [],
      theirs.join(','),
    );
    assert.ok(mine429 >= 1, `the mirror met 429 (${mine429})`);
    assert.ok(mine503 >= 1, `the mirror met 503 (${mine503})`);
    // The summary counts what the upstream answered, by status, and each refusal was a wait.
    const summary = r.stdout.trim();
    const statusCount = (code: number) => Number(new RegExp(`\\b${code} ×(\\d+)`).exec(summary)?.[1] ?? 0);
    assert.is(statusCount(429), mine429, summary);
    assert.is(statusCount(503), mine503, summary);
    assert.is(Number(/\b(\d+) waits\b/.exec(summary)?.[1]), mine429 + mine503, summary);
  } finally {
    await loaded.stop();
  }
});

t(
  'a file damaged at the upstream: its day is left unsealed with one line, the rest mirrored; once the upstream is repaired, the same command fetches only it',
  async () => {
    const copy = join(tempDir('tickvault-mirror-damaged-'), 'data');
    cpSync(data.dataDir, copy, { recursive: true, filter: (src) => !/service\.db/.test(src) });
    const rel = `level2/date=${DAYS[1]}/600000.SH.parquet`;
    const bytes = readFileSync(join(copy, rel));
    bytes[Math.floor(bytes.length / 2)] ^= 0x08;
    writeFileSync(join(copy, rel), bytes);
    const spoiled = await startServer(copy, { now: NOW });
    try {
      const key = addAccount(copy, 'flagship').key;
      const downstream = fresh();
      const args = [...upstreamArgs(spoiled, key), '--datasets', 'level2', '--log-level', 'debug'];
      const t0 = Date.now();
      const r = await mirror(args, downstream);
      assert.is(r.code, 1, r.stderr.slice(-2000));
      assert.ok(Date.now() - t0 < 60_000, 'the damaged file was not waited for');
      const lines = problemLines(r.stderr);
      assert.is(lines.length, 1, lines.join('\n'));
      assert.match(
        lines[0],
        new RegExp(
          `^tickvault mirror: level2 ${DAYS[1]} not mirrored: the upstream's level2 of 600000\\.SH ${DAYS[1]} is damaged there \\(503: stored file ${rel.replace(/[.]/g, '\\.')} is damaged: its SHA-256 `,
        ),
      );
      assert.match(lines[0], /run the same command again once the upstream has repaired it/);
      assert.not.match(r.stderr, /^ {4}at /m);
      const level2 = (l: string) => l.split('  ')[3].startsWith('level2/');
      assert.equal(
        await digestLines(downstream, [DAYS[0]]),
        upDigests.filter((l) => level2(l) && l.includes(`date=${DAYS[0]}/`)),
        'the sound day mirrored',
      );
      assert.equal(await digestLines(downstream, [DAYS[1]]), [], 'the damaged day not sealed');

      // The upstream repaired (a verified copy renamed in): the same command completes, asking only for that file.
      writeFileSync(join(copy, `${rel}.tmp`), readFileSync(join(data.dataDir, rel)));
      renameSync(join(copy, `${rel}.tmp`), join(copy, rel));
      const again = await mirror(args, downstream);
      finished(again, "after the upstream's repair");
      assert.equal(await digestLines(downstream, DAYS), upDigests.filter(level2));
      assert.equal(
        fetchedLines(again.stderr).map((l) => `${l.dataset} ${l.symbol} ${l.tradedate}`),
        [`level2 600000.SH ${DAYS[1]}`],
      );
    } finally {
      await spoiled.stop();
    }
  },
);

t('--symbols-file and --indexes: only those, forms accepted; a symbol the upstream lacks is recorded as no data, not fetched again', async () => {
  const key = addAccount(data.dataDir, 'flagship').key;
  const downstream = fresh();
  const list = join(tempDir('tickvault-mirror-list-'), 'book.txt');
  writeFileSync(list, "# a desk's book\nsh600000\n600999.SH\n");
  const args = [
    '--upstream',
    up.url,
    '--key',
    key,
    '--from',
    DAYS[1],
    '--to',
    DAYS[1],
    '--datasets',
    'level2,trade,index',
    '--symbols-file',
    list,
    '--indexes',
    '000300,000905',
    '--log-level',
    'debug',
  ];
  const r = await mirror(args, downstream);
  finished(r, 'mirror of a list');
  const expected = [`level2/date=${DAYS[1]}/600000.SH.parquet`, `trade/date=${DAYS[1]}/600000.SH.parquet`, `index/date=${DAYS[1]}/000300.parquet`];
  assert.equal(
    await digestLines(downstream, DAYS),
    upDigests.filter((l) => expected.includes(l.split('  ')[3])),
  );
  const fetched = fetchedLines(r.stderr);
  checkFetched(fetched, upDigests);
  const seen = fetched.map((l) => `${l.dataset} ${l.symbol} ${l.via}`).sort();
  assert.equal(
    seen.filter((l) => l.endsWith(' nodata')),
    ['index 000905 nodata', 'level2 600999.SH nodata', 'trade 600999.SH nodata'],
  );
  assert.is(seen.length, 6, seen.join('; '));
  assert.ok(fetched.filter((l) => l.via === 'nodata').every((l) => l.rows === 0));

  const again = await mirror(args, downstream);
  finished(again, 'the same list again');
  assert.equal(fetchedLines(again.stderr), [], 'no data was recorded: not asked again');
});

t('SIGKILL at several points, then the same command again: the same files, fewer symbol-days fetched than a full run', async () => {
  const full = await uninterrupted();
  finished(full.result, 'the uninterrupted run');
  const fullFetched = fetchedLines(full.result.stderr).length;
  const key = addAccount(data.dataDir, 'flagship').key;
  const downstream = fresh();
  const args = ['mirror', ...upstreamArgs(up, key), '--log-level', 'debug', '--data-dir', downstream];
  const points: [string, RegExp, number][] = [
    ['the first symbol-day fetched', FETCHED, 1],
    ['the 6th symbol-day fetched of a resumed run', FETCHED, 6],
    ['the first day sealed', SEALED, 1],
  ];
  for (const [what, pattern, n] of points) {
    const child = startCli(args, { env });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdin!.end();
    try {
      await waitForLine(child, pattern, 60_000, n);
    } finally {
      child.kill('SIGKILL');
    }
    const end = await exited(child);
    assert.ok(
      end.signal === 'SIGKILL' || end.code === 0,
      `${what}: killed (${end.signal}) or already done (exit ${end.code}); stderr:\n${stderr.slice(-2000)}`,
    );
  }
  const rest = await mirror([...upstreamArgs(up, key), '--log-level', 'debug'], downstream);
  finished(rest, 'the run after the kills');
  const resumed = fetchedLines(rest.stderr);
  checkFetched(resumed, upDigests);
  assert.ok(resumed.length < fullFetched, `the rerun fetched ${resumed.length} symbol-days, a full run ${fullFetched}`);
  assert.equal(await digestLines(downstream, DAYS), await digestLines(full.downstream, DAYS));
  assert.equal(await digestLines(downstream, DAYS), upDigests);
});

t('bad input: unreachable upstream exit 1; wrong key, a range outside the calendar or without a trading day, from after to, exit 2', async () => {
  const key = addAccount(data.dataDir, 'flagship').key;
  const port = await closedPort();
  const unreachable = await mirror(['--upstream', `http://127.0.0.1:${port}`, '--key', key, ...RANGE], fresh());
  refused(unreachable, 1, 'unreachable upstream');

  refused(await mirror(upstreamArgs(up, 'tv_this-key-does-not-exist-0123456789'), fresh()), 2, 'a key the upstream refuses');
  refused(await mirror(['--upstream', up.url, '--key', key, '--from', '20000101', '--to', '20000110'], fresh()), 2, 'a range before the calendar');
  refused(await mirror(['--upstream', up.url, '--key', key, '--from', '20250104', '--to', '20250105'], fresh()), 2, 'a weekend: no trading day');
  refused(await mirror(['--upstream', up.url, '--key', key, '--from', DAYS[1], '--to', DAYS[0]], fresh()), 2, '--from after --to');
});

t('a day sealed locally by something else is refused naming restate (exit 2), and nothing changes', async () => {
  const key = addAccount(data.dataDir, 'flagship').key;
  const downstream = join(tempDir('tickvault-mirror-sealed-'), 'data');
  cpSync(data.dataDir, downstream, { recursive: true, filter: (src) => !/service\.db/.test(src) });
  const before = await digestLines(downstream, DAYS);
  const r = await mirror(upstreamArgs(up, key), downstream);
  assert.is(r.code, 2, r.stderr);
  assert.not.match(r.stderr, /^ {4}at /m);
  assert.ok(
    problemLines(r.stderr).some((l) => /restate/.test(l)),
    `a line naming restate:\n${r.stderr}`,
  );
  assert.equal(await digestLines(downstream, DAYS), before);
});

t('a plan without level2 access: that interface stops with a line saying why (exit 1); the index days are still mirrored', async () => {
  const key = addAccount(data.dataDir, 'standard').key;
  const downstream = fresh();
  const r = await mirror(upstreamArgs(up, key), downstream);
  assert.is(r.code, 1, r.stderr);
  assert.not.match(r.stderr, /^ {4}at /m);
  assert.ok(
    problemLines(r.stderr).some((l) => /plan/.test(l)),
    `a line saying why:\n${r.stderr}`,
  );
  assert.equal(
    await digestLines(downstream, DAYS),
    upDigests.filter((l) => l.split('  ')[3].startsWith('index/')),
  );
});

t.run();
