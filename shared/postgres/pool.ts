/**
 * Connections to the PostgreSQL database that several sites share (`--state-url`): the
 * server's accounts and limits, ingest's seal cuts. One pool per process, with connect and
 * statement limits so that a lost database turns into an error within seconds, never a hang.
 */
import pg from 'pg';

export interface PoolOptions {
  readonly url: string;
  /** Connections per process; each request holds one only for a statement. */
  readonly poolSize?: number;
  readonly connectTimeoutMs?: number;
  readonly statementTimeoutMs?: number;
  /** An idle connection the database closed (restart, failover). */
  readonly onPoolError?: (e: unknown) => void;
}

export function createPool(opts: PoolOptions): pg.Pool {
  const statementTimeoutMs = opts.statementTimeoutMs ?? 3000;
  const pool = new pg.Pool({
    connectionString: opts.url,
    max: opts.poolSize ?? 16,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 3000,
    // Server side: a statement stuck behind a lock is cancelled. Client side: a database
    // that stopped answering (network cut) fails the query a little later.
    statement_timeout: statementTimeoutMs,
    query_timeout: statementTimeoutMs + 1000,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    application_name: 'tickvault',
  });
  // Unhandled, this 'error' would end the process; the pool drops the connection and
  // connects anew when next needed.
  pool.on('error', (e) => opts.onPoolError?.(e));
  return pool;
}

/**
 * Whether an error means "the database cannot answer now" rather than "this statement is
 * wrong". SQLSTATE classes 08 (connection), 53 (resources), 57 (operator intervention:
 * shutdown, statement timeout) and 58 (system) are; so are refused or reset sockets, pool
 * connect timeouts and "Connection terminated". A bug (TypeError, a SQL syntax error) is not.
 */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
const CLIENT_FAULTS = /connection terminated|timeout exceeded|query read timeout|connection error|not queryable|connection ended/i;

export function isUnavailable(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  const code = (e as { code?: unknown }).code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return ['08', '53', '57', '58'].includes(code.slice(0, 2));
  if (typeof code === 'string' && SOCKET_CODES.has(code)) return true;
  if (e instanceof AggregateError) return e.errors.some(isUnavailable);
  return CLIENT_FAULTS.test(e.message);
}

/**
 * A database error for a log line, as `{ err: databaseErrorForLog(e) }`: type, code, the one-line
 * message and the stack. Not the error itself: pg's errors can carry their client, with its
 * connection parameters, as a property, which pino's serialiser would write out whole.
 */
export function databaseErrorForLog(e: unknown): { readonly type: string; readonly code?: string; readonly message: string; readonly stack?: string } {
  const err = e as { name?: unknown; code?: unknown; stack?: unknown } | null;
  return {
    type: typeof err?.name === 'string' ? err.name : typeof e,
    ...(typeof err?.code === 'string' ? { code: err.code } : {}),
    message: describePgError(e),
    ...(typeof err?.stack === 'string' ? { stack: err.stack } : {}),
  };
}

/** A driver error as one line: code and message (never its connection object). */
export function describePgError(e: unknown): string {
  const err = e as { code?: string; message?: string; errors?: { message?: string }[] };
  // Node reports a refused dual-stack connect as an AggregateError with an empty message.
  const msg = err.message || err.errors?.map((x) => x.message).join('; ') || String(e);
  return err.code && !msg.includes(err.code) ? `${err.code} ${msg}` : msg;
}

/** The URL without its password, for logs and messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://…';
  }
}
