/**
 * Accounts and their API keys. Keys are random 256-bit tokens, so one sha256 is enough to
 * store them safely (no dictionary to attack); user-chosen keys via --key get the same
 * treatment and are the operator's responsibility. Every request looks its key up again, so
 * a revocation takes effect at once in every server process.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../../shared/sqlite.js';
import { isPlanName, PLANS, type Plan, type PlanName } from './plans.js';

export interface Account {
  readonly id: number;
  readonly plan: Plan;
}

export interface AccountListing {
  readonly id: number;
  readonly plan: string;
  readonly createdAtMs: number;
  readonly keys: readonly { readonly hint: string; readonly createdAtMs: number; readonly revokedAtMs: number | null }[];
}

export const KEY_PREFIX = 'tv_';
const KEY_RE = /^[A-Za-z0-9_\-.~]{8,200}$/;

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function newKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

/** A --key value: 8 to 200 URL-safe characters, so it survives shells, JSON and logs. */
export function validKeyText(key: string): boolean {
  return KEY_RE.test(key);
}

/** The first characters of a key, for `accounts list`: enough to tell keys apart, never enough to use. */
export function hintOf(key: string): string {
  return key.length > 10 ? `${key.slice(0, 7)}…` : `${key.slice(0, 2)}…`;
}

export class AccountStore {
  private readonly byHash;
  private readonly insertAccount;
  private readonly insertKey;
  private readonly accountById;
  private readonly revokeStmt;
  private readonly listAccounts;
  private readonly listKeys;

  constructor(readonly db: Db) {
    this.byHash = db.prepare(
      `SELECT a.id AS id, a.plan AS plan FROM api_keys k JOIN accounts a ON a.id = k.account_id
       WHERE k.key_hash = ? AND k.revoked_at_ms IS NULL`,
    );
    this.insertAccount = db.prepare('INSERT INTO accounts (plan, created_at_ms) VALUES (?, ?)');
    this.insertKey = db.prepare('INSERT INTO api_keys (key_hash, account_id, hint, created_at_ms) VALUES (?, ?, ?, ?)');
    this.accountById = db.prepare('SELECT id, plan FROM accounts WHERE id = ?');
    this.revokeStmt = db.prepare('UPDATE api_keys SET revoked_at_ms = ? WHERE key_hash = ? AND revoked_at_ms IS NULL');
    this.listAccounts = db.prepare('SELECT id, plan, created_at_ms FROM accounts ORDER BY id');
    this.listKeys = db.prepare('SELECT hint, created_at_ms, revoked_at_ms FROM api_keys WHERE account_id = ? ORDER BY created_at_ms, hint');
  }

  /** The account of a valid (known, unrevoked) key, else null. */
  authenticate(key: string): Account | null {
    const row = this.byHash.get(hashKey(key)) as { id: number; plan: string } | undefined;
    if (!row || !isPlanName(row.plan)) return null;
    return { id: row.id, plan: PLANS[row.plan] };
  }

  /** Creates an account with one key; returns the key (generated unless given). */
  create(plan: PlanName, nowMs: number, key: string = newKey()): { id: number; key: string } {
    return this.db.transaction(() => {
      const id = Number(this.insertAccount.run(plan, nowMs).lastInsertRowid);
      this.addKeyTo(id, key, nowMs);
      return { id, key };
    })();
  }

  /** Adds another key to an existing account (several keys share one account's limits). */
  addKey(accountId: number, nowMs: number, key: string = newKey()): string | null {
    return this.db.transaction(() => {
      if (!this.accountById.get(accountId)) return null;
      this.addKeyTo(accountId, key, nowMs);
      return key;
    })();
  }

  private addKeyTo(accountId: number, key: string, nowMs: number): void {
    const hash = hashKey(key);
    try {
      this.insertKey.run(hash, accountId, hintOf(key), nowMs);
    } catch (e) {
      if ((e as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') throw new DuplicateKeyError();
      throw e;
    }
  }

  /** Revokes a key; false when no such valid key exists. */
  revoke(key: string, nowMs: number): boolean {
    return this.revokeStmt.run(nowMs, hashKey(key)).changes === 1;
  }

  list(): AccountListing[] {
    const accounts = this.listAccounts.all() as { id: number; plan: string; created_at_ms: number }[];
    return accounts.map((a) => ({
      id: a.id,
      plan: a.plan,
      createdAtMs: a.created_at_ms,
      keys: (this.listKeys.all(a.id) as { hint: string; created_at_ms: number; revoked_at_ms: number | null }[]).map((k) => ({
        hint: k.hint,
        createdAtMs: k.created_at_ms,
        revokedAtMs: k.revoked_at_ms,
      })),
    }));
  }
}

export class DuplicateKeyError extends Error {
  override name = 'DuplicateKeyError';
  constructor() {
    super('that key is already registered');
  }
}
