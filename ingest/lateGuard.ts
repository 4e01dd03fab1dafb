import type { Db } from '../shared/sqlite.js';
import type { Dataset } from '../shared/schema.js';

/**
 * Answers "is this message late?": its day is sealed, or its symbol-day already has a file.
 * A sealed file is immutable, so such a message is quarantined instead of staged. Answers are
 * cached per key; `forget()` after sealing.
 */
export class LateGuard {
  private readonly cache = new Map<string, boolean>();
  private readonly daySealed;
  private readonly fileListed;

  constructor(catalog: Db) {
    this.daySealed = catalog.prepare('SELECT 1 FROM sealed_days WHERE dataset = ? AND tradedate = ?');
    this.fileListed = catalog.prepare('SELECT 1 FROM files WHERE dataset = ? AND tradedate = ? AND symbol = ?');
  }

  isLate(dataset: Dataset, tradedate: string, symbol: string): boolean {
    const key = `${dataset}|${tradedate}|${symbol}`;
    let late = this.cache.get(key);
    if (late === undefined) {
      late =
        this.daySealed.get(dataset, tradedate) !== undefined ||
        this.fileListed.get(dataset, tradedate, symbol) !== undefined;
      this.cache.set(key, late);
    }
    return late;
  }

  forget(): void {
    this.cache.clear();
  }
}
