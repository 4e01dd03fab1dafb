/**
 * `tickvault demo` end to end: from an empty data directory to a serving demo, then the
 * printed curl commands run as printed (with curl when the machine has it, else the same
 * request over node:http), then a second start that reuses data and key.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { exited, startCli, waitForLine } from '../support/cli.js';
import { httpRequest, type HttpResponse } from '../support/server.js';
import { tempDir } from '../support/tempDir.js';
import { SCHEMAS } from '../../shared/schema.js';

const t = suite('demo command');

const NOW = '2025-03-03T18:00:00+08:00';
const HAS_CURL = spawnSync('curl', ['--version'], { stdio: 'ignore' }).status === 0;

interface Demo {
  readonly child: ChildProcess;
  readonly stdout: () => string;
  readonly stderr: () => string;
  readonly url: string;
  readonly key: string;
  readonly curls: readonly string[];
}

const work = tempDir('tickvault-demo-test-');
const dataDir = join(work, 'data');

async function startDemo(): Promise<Demo> {
  const child = startCli(['demo', '--port', '0', '--data-dir', dataDir, '--stocks', '3', '--indexes', '2', '--days', '2'], {
    env: { TICKVAULT_NOW: NOW },
    cwd: work,
  });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  child.stdin!.end();
  // The last banner line: everything before it (key, curl commands) has been written.
  await waitForLine(child, /^More: /, 80_000);
  const url = /^tickvault demo ready: (\S+)$/m.exec(out)?.[1];
  const key = /^API key \(flagship plan, kept in .*demo\.key\): (\S+)$/m.exec(out)?.[1];
  assert.ok(url && key, `banner incomplete:\n${out}`);
  const curls = out.split('\n').filter((l) => l.startsWith('curl '));
  return { child, stdout: () => out, stderr: () => err, url, key, curls };
}

async function stop(d: Demo): Promise<void> {
  d.child.kill('SIGTERM');
  const { code, signal } = await exited(d.child);
  assert.is(code, 0, `demo stops cleanly on SIGTERM (exit ${code}, signal ${signal})\n${d.stderr()}`);
}

/** Runs a printed curl command: by the shell with curl, or parsed and sent over node:http. */
async function runCurl(line: string): Promise<{ body: Buffer; file?: string }> {
  const output = / -o (\S+)$/.exec(line)?.[1];
  if (HAS_CURL) {
    const child = spawn('sh', ['-c', line], { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout!.on('data', (c: Buffer) => chunks.push(c));
    const { code } = await exited(child);
    assert.is(code, 0, `curl failed: ${line}`);
    return { body: Buffer.concat(chunks), file: output && join(work, output) };
  }
  const m = /^curl -sS (\S+) -H 'Content-Type: application\/json' -d '(.*)'(?: -o \S+)?$/.exec(line);
  assert.ok(m, `unexpected curl line: ${line}`);
  const res: HttpResponse = await httpRequest(m[1], { body: m[2].replaceAll("'\\''", "'"), headers: { 'content-type': 'application/json' } });
  // Without curl there is no -o file: the body is the download.
  return { body: res.body };
}

function countRows(table: string, db: string): number {
  const conn = new Database(db, { readonly: true });
  try {
    return (conn.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  } finally {
    conn.close();
  }
}

let firstKey = '';
let firstFiles = 0;

t('first start: generates, replays, creates the key, serves, and the four curl commands answer', async () => {
  const demo = await startDemo();
  try {
    assert.match(demo.stdout(), /holds no sealed data; generating 2 trading days of 3 stocks and 2 indexes/);
    const keyFile = join(dataDir, 'demo.key');
    assert.is(readFileSync(keyFile, 'utf8').trim(), demo.key);
    assert.is(statSync(keyFile).mode & 0o777, 0o600, 'demo.key is readable by its owner only');
    assert.is(demo.curls.length, 4, demo.stdout());

    // 1. a level-2 page
    const page = JSON.parse((await runCurl(demo.curls[0])).body.toString('utf8')) as {
      code: number;
      data: { fields: string[]; items: unknown[][]; tradedate: string; has_more: boolean; next_cursor: string | null };
    };
    assert.is(page.code, 200);
    assert.is(page.data.tradedate, '20250303');
    assert.is(page.data.items.length, 3);
    assert.equal(page.data.fields, SCHEMAS.level2.fieldNames);
    assert.is(page.data.items[0][0], '600000.SH');
    assert.ok(page.data.has_more && page.data.next_cursor !== null);

    // 2. the Parquet download: the stored file, byte for byte
    const stored = readFileSync(join(dataDir, 'level2', 'date=20250303', '600000.SH.parquet'));
    const dl = await runCurl(demo.curls[1]);
    const got = dl.file ? readFileSync(dl.file) : dl.body;
    assert.ok(got.equals(stored), 'downloaded file equals the sealed file');
    assert.is(got.subarray(0, 4).toString('latin1'), 'PAR1');

    // 3. the tick_history boundary: one row per index, each strictly before 10:00
    const boundary = JSON.parse((await runCurl(demo.curls[2])).body.toString('utf8')) as {
      code: number;
      data: { fields: string[]; items: unknown[][] };
    };
    assert.is(boundary.code, 200);
    assert.is(boundary.data.items.length, 2);
    const timeAt = boundary.data.fields.indexOf('time');
    for (const row of boundary.data.items) {
      const time = String(row[timeAt]);
      assert.ok(time.startsWith('2025-03-03 09:') && time < '2025-03-03 10:00:00.000', time);
    }
    // 4. the first trades of the day: the day's 09:25 call auction comes first, bs_flag N
    const trades = JSON.parse((await runCurl(demo.curls[3])).body.toString('utf8')) as {
      code: number;
      data: { fields: string[]; items: unknown[][]; tradedate: string };
    };
    assert.is(trades.code, 200);
    assert.is(trades.data.tradedate, '20250303');
    assert.equal(trades.data.fields, SCHEMAS.trade.fieldNames);
    assert.is(trades.data.items.length, 5);
    assert.equal(
      trades.data.items.map((r) => [r[0], r[2], r[7]]),
      Array(5).fill(['600000.SH', '092500000', 'N']),
    );

    // 5. the console's address, printed beside the curls, serves the page; the demo key signs in there.
    const consoleLine = demo
      .stdout()
      .split('\n')
      .find((l) => l.startsWith('console: '));
    assert.ok(consoleLine, demo.stdout());
    const consoleUrl = consoleLine.split(' ')[1];
    assert.is(consoleUrl, `${demo.url}/console`);
    const pageRes = await fetch(consoleUrl);
    assert.is(pageRes.status, 200);
    assert.match(await pageRes.text(), /<title>tickvault console<\/title>/);
    const acct = await fetch(`${demo.url}/account`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apikey: demo.key }),
    });
    assert.is(((await acct.json()) as { data: { plan: string } }).data.plan, 'flagship');
    firstKey = demo.key;
    firstFiles = countRows('files', join(dataDir, 'catalog.db'));
    // 2 days × (3 stocks + 2 indexes), and the latest day's trades and orders of the 3 stocks
    assert.ok(firstFiles === 2 * (3 + 2) + 2 * 3, `16 sealed files, got ${firstFiles}`);
    const tickDays = new Database(join(dataDir, 'catalog.db'), { readonly: true });
    try {
      const rows = tickDays.prepare("SELECT dataset, tradedate, count(*) AS n FROM files WHERE dataset IN ('trade', 'order') GROUP BY 1, 2 ORDER BY 1").all();
      assert.equal(rows, [
        { dataset: 'order', tradedate: '20250303', n: 3 },
        { dataset: 'trade', tradedate: '20250303', n: 3 },
      ]);
    } finally {
      tickDays.close();
    }

    // The README's configuration table: demo (so npm start) logs at warn unless asked, so the
    // terminal shows the banner, not a JSON line per request or stage.
    const logLines = demo
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('{'));
    const below = logLines.filter((l) => (JSON.parse(l) as { level: number }).level < 40);
    assert.equal(below, [], 'no log line below warn');
  } finally {
    await stop(demo);
  }
});

