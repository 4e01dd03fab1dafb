/**
 * What a server process remembers of the damage it found: damaged sealed files (with what a
 * later touch answers at once, fileIntegrity.ts), and boundary parts and row texts already
 * reported (each is logged once). Bounded in bytes by its share of `--cache-mb`
 * (memoryBudget.ts): damage on a scale the share cannot hold forgets its oldest records, and a
 * forgotten one costs a check of the file at its next touch and one more log line, never a
 * wrong answer.
 */
import { ByteLru } from './byteLru.js';

export type DamageKind = 'file' | 'part' | 'rowtext';

/** A record's heap beside its key: the entry, the key string, and a DamagedFileError's text. */
const RECORD_BYTES = 480;

export class DamageRecords {
  private readonly lru: ByteLru;

  constructor(maxBytes: number) {
    this.lru = new ByteLru(maxBytes);
  }

  /** What was remembered of `path`'s damage of this kind (refreshing it), or undefined. */
  recall<T extends NonNullable<unknown>>(kind: DamageKind, path: string): T | undefined {
    return this.lru.value<T>(`${kind}:${path}`);
  }

  remember<T extends NonNullable<unknown>>(kind: DamageKind, path: string, record: T): T {
    return this.lru.keep(`${kind}:${path}`, RECORD_BYTES + 2 * path.length, record);
  }

  forget(kind: DamageKind, path: string): void {
    this.lru.delete(`${kind}:${path}`);
  }

  /** True the first time `path` is reported damaged (while remembered): the caller logs it then. */
  firstReport(kind: DamageKind, path: string): boolean {
    if (this.recall(kind, path) !== undefined) return false;
    this.remember(kind, path, true);
    return true;
  }

  /** Records of a kind remembered now (the damaged-files gauge of /metrics). */
  count(kind: DamageKind): number {
    return this.lru.keys().filter((k) => k.startsWith(`${kind}:`)).length;
  }

  get usedBytes(): number {
    return this.lru.usedBytes;
  }
}
