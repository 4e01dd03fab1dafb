import type pg from 'pg';
import { createPool, describePgError, isUnavailable, redactUrl } from '../../shared/postgres/pool.js';
import { migratePostgres } from '../../shared/postgres/schema.js';
import type { Dataset } from '../../shared/schema.js';
import { IngestError } from '../errors.js';
import type { SealCut, SealCutStore } from './sealCuts.js';

/** Seal cuts in the PostgreSQL database the sites share (table tickvault.seal_cuts). */
export class PostgresSealCuts implements SealCutStore {
  readonly where: string;

  private constructor(
    private readonly pool: pg.Pool,
    url: string,
  ) {
    this.where = redactUrl(url);
  }

  /** Connects and creates or migrates the schema; an unreachable database is a retriable IngestError. */
  static async open(url: string, onPoolError?: (e: unknown) => void): Promise<PostgresSealCuts> {
    const pool = createPool({ url, poolSize: 2, onPoolError });
    const store = new PostgresSealCuts(pool, url);
    try {
      await store.run('open', () => migratePostgres(pool));
    } catch (e) {
      await pool.end().catch(() => undefined);
      throw e;
    }
    return store;
  }

  private async run<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof IngestError) throw e;
      // The sealer logs it and retries at the next tick: sealing waits for the database.
      throw new IngestError('seal', `seal cuts in ${this.where}: ${what} failed: ${describePgError(e)}`, {
        retriable: isUnavailable(e),
        cause: e,
      });
    }
  }

  async agree(cut: SealCut, site: string): Promise<number> {
    return this.run('agree', async () => {
      const inserted = await this.pool.query<{ cut_offset: string }>({
        name: 'tv_cut_insert',
        text: `INSERT INTO tickvault.seal_cuts (topic, partition, tradedate, dataset, cut_offset, created_by) VALUES ($1, $2, $3, $4, $5, $6)
               ON CONFLICT (topic, partition, tradedate) DO NOTHING RETURNING cut_offset`,
        values: [cut.topic, cut.partition, cut.tradedate, cut.dataset, cut.offset, site],
      });
      if (inserted.rows.length === 1) return Number(inserted.rows[0].cut_offset);
      // Another site's cut: read in a new statement, which sees its committed row.
      const existing = await this.pool.query<{ cut_offset: string }>({
        name: 'tv_cut_get',
        text: 'SELECT cut_offset FROM tickvault.seal_cuts WHERE topic = $1 AND partition = $2 AND tradedate = $3',
        values: [cut.topic, cut.partition, cut.tradedate],
      });
      if (existing.rows.length !== 1) throw new Error(`no cut recorded for ${cut.topic}/${cut.partition} ${cut.tradedate} after a conflicting insert`);
      return Number(existing.rows[0].cut_offset);
    });
  }

  async cutsFrom(fromDate: string): Promise<SealCut[]> {
    return this.run('read', async () => {
      const res = await this.pool.query<{ topic: string; partition: number; dataset: Dataset; tradedate: string; cut_offset: string }>({
        name: 'tv_cuts_from',
        text: 'SELECT topic, partition, dataset, tradedate, cut_offset FROM tickvault.seal_cuts WHERE tradedate >= $1',
        values: [fromDate],
      });
      return res.rows.map((r) => ({ topic: r.topic, partition: r.partition, dataset: r.dataset, tradedate: r.tradedate, offset: Number(r.cut_offset) }));
    });
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
