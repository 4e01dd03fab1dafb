/**
 * Shared fixture of the tick_history tests: generated index snapshots of 20250120..20250214
 * (14 trading days: January into February across the 2025 Spring Festival closure, 28 Jan -
 * 4 Feb), replayed into a data directory, and a server whose clock is Friday 2025-02-14
 * 16:30 Beijing (so the latest trading day is 20250214). Expected rows come from DuckDB
 * reading the sealed files, and from the feed itself.
 */
import { join } from 'node:path';
import { readFeedLines } from '../../../ingest/feed/lines.js';
import { SCHEMAS } from '../../../shared/schema.js';
import { duckRows, sqlString } from '../../support/duckdb.js';
import { addAccount, postApi, preparedData, startServer, type ApiResponse, type ServerHandle } from '../../support/server.js';
import type { PlanName } from '../../../serve/access/plans.js';

export const SERVER_NOW = '2025-02-14T16:30:00+08:00';
export const DATA = { from: '20250120', days: 14, stocks: 0, indexes: 6, seed: 'tick-history' } as const;
export const FIELDS = SCHEMAS.index.fieldNames;

export interface TickData {
  readonly dataDir: string;
  readonly feedFile: string;
  readonly symbols: readonly string[];
  readonly days: readonly string[];
}

export interface TickDetailData {
  readonly fields: string[];
  readonly items: unknown[][];
  readonly limit?: number;
  readonly offset?: number;
  readonly has_more?: boolean;
}

let data: Promise<TickData> | null = null;

export function tickData(): Promise<TickData> {
  data ??= (async () => {
    const d = await preparedData(DATA);
    const glob = sqlString(join(d.dataDir, 'index', '*', '*.parquet'));
    const symbols = (await duckRows(`SELECT DISTINCT symbol FROM read_parquet(${glob}, hive_partitioning = false) ORDER BY symbol`)).map((r) =>
      String(r.symbol),
    );
    const days = (await duckRows(`SELECT DISTINCT tradedate FROM read_parquet(${glob}, hive_partitioning = false) ORDER BY tradedate`)).map((r) =>
      String(r.tradedate),
    );
    return { dataDir: d.dataDir, feedFile: d.feedFile, symbols, days };
  })();
  return data;
}

export async function tickServer(args: readonly string[] = []): Promise<ServerHandle> {
  const d = await tickData();
  // These tests fire requests faster than the default 20/s of one account; rate limiting has
  // tests of its own. A --rate-limit in `args` still wins (flags over environment).
  return startServer(d.dataDir, { now: SERVER_NOW, args, env: { TICKVAULT_RATE_LIMIT: '1000' } });
}

export function account(plan: PlanName): Promise<string> {
  return tickData().then((d) => addAccount(d.dataDir, plan).key);
}

export function tick(server: ServerHandle, apikey: string, params: Record<string, unknown>, fields?: string): Promise<ApiResponse<TickDetailData>> {
  return postApi<TickDetailData>(server, { apiname: 'tick_history', apikey, params, ...(fields === undefined ? {} : { fields }) });
}

export interface Expect {
  readonly where: string;
  readonly order?: 'asc' | 'desc';
  readonly limit?: number;
  readonly offset?: number;
  readonly fields?: readonly string[];
}

/** API rows computed by DuckDB over every sealed index file (pre_close/pct_chg forced null). */
export async function expectedRows(e: Expect): Promise<unknown[][]> {
  const d = await tickData();
  const glob = sqlString(join(d.dataDir, 'index', '*', '*.parquet'));
  const dir = e.order === 'desc' ? 'DESC' : 'ASC';
  const page = `${e.limit === undefined ? '' : ` LIMIT ${e.limit}`}${e.offset === undefined ? '' : ` OFFSET ${e.offset}`}`;
  const rows = await duckRows(
    `SELECT * FROM read_parquet(${glob}, hive_partitioning = false) WHERE ${e.where} ORDER BY tradedate ${dir}, time ${dir}, symbol ${dir}${page}`,
  );
  return rows.map((r) => toApiRow(r, e.fields ?? FIELDS));
}

export async function expectedCount(where: string): Promise<number> {
  const d = await tickData();
  const glob = sqlString(join(d.dataDir, 'index', '*', '*.parquet'));
  const [r] = await duckRows(`SELECT count(*) AS n FROM read_parquet(${glob}, hive_partitioning = false) WHERE ${where}`);
  return Number(r.n);
}

/** Per symbol, the last row before / first row at or after `HH:MM:00.000` of a day (DuckDB). */
export async function expectedBoundary(day: string, hhmm: string, side: 'before' | 'after', symbols?: readonly string[]): Promise<unknown[][]> {
  const d = await tickData();
  const glob = sqlString(join(d.dataDir, 'index', '*', '*.parquet'));
  const at = sqlString(`${hhmm.slice(0, 2)}:${hhmm.slice(2)}:00.000`);
  const cond = side === 'before' ? `substr(time, 12) < ${at}` : `substr(time, 12) >= ${at}`;
  const only = symbols ? ` AND symbol IN (${symbols.map(sqlString).join(',')})` : '';
  const rows = await duckRows(
    `SELECT * EXCLUDE (rn) FROM (SELECT *, row_number() OVER (PARTITION BY symbol ORDER BY time ${side === 'before' ? 'DESC' : 'ASC'}) AS rn ` +
      `FROM read_parquet(${glob}, hive_partitioning = false) WHERE tradedate = ${sqlString(day)} AND ${cond}${only}) WHERE rn = 1 ORDER BY symbol`,
  );
  return rows.map((r) => toApiRow(r, FIELDS));
}

function toApiRow(r: Record<string, unknown>, fields: readonly string[]): unknown[] {
  return fields.map((f) => {
    if (f === 'pre_close' || f === 'pct_chg') return null;
    const v = r[f];
    return typeof v === 'bigint' ? Number(v) : v;
  });
}

/** `time` condition for DuckDB: fixed-width text compares like the time it spells. */
export function timeWhere(fromHms: string, toHms: string): string {
  return `substr(time, 12) >= ${sqlString(fromHms)} AND substr(time, 12) < ${sqlString(toHms)}`;
}

export function symbolWhere(symbols: readonly string[]): string {
  return `symbol IN (${symbols.map(sqlString).join(',')})`;
}

/** Feed objects (kind index) of one symbol-day, in feed order. */
export async function feedRows(symbol: string, day: string): Promise<Record<string, unknown>[]> {
  const d = await tickData();
  const out: Record<string, unknown>[] = [];
  const needle = `"symbol":"${symbol}"`;
  for await (const batch of readFeedLines(d.feedFile)) {
    for (const line of batch.lines) {
      if (!line.includes(needle) || !line.includes(`"tradedate":"${day}"`)) continue;
      const o = JSON.parse(line) as Record<string, unknown>;
      if (o.kind === 'index' && o.symbol === symbol && o.tradedate === day) out.push(o);
    }
  }
  return out;
}
