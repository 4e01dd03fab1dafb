import Database from 'better-sqlite3';

export type Db = Database.Database;

/**
 * Opens a SQLite file in WAL mode so that many readers (server processes) proceed while one
 * writer commits; `synchronous=FULL` because an acknowledged commit must survive power loss
 * (Kafka offsets are committed only after it).
 */
export function openDb(path: string, opts: { readonly?: boolean; schema?: string } = {}): Db {
  const db = new Database(path, { readonly: opts.readonly ?? false, fileMustExist: opts.readonly ?? false });
  db.pragma('busy_timeout = 10000');
  if (!opts.readonly) {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    if (opts.schema) db.exec(opts.schema);
  }
  return db;
}
