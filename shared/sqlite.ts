import Database from 'better-sqlite3';

export type Db = Database.Database;

/**
 * Opens a SQLite file in WAL mode so that many readers (server processes) proceed while one
 * writer commits; `synchronous=FULL` because an acknowledged commit must survive power loss
 * (Kafka offsets are committed only after it).
 */
export function openDb(path: string, opts: { readonly?: boolean; schema?: string; version?: number } = {}): Db {
  const db = new Database(path, { readonly: opts.readonly ?? false, fileMustExist: opts.readonly ?? false });
  db.pragma('busy_timeout = 10000');
  try {
    if (opts.version !== undefined) refuseNewer(db, path, opts.version);
    if (!opts.readonly) {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      if (opts.schema) db.exec(opts.schema);
      // Version 1 is the schema as first versioned; later versions will migrate up to here.
      if (opts.version !== undefined && (db.pragma('user_version', { simple: true }) as number) < opts.version) {
        db.pragma(`user_version = ${opts.version}`);
      }
    }
  } catch (e) {
    db.close();
    throw e;
  }
  return db;
}

/**
 * The schema version lives in `PRAGMA user_version` (0: created before versions were kept,
 * the same as version 1). A file written by a newer tickvault is refused rather than misread.
 */
function refuseNewer(db: Db, path: string, known: number): void {
  const found = db.pragma('user_version', { simple: true }) as number;
  if (found > known) throw new Error(`${path} has schema version ${found}, newer than this tickvault knows (${known}); upgrade tickvault`);
}
