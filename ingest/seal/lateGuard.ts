/**
 * Answers "is this message late?": its day is sealed, or its symbol-day already has a file.
 * A sealed file is immutable, so such a message is quarantined instead of staged. Answers are
 * cached per key; `forget()` after sealing.
 */
import type { Dataset } from '../../shared/schema.js';
import type { CatalogReader } from '../../storage/catalog.js';

export class LateGuard {
  private readonly cache = new Map<string, boolean>();
  constructor(private readonly catalog: CatalogReader) {}

  /** The previous question and its answer: rows of one symbol-day come in runs. */
  private last: { dataset: Dataset; tradedate: string; symbol: string; late: boolean } | null = null;

  isLate(dataset: Dataset, tradedate: string, symbol: string): boolean {
    const l = this.last;
    if (l !== null && l.symbol === symbol && l.tradedate === tradedate && l.dataset === dataset) return l.late;
    const late = this.lookUp(dataset, tradedate, symbol);
    this.last = { dataset, tradedate, symbol, late };
    return late;
  }

  private lookUp(dataset: Dataset, tradedate: string, symbol: string): boolean {
    const key = `${dataset}|${tradedate}|${symbol}`;
    let late = this.cache.get(key);
    if (late === undefined) {
      late = this.catalog.isDaySealed(dataset, tradedate) || this.catalog.hasFile(dataset, tradedate, symbol);
      this.cache.set(key, late);
    }
    return late;
  }

  forget(): void {
    this.cache.clear();
    this.last = null;
  }
}
