import { LRUCache } from 'lru-cache';

/**
 * A byte-bounded LRU (lru-cache, sized by the caller's estimate) of promises (`get`/`set`: a
 * rejected promise is dropped so the next call retries) and of plain values (`value`/`keep`:
 * what is made synchronously, e.g. a day listing). An entry larger than the whole budget is
 * handed back but not kept: caching it would evict everything else for one value.
 */
export class ByteLru {
  private readonly cache: LRUCache<string, NonNullable<unknown>>;

  constructor(readonly maxBytes: number) {
    this.cache = new LRUCache<string, NonNullable<unknown>>({ maxSize: Math.max(1, maxBytes), sizeCalculation: () => 1 });
  }

  get<T>(key: string): Promise<T> | undefined {
    return this.cache.get(key) as Promise<T> | undefined;
  }

  set<T>(key: string, bytes: number, value: Promise<T>): Promise<T> {
    this.keep(key, bytes, value);
    value.catch(() => {
      if (this.cache.peek(key) === value) this.cache.delete(key);
    });
    return value;
  }

  /** A plain value kept under `key`, most recently used now; undefined when absent. */
  value<T extends NonNullable<unknown>>(key: string): T | undefined {
    return this.cache.get(key) as T | undefined;
  }

  /** Keeps a plain value (a promise goes through `set`). Returns it. */
  keep<T extends NonNullable<unknown>>(key: string, bytes: number, value: T): T {
    this.cache.set(key, value, { size: Math.max(1, Math.ceil(bytes)) });
    return value;
  }

  get usedBytes(): number {
    return this.cache.calculatedSize;
  }

  has(key: string): boolean {
    return this.cache.has(key, { updateAgeOnHas: false });
  }

  delete(key: string): void {
    this.cache.delete(key);
  }

  get size(): number {
    return this.cache.size;
  }

  /** Keys from least to most recently used (for tests and diagnostics). */
  keys(): string[] {
    return [...this.cache.rkeys()];
  }
}
