/**
 * service.db: accounts and keys (written by the `accounts` command), and the counters every
 * server process on the data directory shares: per-second windows, daily counts (trial calls,
 * Parquet files) and the one-request-in-progress slots. SQLite is the shared memory between
 * processes; each check is one atomic statement, so two servers can never both win.
 */
import { openDb, type Db } from '../../shared/sqlite.js';

export const SERVICE_SCHEMA = `
CREATE TABLE IF NOT EXISTS accounts (
  id INTEGER PRIMARY KEY,
  plan TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS api_keys (
  key_hash TEXT PRIMARY KEY,          -- hex sha256 of the key; the key itself is never stored
  account_id INTEGER NOT NULL REFERENCES accounts(id),
  hint TEXT NOT NULL,                 -- first characters of the key, for 'accounts list'
  created_at_ms INTEGER NOT NULL,
  revoked_at_ms INTEGER               -- null while the key is valid
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS api_keys_account ON api_keys(account_id);
CREATE TABLE IF NOT EXISTS rate_windows (
  account_id INTEGER PRIMARY KEY,     -- one fixed one-second window per account
  second INTEGER NOT NULL,            -- epoch second of the window
  n INTEGER NOT NULL                  -- requests seen in it
);
CREATE TABLE IF NOT EXISTS daily_counts (
  account_id INTEGER NOT NULL,
  apiname TEXT NOT NULL,
  kind TEXT NOT NULL,                 -- 'calls' (trial) or 'parquet'
  day TEXT NOT NULL,                  -- Beijing date YYYYMMDD
  n INTEGER NOT NULL,
  PRIMARY KEY (account_id, apiname, kind, day)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS slots (
  account_id INTEGER NOT NULL,
  apiname TEXT NOT NULL,
  holder TEXT NOT NULL,               -- unique per request: process id + sequence
  expires_at_ms INTEGER NOT NULL,     -- lease end (wall clock); renewed while the holder works
  PRIMARY KEY (account_id, apiname)
) WITHOUT ROWID;
`;

/**
 * Opens (creating if needed) service.db. The counters and slots are rewritten on every
 * request and are worthless after a power cut anyway, so the server connection trades
 * fsync-per-commit for speed (`synchronous=NORMAL` is still crash-safe in WAL mode: a commit
 * can be lost on power loss, never corrupted). The accounts command keeps FULL.
 */
/** Schema version of service.db (PRAGMA user_version). */
export const SERVICE_SCHEMA_VERSION = 1;

export function openServiceDb(path: string, opts: { durable?: boolean } = {}): Db {
  const db = openDb(path, { schema: SERVICE_SCHEMA, version: SERVICE_SCHEMA_VERSION });
  if (!opts.durable) db.pragma('synchronous = NORMAL');
  return db;
}
