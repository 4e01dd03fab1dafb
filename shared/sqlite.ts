import Database from 'better-sqlite3';
import { backoff, nextDelayMs } from './retry/backoff.js';

export type Db = Database.Database;

/**
 * Opens a SQLite file in WAL mode so that many readers (server processes) proceed while one
 * writer commits; `synchronous=FULL` because an acknowledged commit must survive power loss
 * (Kafka offsets are committed only after it).
 */
export function openDb(path: string, opts: { readonly?: boolean; schema?: string; version?: number } = {}): Db {
  const db = new Database(path, { readonly: opts.readonly ?? false, fileMustExist: opts.readonly ?? false });
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  try {
    if (opts.version !== undefined) refuseNewer(db, path, opts.version);
    if (!opts.readonly) retryWhileBusy(() => setUp(db, opts.schema, opts.version));
  } catch (e) {
    db.close();
    throw e;
  }
  return db;
}

const BUSY_TIMEOUT_MS = 10_000;
/** Waited on (never notified) for a synchronous pause between set-up attempts. */
const PAUSE = new Int32Array(new SharedArrayBuffer(4));
/**
 * Set-up retries: 1 ms doubling to 100 ms (the race is usually over within a few ms, and a
 * longer one costs at most 10 polls a second), until the busy timeout has passed.
 */
const SET_UP_RETRY = backoff({ firstDelayMs: 1, maxDelayMs: 100, giveUpAfterMs: BUSY_TIMEOUT_MS });

/**
 * WAL, durability and the schema: each step idempotent, so a busy one is simply run again. The
 * schema and its version in one transaction: a process opening the file meanwhile (a server
 * while the ingestor creates catalog.db) finds either none of its tables or all of them, never
 * some (each CREATE committed on its own once let a server fail on a table not there yet).
 * Deferred: over tables already there it only reads, so an open never waits for a writer.
 */
function setUp(db: Db, schema: string | undefined, version: number | undefined): void {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.transaction(() => {
    if (schema) db.exec(schema);
    // Version 1 is the schema as first versioned; later versions will migrate up to here.
    if (version !== undefined && (db.pragma('user_version', { simple: true }) as number) < version) {
      db.pragma(`user_version = ${version}`);
    }
  })();
}

/**
 * Processes opening a new file at once (two servers started together on a fresh data
 * directory) race to switch it to WAL and create its tables. SQLite answers the loser's
 * journal-mode switch with SQLITE_BUSY at once, without its busy handler (measured: 65 of 100
 * simultaneous opens of a new service.db by two processes failed so), so the setup is retried
 * here, backing off, for as long as the busy timeout allows.
 */
function retryWhileBusy(step: () => void): void {
  const startMs = Date.now();
  for (let attempt = 1; ; attempt++) {
    try {
      step();
      return;
    } catch (e) {
      // better-sqlite3's errors say no `retriable`: SQLITE_BUSY is the one code worth another
      // try, with its extended codes (SQLITE_BUSY_SNAPSHOT: the set-up read the schema, then
      // another process created the tables before it could).
      if (!String((e as { code?: string }).code).startsWith('SQLITE_BUSY')) throw e;
      const delayMs = nextDelayMs(SET_UP_RETRY, { attempt, elapsedMs: Date.now() - startMs });
      if (delayMs === null) throw e;
      // Opening is start-up work: a synchronous pause keeps openDb synchronous for its callers.
      Atomics.wait(PAUSE, 0, 0, delayMs);
    }
  }
}

/**
 * The schema version lives in `PRAGMA user_version` (0: created before versions were kept,
 * the same as version 1). A file written by a newer tickvault is refused rather than misread.
 */
function refuseNewer(db: Db, path: string, known: number): void {
  const found = db.pragma('user_version', { simple: true }) as number;
  if (found > known) throw new Error(`${path} has schema version ${found}, newer than this tickvault knows (${known}); upgrade tickvault`);
}
