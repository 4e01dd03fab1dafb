import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { postgresForTests } from './postgres.js';

const server = await postgresForTests('postgres harness tests');

const harness = suite('postgres test harness');

// Unique per run: an external TICKVAULT_TEST_PG_URL server keeps databases between runs.
const namedDb = `tv_named_${process.pid}_${Date.now().toString(36)}`;

/** Connects, runs one query, disconnects; returns the rows. */
async function query(url: string, sql: string): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.query(sql)).rows;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function failure(p: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await p;
  } catch (e) {
    return e as Error & { code?: string };
  }
  throw new Error('expected a failure, but it succeeded');
}

/**
 * Whether `pid` is still a running process. pg_ctl daemonizes the postmaster, so its parent is
 * pid 1, and once it exits it stays a zombie until pid 1 reaps it (about a second in our
 * container; never, where pid 1 does not reap): a zombie counts as gone. pg_ctl stop returns
 * once postmaster.pid is removed, a moment before the process exits, hence the short wait.
 */
async function goneWithin(pid: number, ms = 5000): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (!alive(pid)) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // /proc/PID/stat: "pid (comm) STATE ..."; comm may hold spaces, so read after the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc (not Linux): kill(pid, 0) succeeding is all we know
  }
}

if (server) {
  harness.after(async () => {
    if (!server.external) await server.stop();
  });

  harness('SELECT 1 on the cluster', async () => {
    assert.match(server.url, /^postgres:\/\//);
    assert.equal(await query(server.url, 'SELECT 1 AS one'), [{ one: 1 }]);
  });

  harness('createDatabase: each call is a fresh, isolated database', async () => {
    const a = await server.createDatabase();
    const b = await server.createDatabase();
    assert.is.not(a, b);
    assert.match(a, /\/tv_[0-9a-f]{12}$/);
    await query(a, 'CREATE TABLE only_in_a (x int)');
    await query(a, 'INSERT INTO only_in_a VALUES (1)');
    assert.equal(await query(a, 'SELECT x FROM only_in_a'), [{ x: 1 }]);
    const e = await failure(query(b, 'SELECT x FROM only_in_a'));
    assert.is(e.code, '42P01', `undefined_table, got ${e.message}`);
    const named = await server.createDatabase(namedDb);
    assert.ok(named.endsWith(`/${namedDb}`), named);
    assert.equal(await query(named, 'SELECT current_database() AS db'), [{ db: namedDb }]);
  });

  if (!server.external) {
    harness('stop: the postmaster is gone and connections are refused; stop again is a no-op', async () => {
      const pid = server.pid();
      assert.ok(alive(pid), 'postmaster running before stop');
      await server.stop();
      assert.ok(await goneWithin(pid), `postmaster ${pid} still alive after stop()`);
      assert.throws(() => server.pid(), /not running/);
      const e = await failure(query(server.url, 'SELECT 1'));
      assert.match(`${e.code} ${e.message}`, /ECONNREFUSED|connect/i);
      await server.stop();
    });

    harness('start: same port and data, queries work again', async () => {
      await server.start();
      assert.ok(alive(server.pid()));
      assert.equal(await query(server.url, 'SELECT 1 AS one'), [{ one: 1 }]);
      assert.equal(await query(server.url, `SELECT datname FROM pg_database WHERE datname = '${namedDb}'`), [{ datname: namedDb }], 'data kept');
    });

    harness('restart: an open connection is cut, new ones work, on a new postmaster', async () => {
      const before = server.pid();
      const held = new pg.Client({ connectionString: server.url });
      let emitted: Error | undefined;
      held.on('error', (e) => (emitted = e));
      await held.connect();
      try {
        await held.query('SELECT 1');
        await server.restart();
        const after = server.pid();
        assert.is.not(after, before);
        assert.ok(await goneWithin(before), 'old postmaster gone');
        const e = emitted ?? (await failure(held.query('SELECT 1')));
        assert.ok(e instanceof Error, 'the held connection fails');
        assert.equal(await query(server.url, 'SELECT 2 AS two'), [{ two: 2 }]);
      } finally {
        await held.end().catch(() => undefined);
      }
    });
  }
}

harness.run();
