/**
 * The seal's last step (api-contract: Bars): the bars of every day whose trade or level-2 files
 * changed are made and listed (storage/bars/barKeeper.ts), on every core. Run by every path that
 * lists files (sealDays: replay, seal, import, mirror, demo; restate; the ingestor's seal tick),
 * so a day is never sealed without its bars for longer than a crash lasts. A disk fault is the seal's.
 */
import { availableParallelism } from 'node:os';
import type { Db } from '../../shared/sqlite.js';
import { keepBars, type BarsKept } from '../../storage/bars/barKeeper.js';
import { dueBarDays } from '../../storage/bars/barCatalog.js';
import { BarPool } from '../../storage/bars/barPool.js';
import { atStage } from '../diskFault.js';

export type { BarsKept } from '../../storage/bars/barKeeper.js';

export async function sealBars(dataDir: string, catalog: Db, nowMs: () => number): Promise<BarsKept> {
  // Most calls find nothing due: no worker is started for them.
  if (dueBarDays(catalog).length === 0) return { days: 0, stocks: 0, bytes: 0, failed: [] };
  const pool = new BarPool(availableParallelism());
  try {
    return await atStage('seal', dataDir, () => keepBars({ dataDir, catalog, nowMs, maker: pool.make, concurrency: pool.size }));
  } finally {
    await pool.close();
  }
}

/**
 * The ingestor's bars, off its seal tick: `poke` after a tick that sealed a day starts a pass
 * (or asks for another once the running one ends), so sealing other partitions never waits for
 * a day's bars. Two processes on one data directory may make the same day's bars; the files
 * are the same bytes and the catalog takes the last.
 */
export class BackgroundBars {
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(
    private readonly dataDir: string,
    private readonly catalog: Db,
    private readonly nowMs: () => number,
    private readonly report: (kept: BarsKept, ms: number) => void,
    private readonly onError: (e: unknown) => void,
  ) {}

  poke(): void {
    if (this.stopped) return;
    if (this.running !== null) {
      this.again = true;
      return;
    }
    this.running = this.pass().finally(() => {
      this.running = null;
      if (this.again && !this.stopped) {
        this.again = false;
        this.poke();
      }
    });
  }

  private async pass(): Promise<void> {
    const started = Date.now();
    try {
      this.report(await sealBars(this.dataDir, this.catalog, this.nowMs), Date.now() - started);
    } catch (e) {
      // A full disk or a busy catalog: the marks stay, the next poke makes them.
      this.onError(e);
    }
  }

  /** No new pass; waits for the running one. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }
}
