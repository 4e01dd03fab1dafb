/**
 * service.db: accounts and keys (written by the `accounts` command), and the counters every
 * server process on the data directory shares: per-second windows, daily counts (trial calls,
 * Parquet files) and the one-request-in-progress slots. SQLite is the shared memory between
 * processes; each check is one atomic statement, so two servers can never both win.
 */
import { openDb, type Db } from '../../shared/sqlite.js';
import { sqliteStateSchema } from './stateTables.js';

/** The state tables as SQLite holds them (stateTables.ts, the one definition PostgreSQL is held to as well). */
export const SERVICE_SCHEMA = sqliteStateSchema();

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
