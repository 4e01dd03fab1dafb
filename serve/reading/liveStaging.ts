/**
 * Where a server reads a live day (api-contract: The live day): staging as the ingestor has
 * committed it, through the lake's staging reader (storage/staging/) over ingest.db opened read
 * only. Only what a committed length covers is read, so a row is visible once its message is
 * durable and never one a crash could take back.
 *
 * The rows come through stagingTail.ts, which keeps the symbols asked resolved exactly as the
 * seal resolves them (the same function), reading only what was committed since the last
 * request; it says why that design was chosen over the others, with the figures.
 */
import { existsSync } from 'node:fs';
import { openDb, type Db } from '../../shared/sqlite.js';
import type { Dataset } from '../../shared/schema.js';
import { layoutFor } from '../../storage/layout.js';
import { StagingReader } from '../../storage/staging/stagingReader.js';
import type { ByteLru } from './byteLru.js';
import { StagingTail, type LiveRows } from './stagingTail.js';

/** A live dataset-day's rows of one symbol; `rows` 0 when the day is live but the symbol has none yet. */
export type LiveSymbolDay = LiveRows;

export class LiveStaging {
  private db: Db | null = null;
  private reader: StagingReader | null = null;

  private readonly tail: StagingTail;

  constructor(
    private readonly dataDir: string,
    /** The detail cache's LRU, where the followed symbols' rows are kept (--cache-mb). */
    cache: ByteLru,
  ) {
    this.tail = new StagingTail(dataDir, cache);
  }

  /** The reader, once ingest.db exists (a server may start before the ingestor's first run). */
  private staging(): StagingReader | null {
    if (this.reader !== null) return this.reader;
    const path = layoutFor(this.dataDir).ingestDb;
    if (!existsSync(path)) return null;
    this.db = openDb(path, { readonly: true });
    this.reader = new StagingReader(this.db, this.dataDir);
    return this.reader;
  }

  /**
   * The symbol's rows on the dataset-day when the day is live here (staged, not sealed: the
   * caller asks only when the catalog lists no file), as the seal would write them now;
   * undefined when the day is not live.
   */
  symbolDay(dataset: Dataset, tradedate: string, symbol: string): LiveSymbolDay | undefined {
    const day = this.symbolDays(dataset, tradedate, [symbol]);
    return day && (day.get(symbol) ?? { symbol, rows: 0, timesMs: new Int32Array(0), values: [], text: { rows: 0, chunks: [] } });
  }

  /** The dataset's days with rows staged here (live unless the catalog says sealed), ascending. */
  stagedDays(dataset: Dataset): string[] {
    return this.whileStaging([], (staging) =>
      staging
        .openDays()
        .filter((d) => d.dataset === dataset)
        .map((d) => d.tradedate),
    );
  }

  /** Whether the dataset-day is live here: staged, not sealed. */
  isLive(dataset: Dataset, tradedate: string): boolean {
    return this.whenLive(dataset, tradedate, false, () => true);
  }

  /**
   * The symbols staged for the dataset-day, sorted, when the day is live here; undefined when
   * it is not (tick_history's boundary rows of every stock or index of a live day).
   */
  stagedSymbols(dataset: Dataset, tradedate: string): string[] | undefined {
    // The day's open symbols: none means nothing staged, the day is not live.
    const symbols = this.whileStaging([], (staging) => staging.symbolsOf(dataset, tradedate));
    return symbols.length > 0 ? symbols : undefined;
  }

  /**
   * Several symbols' rows of a live dataset-day, each staging bucket read once for all of its
   * symbols (a symbol with nothing staged yet is absent); undefined when the day is not live.
   */
  symbolDays(dataset: Dataset, tradedate: string, symbols: readonly string[]): Map<string, LiveSymbolDay> | undefined {
    return this.whenLive(dataset, tradedate, undefined, (staging) => {
      const out = new Map<string, LiveSymbolDay>();
      for (const [bucket, wanted] of staging.bucketsOf(symbols))
        this.tail.bucketRows(staging.db, dataset, tradedate, bucket, wanted).forEach((v, k) => out.set(k, v));
      return out;
    });
  }

  /**
   * `read` over the staging reader when the dataset-day is live here; `none` when it is not (or
   * there is no staging yet, or the day was sealed under the read).
   */
  whenLive<T>(dataset: Dataset, tradedate: string, none: T, read: (staging: StagingReader) => T): T {
    return this.whileStaging(none, (staging) => (staging.hasStaged(dataset, tradedate) ? read(staging) : none));
  }

  /** `read` over the staging reader; `none` when there is no staging yet. */
  private whileStaging<T>(none: T, read: (staging: StagingReader) => T): T {
    const staging = this.staging();
    if (staging === null) return none;
    try {
      return read(staging);
    } catch (e) {
      // ingest.db made but its tables not yet (the ingestor is starting): nothing is staged.
      if (/no such table/.test((e as Error).message)) return none;
      // A segment removed under the read: its day was sealed meanwhile (the caller asks the catalog again).
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return none;
      throw e;
    }
  }

  close(): void {
    this.db?.close();
    this.db = null;
    this.reader = null;
  }
}
