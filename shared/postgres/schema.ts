/**
 * The PostgreSQL schema of what several sites share (`--state-url`): the servers' accounts and
 * limits and ingest's seal cuts, as numbered migrations in the `tickvault` schema (so it can
 * share a database with other things). Every process runs
 * `migratePostgres` at start; an advisory lock makes concurrent starts on several sites apply
 * each migration once, and a database newer than this program is refused rather than
 * misread. The state tables a migration makes are held to their one definition
 * (serve/access/stateTables.ts, which service.db is rendered from) by
 * test/serve/access/stateTables.test.ts: a new migration changes that definition too.
 */
import type pg from 'pg';

const MIGRATIONS: readonly string[] = [
  // 1: accounts, keys, counters, slots, secrets.
  `CREATE TABLE tickvault.accounts (
     id bigserial PRIMARY KEY,
     plan text NOT NULL,
     created_at_ms bigint NOT NULL
   );
   CREATE TABLE tickvault.api_keys (
     key_hash text PRIMARY KEY,            -- hex sha256 of the key; the key itself is never stored
     account_id bigint NOT NULL REFERENCES tickvault.accounts(id),
     hint text NOT NULL,
     created_at_ms bigint NOT NULL,
     revoked_at_ms bigint                  -- null while the key is valid
   );
   CREATE INDEX api_keys_account ON tickvault.api_keys(account_id);
   CREATE TABLE tickvault.rate_windows (
     account_id bigint PRIMARY KEY,        -- one fixed one-second window per account
     second bigint NOT NULL,               -- epoch second of the window, database clock
     n integer NOT NULL
   );
   CREATE TABLE tickvault.daily_counts (
     account_id bigint NOT NULL,
     apiname text NOT NULL,
     kind text NOT NULL,                   -- 'calls' (trial) or 'parquet'
     day text NOT NULL,                    -- Beijing date YYYYMMDD
     n integer NOT NULL,
     PRIMARY KEY (account_id, apiname, kind, day)
   );
   CREATE TABLE tickvault.slots (
     account_id bigint NOT NULL,
     apiname text NOT NULL,
     holder text NOT NULL,                 -- unique per request: process + sequence
     expires_at timestamptz NOT NULL,      -- lease end, database clock; renewed while the holder works
     PRIMARY KEY (account_id, apiname)
   );
   CREATE TABLE tickvault.secrets (
     name text PRIMARY KEY,
     value bytea NOT NULL
   );`,
  // 2: ingest's seal cuts, one per topic-partition and day, agreed by every site.
  `CREATE TABLE tickvault.seal_cuts (
     topic text NOT NULL,
     partition integer NOT NULL,
     tradedate text NOT NULL,              -- YYYYMMDD
     dataset text NOT NULL,
     cut_offset bigint NOT NULL,           -- messages of the day below it are in the files; at or above, late
     created_by text NOT NULL,             -- the consumer group (site) whose seal set it
     created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
     PRIMARY KEY (topic, partition, tradedate)
   );`,
];

export const POSTGRES_SCHEMA_VERSION = MIGRATIONS.length;

export async function migratePostgres(pool: pg.Pool): Promise<number> {
  const c = await pool.connect();
  try {
    await c.query('BEGIN');
    // Serialises concurrent starts; released at COMMIT.
    await c.query(`SELECT pg_advisory_xact_lock(hashtext('tickvault.schema'))`);
    await c.query('CREATE SCHEMA IF NOT EXISTS tickvault');
    await c.query('CREATE TABLE IF NOT EXISTS tickvault.schema_version (version integer NOT NULL)');
    const res = await c.query<{ version: number }>('SELECT version FROM tickvault.schema_version');
    const current = res.rows[0]?.version ?? 0;
    if (current > MIGRATIONS.length) {
      throw new Error(
        `the state database has schema version ${current}, newer than this tickvault knows (${MIGRATIONS.length}); upgrade tickvault on this site`,
      );
    }
    for (let v = current; v < MIGRATIONS.length; v++) await c.query(MIGRATIONS[v]);
    if (res.rows.length === 0) await c.query('INSERT INTO tickvault.schema_version (version) VALUES ($1)', [MIGRATIONS.length]);
    else await c.query('UPDATE tickvault.schema_version SET version = $1', [MIGRATIONS.length]);
    await c.query('COMMIT');
    return MIGRATIONS.length;
  } catch (e) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    c.release();
  }
}