t('second start: reuses the data and the demo account', async () => {
  assert.ok(firstKey !== '', 'needs the first test');
  const demo = await startDemo();
  try {
    assert.match(demo.stdout(), new RegExp(`^demo: reusing ${firstFiles} sealed files in `, 'm'));
    assert.not.match(demo.stdout(), /generating/);
    assert.is(demo.key, firstKey);
    assert.is(countRows('accounts', join(dataDir, 'service.db')), 1);
    assert.is(countRows('files', join(dataDir, 'catalog.db')), firstFiles);
    const page = JSON.parse((await runCurl(demo.curls[0])).body.toString('utf8')) as { code: number };
    assert.is(page.code, 200);
  } finally {
    await stop(demo);
  }
});

t('a revoked or lost demo key is replaced by a new flagship account', async () => {
  const conn = new Database(join(dataDir, 'service.db'));
  conn.prepare('UPDATE api_keys SET revoked_at_ms = 1').run();
  conn.close();
  const demo = await startDemo();
  try {
    assert.is.not(demo.key, firstKey);
    assert.is(readFileSync(join(dataDir, 'demo.key'), 'utf8').trim(), demo.key);
    assert.ok(existsSync(join(dataDir, 'demo.key')));
    assert.is(countRows('accounts', join(dataDir, 'service.db')), 2);
  } finally {
    await stop(demo);
  }
});

t('a bad option fails at once with a one-line reason', async () => {
  const child = startCli(['demo', '--port', 'x', '--data-dir', dataDir], { env: { TICKVAULT_NOW: NOW } });
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  child.stdin!.end();
  const { code } = await exited(child);
  assert.is(code, 2);
  assert.match(err, /--port must be a port number/);
});

t.run();
