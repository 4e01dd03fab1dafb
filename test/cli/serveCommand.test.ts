import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { closeSync, existsSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { exited, runCli, startCli, waitForLine } from '../support/cli.js';
import { tempDir } from '../support/tempDir.js';
import Database from 'better-sqlite3';
import { addAccount, postApi, startServer } from '../support/server.js';

const root = tempDir('tickvault-serve-cli-');

/** Exit `code`, nothing on stdout, one line on stderr without a stack trace; returns the line. */
function oneLineFailure(r: { code: number | null; stdout: string; stderr: string }, code: number): string {
  assert.is(r.code, code, r.stderr);
  assert.is(r.stdout, '');
  const line = r.stderr.replace(/\n$/, '');
  assert.not.ok(line.includes('\n'), `one line, got:\n${r.stderr}`);
  assert.not.match(line, /\bat .*\.js:\d+|EADDRINUSE/);
  return line;
}

const serve = suite('tickvault serve: refusals and the calendar');

serve('a missing --data-dir is refused with one line (exit 2) and not created', async () => {
  const missing = join(root, 'does', 'not', 'exist');
  const r = await runCli(['serve', '--port', '0', '--data-dir', missing]);
  assert.match(oneLineFailure(r, 2), /data directory not found: .*does\/not\/exist/);
  assert.not.ok(existsSync(join(root, 'does')));
});

serve('a busy port: one line naming the port and --port (exit 1)', async () => {
  const data = join(root, 'data');
  mkdirSync(data);
  const busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  const port = (busy.address() as AddressInfo).port;
  try {
    const r = await runCli(['serve', '--port', String(port), '--data-dir', data]);
    const line = oneLineFailure(r, 1);
    assert.match(line, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use.*--port`));
  } finally {
    busy.close();
  }
});

serve('the known range: a warning at start near its end, and a gauge on /metrics (the import included)', async () => {
  const data = join(root, 'with-import');
  mkdirSync(data);
  const file = join(root, 'fixture-2027.txt'); // a fixture, not the published 2027 calendar
  writeFileSync(file, '20270101\n');
  assert.is((await runCli(['calendar', 'import', file, '--data-dir', data])).code, 0);
  const child = startCli(['serve', '--port', '0', '--data-dir', data], { env: { TICKVAULT_NOW: '2027-12-15T10:00:00+08:00' } });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  try {
    const url = (await waitForLine(child, /^listening on http/)).replace('listening on ', '').trim();
    assert.match(stderr, /known only through 20271231 \(16 days left\)/);
    const text = await (await fetch(`${url}/metrics`)).text();
    const m = /^tickvault_calendar_known_range_end_timestamp_seconds (\d+)$/m.exec(text);
    assert.ok(m, 'the gauge is exposed');
    assert.is(Number(m[1]) * 1000, Date.parse('2028-01-01T00:00:00+08:00'));
  } finally {
    child.kill('SIGTERM');
    await exited(child);
  }
});

serve('a --state-url that is not a PostgreSQL URL is refused with one line (exit 2), from the flag or the environment', async () => {
  const data = join(root, 'state-url');
  mkdirSync(data);
  const flag = await runCli(['serve', '--port', '0', '--data-dir', data, '--state-url', 'mysql://db/x']);
  assert.match(oneLineFailure(flag, 2), /--state-url must be a postgres:\/\/ or postgresql:\/\/ URL .*got "mysql:"/);
  const env = await runCli(['accounts', 'list', '--data-dir', data], { env: { TICKVAULT_STATE_URL: 'not a url' } });
  assert.match(oneLineFailure(env, 2), /TICKVAULT_STATE_URL must be a postgres:\/\/user@host:port\/database URL/);
});

serve('a catalog.db without its tables yet (the ingestor creating it): the server sets them up, comes up and answers', async () => {
  // The two states a server can find while the ingestor creates catalog.db: the file just
  // created (empty), and switched to WAL before its tables. Each once failed the server with
  // `no such table`.
  const states: Record<string, (path: string) => void> = {
    'an empty file': (path) => closeSync(openSync(path, 'w')),
    'a WAL database without tables': (path) => {
      const db = new Database(path);
      db.pragma('journal_mode = WAL');
      db.close();
    },
  };
  for (const [state, make] of Object.entries(states)) {
    const data = join(root, `catalog-${state.replace(/\W+/g, '-')}`);
    mkdirSync(data);
    const catalogDb = join(data, 'catalog.db');
    make(catalogDb);
    const tables = () => {
      const db = new Database(catalogDb, { readonly: true });
      try {
        return (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]).sort();
      } finally {
        db.close();
      }
    };
    assert.equal(tables(), [], `${state}: no table before the server`);
    const { key } = addAccount(data, 'trial');
    const server = await startServer(data); // resolves once /healthz answers 200
    try {
      const r = await postApi(server, { apiname: 'level2_quote_history', apikey: key, params: { symbol: '600000.SH', tradedate: '20250103' } });
      assert.is(r.status, 200, `${state}: ${r.text}`);
      assert.match(String(r.json.message), /^no data/, `${state}: a trading day not stored is no data`);
      assert.ok(tables().includes('sealed_days'), `${state}: the catalog's tables are there now`);
      assert.not.match(server.logs(), /no such table/);
    } finally {
      await server.stop();
    }
  }
});

serve.run();
