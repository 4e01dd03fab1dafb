/**
 * Answers "is this message late?": its day is sealed, or its symbol-day already has a file.
 * A sealed file is immutable, so such a message is quarantined instead of staged. Answers are
 * cached per dataset-day and symbol; `forget()` after sealing.
 */
import type { Dataset } from '../../shared/schema.js';
import type { CatalogReader } from '../../storage/catalog.js';

/** One dataset-day's answers, by symbol. */
interface DayAnswers {
  readonly dataset: Dataset;
  readonly tradedate: string;
  readonly bySymbol: Map<string, boolean>;
}

export class LateGuard {
  /** By dataset, then trade date: no key string is built per message (a time-ordered feed changes symbol every row). */
  private readonly days = new Map<Dataset, Map<string, DayAnswers>>();
  private lastDay: DayAnswers | null = null;

  constructor(private readonly catalog: CatalogReader) {}

  isLate(dataset: Dataset, tradedate: string, symbol: string): boolean {
    let day = this.lastDay;
    if (day === null || day.tradedate !== tradedate || day.dataset !== dataset) {
      let ofDataset = this.days.get(dataset);
      if (!ofDataset) this.days.set(dataset, (ofDataset = new Map()));
      day = ofDataset.get(tradedate) ?? null;
      if (day === null) ofDataset.set(tradedate, (day = { dataset, tradedate, bySymbol: new Map() }));
      this.lastDay = day;
    }
    let late = day.bySymbol.get(symbol);
    if (late === undefined) {
      late = this.catalog.isDaySealed(dataset, tradedate) || this.catalog.hasFile(dataset, tradedate, symbol);
      day.bySymbol.set(symbol, late);
    }
    return late;
  }

  forget(): void {
    this.days.clear();
    this.lastDay = null;
  }
}
