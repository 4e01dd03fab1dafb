/**
 * The page iterators against `tickvault serve` on the replayed generated data (20250102,
 * -03, -06; 5 stocks, 3 indexes); expected rows come from DuckDB reading the sealed files.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { TickvaultClient, TickvaultPagingError, type Level2Page, type TickHistoryData } from '../../client/index.js';
import { SCHEMAS } from '../../shared/schema.js';
import { duckRows, sqlString } from '../support/duckdb.js';
import { addAccount, preparedData, startServer, type ServerHandle } from '../support/server.js';
import { envelope, scriptedServer } from './scriptedServer.js';

const test = suite('client paging');
let server: ServerHandle;
let dataDir: string;
let client: TickvaultClient;

test.before(async () => {
  ({ dataDir } = await preparedData());
  server = await startServer(dataDir, { env: { TICKVAULT_RATE_LIMIT: '1000' } });
  client = new TickvaultClient({ baseUrl: server.url, apikey: addAccount(dataDir, 'flagship').key });
});
test.after(async () => {
  await server?.stop();
});

async function collect<T>(pages: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const page of pages) all.push(page);
  return all;
}

test('a level-2 day paged by cursor to its end equals the whole stored file', async () => {
  const path = join(dataDir, 'level2', 'date=20250103', '600000.SH.parquet');
  const expected = (await duckRows(`SELECT * FROM read_parquet(${sqlString(path)}, hive_partitioning = false) ORDER BY time`)).map((r) =>
    SCHEMAS.level2.fieldNames.map((n) => r[n]),
  );
  const pageSize = Math.ceil(expected.length / 4);
  const pages: Level2Page[] = await collect(client.level2QuoteHistoryPages({ symbol: '600000.SH', tradedate: '20250103', page_size: pageSize }));
  assert.ok(pages.length >= 4, `${pages.length} pages of ${pageSize}`);
  assert.equal(
    pages.flatMap((p) => p.items),
    expected,
  );
  assert.is(pages.at(-1)!.has_more, false);
  assert.ok(pages.slice(0, -1).every((p) => p.has_more && p.items.length === pageSize));
});

test('the fields option reaches the server; paging keeps it', async () => {
  const pages = await collect(
    client.level2QuoteHistoryPages(
      { symbol: '600000', tradedate: '20250102', start_time: '09:30', end_time: '10:00', page_size: 500 },
      { fields: ['time', 'close'] },
    ),
  );
  assert.ok(pages.length >= 2);
  for (const p of pages) assert.equal(p.fields, ['time', 'close']);
  const times = pages.flatMap((p) => p.items.map((r) => r[0] as string));
  assert.ok(times.every((t) => t >= '093000000' && t <= '100000000'));
  assert.equal(times, [...times].sort());
});

test('enhanced tick_history paged by offset until has_more is false equals the stored rows', async () => {
  const glob = sqlString(join(dataDir, 'index', '*', '*.parquet'));
  const rows = await duckRows(
    `SELECT * FROM read_parquet(${glob}, hive_partitioning = false) WHERE tradedate BETWEEN '20250102' AND '20250106' ORDER BY tradedate, time, symbol`,
  );
  const expected = rows.map((r) =>
    SCHEMAS.index.fieldNames.map((f) => {
      if (f === 'pre_close' || f === 'pct_chg') return null;
      const v = r[f];
      return typeof v === 'bigint' ? Number(v) : v;
    }),
  );
  const symbols = [...new Set(rows.map((r) => String(r.symbol)))];
  const limit = Math.min(6000, Math.ceil(expected.length / 3));
  const pages: TickHistoryData[] = await collect(client.tickHistoryPages({ symbols, startdate: '20250102', enddate: '20250106', limit }));
  assert.ok(pages.length >= 3, `${pages.length} pages of ${limit}`);
  assert.equal(
    pages.map((p) => p.offset),
    pages.map((_, i) => i * limit),
  );
  assert.equal(
    pages.flatMap((p) => p.items),
    expected,
  );
  assert.is(pages.at(-1)!.has_more, false);
});

test('a compatible tick_history query is one page, sent without an offset', async () => {
  const pages = await collect(client.tickHistoryPages({ symbol: '000300', tradedate: '20250102' }));
  assert.is(pages.length, 1);
  assert.is(pages[0].has_more, undefined, 'still the compatible mode');
  const glob = sqlString(join(dataDir, 'index', 'date=20250102', '000300.parquet'));
  const [{ n }] = await duckRows(`SELECT count(*) AS n FROM read_parquet(${glob}, hive_partitioning = false)`);
  assert.is(pages[0].items.length, Number(n), 'the whole day, no row limit');
});

test('a cursor handed back twice stops paging with TickvaultPagingError', async () => {
  const page = { fields: ['time'], items: [['093000000']], tradedate: '20250102', page_size: 1, next_cursor: 'c1same', has_more: true };
  const fake = await scriptedServer([envelope(200, 'success', page)]);
  try {
    const fakeClient = new TickvaultClient({ baseUrl: fake.baseUrl, apikey: 'k' });
    const seen: Level2Page[] = [];
    let error: unknown;
    try {
      for await (const p of fakeClient.level2QuoteHistoryPages({ symbol: '600000', page_size: 1 })) seen.push(p);
    } catch (err) {
      error = err;
    }
    assert.instance(error, TickvaultPagingError);
    assert.is(seen.length, 2, 'the first page, then the page that repeated its cursor');
    assert.is(fake.requests.length, 2);
    assert.is((fake.requests[0].body.params as Record<string, unknown>).cursor, undefined);
    assert.is((fake.requests[1].body.params as Record<string, unknown>).cursor, 'c1same');
  } finally {
    await fake.close();
  }
});

test.run();
