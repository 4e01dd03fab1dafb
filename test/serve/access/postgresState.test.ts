/**
 * The PostgreSQL store on a real server: the shared contract (two stores on one database
 * stand for two sites), then what only a network database does: unreachable at start, lost
 * and back while serving, a statement stuck behind a lock, and schema versions.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { PostgresStateStore } from '../../../serve/access/postgresState.js';
import { POSTGRES_SCHEMA_VERSION } from '../../../shared/postgres/schema.js';
import { StateUnavailableError } from '../../../serve/access/stateStore.js';
import { postgresForTests } from '../../support/postgres.js';
import { stateContract } from './stateContract.js';

const cluster = await postgresForTests('PostgreSQL state store tests');

if (cluster) {
  stateContract('PostgreSQL', async () => {
    const url = await cluster.createDatabase();
    const [a, b] = await Promise.all([PostgresStateStore.open({ url }), PostgresStateStore.open({ url })]);
    return { a, b, close: async () => void (await Promise.all([a.close(), b.close()])) };
  });

  const t = suite('PostgreSQL state store: faults and schema');
  t.after(async () => {
    await cluster.stop();
  });

  t('unreachable at start: StateUnavailableError within seconds, naming the server and not the password', async () => {
    const started = Date.now();
    try {
      await PostgresStateStore.open({ url: 'postgres://tv:secret-pw@127.0.0.1:1/tickvault', connectTimeoutMs: 1000 });
      assert.unreachable('must not open');
    } catch (e) {
      assert.instance(e, StateUnavailableError);
      const msg = (e as Error).message;
      assert.match(msg, /127\.0\.0\.1:1/);
      assert.match(msg, /ECONNREFUSED/);
      assert.not.match(msg, /secret-pw/);
    }
    assert.ok(Date.now() - started < 5000);
  });

  t('schema: created once under concurrent starts, versioned, a newer database refused', async () => {
    const url = await cluster.createDatabase();
    const stores = await Promise.all(Array.from({ length: 4 }, () => PostgresStateStore.open({ url })));
    await Promise.all(stores.map((s) => s.close()));
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const v = await c.query('SELECT version FROM tickvault.schema_version');
      assert.equal(v.rows, [{ version: POSTGRES_SCHEMA_VERSION }]);
      await c.query('UPDATE tickvault.schema_version SET version = version + 1');
    } finally {
      await c.end();
    }
    try {
      await PostgresStateStore.open({ url });
      assert.unreachable('a newer schema must be refused');
    } catch (e) {
      const v = POSTGRES_SCHEMA_VERSION;
      assert.ok((e as Error).message.includes(`schema version ${v + 1}, newer than this tickvault knows (${v})`), (e as Error).message);
    }
  });

  t('a statement stuck behind a lock fails as unavailable after the statement timeout, never hangs', async () => {
    const url = await cluster.createDatabase();
    const store = await PostgresStateStore.open({ url, statementTimeoutMs: 500 });
    const locker = new pg.Client({ connectionString: url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE tickvault.slots IN ACCESS EXCLUSIVE MODE');
      const started = Date.now();
      try {
        await store.acquireSlot(1, 'level2_quote_history', 'h', 30_000);
        assert.unreachable('must time out');
      } catch (e) {
        assert.instance(e, StateUnavailableError);
      }
      const took = Date.now() - started;
      assert.ok(took >= 400 && took < 3000, `took ${took} ms`);
      await locker.query('ROLLBACK');
      assert.ok(await store.acquireSlot(1, 'level2_quote_history', 'h', 30_000), 'nothing was taken by the timed-out statement');
    } finally {
      await locker.end();
      await store.close();
    }
  });

  t('database lost while serving: calls fail fast as unavailable, then recover by themselves with exact counts', async () => {
    const url = await cluster.createDatabase();
    const store = await PostgresStateStore.open({ url, connectTimeoutMs: 1000 });
    const errors: unknown[] = [];
    const day = Date.parse('2025-01-06T04:00:00Z');
    try {
      for (let i = 0; i < 5; i++) assert.ok((await store.takeDaily(1, 'level2_quote_history', 'parquet', 30, day)).ok);
      await cluster.stop();
      for (const call of [() => store.ping(), () => store.takeDaily(1, 'level2_quote_history', 'parquet', 30, day), () => store.authenticate('tv_x')]) {
        const started = Date.now();
        try {
          await call();
          assert.unreachable('must fail while the database is down');
        } catch (e) {
          errors.push(e);
          assert.instance(e, StateUnavailableError, String(e));
        }
        assert.ok(Date.now() - started < 4000, `failed after ${Date.now() - started} ms`);
      }
      await cluster.start();
      // The pool reconnects on its own: no reopen, no restart of the process.
      await store.ping();
      assert.equal(await store.takeDaily(1, 'level2_quote_history', 'parquet', 30, day), { ok: true, count: 6 }, 'no unit lost or taken twice');
    } finally {
      await cluster.start();
      await store.close();
    }
    assert.is(errors.length, 3);
  });

  t.run();
}
