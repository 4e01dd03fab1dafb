/**
 * Everything server processes share (api-contract: Plans and limits): accounts and hashed keys, the per-second
 * windows, the per-Beijing-day counters (trial calls, Parquet files), the one-request-in-
 * progress slots with their leases, and the cursor signing key.
 *
 * Two implementations: SQLite in the data directory (one host; the embedded default) and
 * PostgreSQL (`--state-url postgres://…`; every site of one service). The server above this
 * interface never knows which it has. Rules an implementation must keep, under any number of
 * concurrent processes:
 *   - every admission (rate window, daily count, slot) is one atomic round trip, so two
 *     processes can never both take the last unit;
 *   - lease and window time come from the store's own clock (the database's, for PostgreSQL:
 *     sites' clocks may disagree by seconds), so every process agrees on expiry;
 *   - a daily counter belongs to the Beijing day of the service clock, read against the
 *     store's clock (the service clock may be pinned, e.g. TICKVAULT_NOW in tests).
 * A store that cannot reach its database throws StateUnavailableError (the request becomes a
 * 503 with Retry-After), never another error, and recovers by itself when it returns. A write
 * refused by a full or read-only disk (service.db) is its subclass StateDiskError.
 */
import { TickvaultBaseError } from '../../shared/retry/baseError.js';
import type { Account, AccountListing } from './accounts.js';
import type { ApiName, PlanName } from './plans.js';

export type DailyKind = 'calls' | 'parquet';

export type Admission = { readonly ok: true; readonly count: number } | { readonly ok: false; readonly retryAfterSec: number };

export interface StateStore {
  readonly kind: 'sqlite' | 'postgres';
  /** Where the state lives, for logs: a file path or a URL without its password. */
  readonly where: string;
  /** Statements sent so far: the bench counts round trips per admission with it. */
  readonly roundTrips: number;

  /** The account of a valid (known, unrevoked) key, else null. Looked up on every request, so a revocation holds at once everywhere. */
  authenticate(key: string): Promise<Account | null>;
  /** One request against the account's per-second budget (rejected requests count too). */
  hitRate(accountId: number, perSecond: number): Promise<Admission>;
  /**
   * Takes one unit of a daily allowance for the Beijing day of `serviceNowMs`; `limit` 0 is
   * always exhausted. Retry-After points at the next Beijing midnight.
   */
  takeDaily(accountId: number, api: ApiName, kind: DailyKind, limit: number, serviceNowMs: number): Promise<Admission>;
  /** Today's count (the console, `accounts list`, tests). */
  daily(accountId: number, api: ApiName, kind: DailyKind, serviceNowMs: number): Promise<number>;
  /** Takes the (account, api) slot for `holder` unless another holder's lease is still live. */
  acquireSlot(accountId: number, api: string, holder: string, leaseMs: number): Promise<boolean>;
  /** Extends a held lease; false when it was lost (lapsed and taken by another holder). */
  renewSlot(accountId: number, api: string, holder: string, leaseMs: number): Promise<boolean>;
  releaseSlot(accountId: number, api: string, holder: string): Promise<void>;
  /** Whether a live lease holds the slot now. */
  slotHeld(accountId: number, api: string): Promise<boolean>;
  /** The level-2 cursor signing key, created once and then the same for every process. */
  cursorKey(): Promise<Buffer>;
  /** Drops daily counts of days before the Beijing day of `serviceNowMs`. */
  purgeBefore(serviceNowMs: number): Promise<void>;

  createAccount(plan: PlanName, nowMs: number, key?: string): Promise<{ id: number; key: string }>;
  /** Another key for an existing account (keys share the account's limits); null when no such account. */
  addKey(accountId: number, nowMs: number, key?: string): Promise<string | null>;
  /** Revokes a key; false when no such valid key exists. */
  revokeKey(key: string, nowMs: number): Promise<boolean>;
  listAccounts(): Promise<AccountListing[]>;

  /** Throws StateUnavailableError when the state cannot be reached now (/healthz). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The shared state cannot be reached (database down, network cut, statement timed out).
 * Retriable: the same request may succeed in a few seconds; nothing was counted.
 */
export class StateUnavailableError extends TickvaultBaseError {
  override name = 'StateUnavailableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, { retriable: true, cause: options?.cause });
  }
}

/** Seconds a client should wait after StateUnavailableError (the pool reconnects within it). */
export const STATE_RETRY_AFTER_SEC = 2;

/**
 * A state write the disk refused (full, over quota, read-only): the store can still be read,
 * but nothing can be counted, so nothing that must count is served (api-contract 72). Reads
 * see the same class, so /healthz and the answers agree on what is wrong.
 */
export class StateDiskError extends StateUnavailableError {
  override name = 'StateDiskError';
  constructor(
    /** What a user reads: `no space left on device`, `read-only file system`… */
    readonly diskCause: string,
    /** The state file the write was for. */
    readonly path: string,
    options?: { cause?: unknown },
  ) {
    super(`${diskCause}: the server cannot write its accounts and limits database ${path}`, options);
  }
}

/**
 * Seconds a client should wait after StateDiskError: space comes back by an operator's hand,
 * not in the two seconds a reconnect takes, so clients are asked to come back less often.
 */
export const STATE_DISK_RETRY_AFTER_SEC = 10;
