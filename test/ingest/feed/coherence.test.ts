/**
 * The generated market is coherent (issue "trades and orders 1 of 2", api-contract: Trades and orders), checked
 * by DuckDB over the files a replay wrote, not over the generator's lines: trades, orders and
 * snapshots of the same day tell one story after validation, duplicates and sealing.
 * 2 days × 7 stocks (every code block: .SH, .SZ main board, ChiNext, STAR, SME, .SH 601, .BJ),
 * with faults (bad lines and corrected re-sends, which ingestion must resolve by id).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { runCli } from '../../support/cli.js';
import { duckRows, sqlString } from '../../support/duckdb.js';
import { tempDir } from '../../support/tempDir.js';

const root = tempDir('tickvault-coherence-');
const feed = join(root, 'feed.jsonl.zst');
const data = join(root, 'data');
const glob = (dataset: string) => sqlString(join(data, dataset, 'date=*', '*.parquet'));

const test = suite('generated trades, orders and snapshots agree, as read back from the sealed files');

test.before(async () => {
  const gen = await runCli([
    'generate',
    '--out',
    feed,
    '--from',
    '20250102',
    '--days',
    '2',
    '--stocks',
    '7',
    '--indexes',
    '0',
    '--seed',
    'coherence',
    '--faults',
    '0.002',
  ]);
  assert.is(gen.code, 0, gen.stderr);
  const rep = await runCli(['replay', feed, '--data-dir', data]);
  assert.is(rep.code, 0, rep.stderr);
  for (const d of ['level2', 'trade', 'order'])
    await duckRows(`CREATE OR REPLACE VIEW ${d === 'order' ? 'orders' : d} AS SELECT * FROM read_parquet(${glob(d)}, hive_partitioning = false)`);
});

const one = async (sql: string): Promise<Record<string, unknown>> => (await duckRows(sql))[0];
const n = (v: unknown) => Number(v);

test('every stock-day has its trades and orders: a few thousand trades, more orders', async () => {
  const days = await duckRows(`
    SELECT l.symbol, l.tradedate,
      (SELECT count(*) FROM trade t WHERE t.symbol = l.symbol AND t.tradedate = l.tradedate AND t.trade_code = 'F') AS trades,
      (SELECT count(*) FROM orders o WHERE o.symbol = l.symbol AND o.tradedate = l.tradedate) AS orders
    FROM (SELECT DISTINCT symbol, tradedate FROM level2) l ORDER BY 1, 2`);
  assert.is(days.length, 14);
  for (const d of days) {
    assert.ok(n(d.trades) >= 2000 && n(d.trades) <= 20_000, `${d.symbol} ${d.tradedate}: ${d.trades} trades`);
    assert.ok(n(d.orders) > n(d.trades), `${d.symbol} ${d.tradedate}: ${d.orders} orders for ${d.trades} trades`);
  }
  const exchanges = (await duckRows(`SELECT DISTINCT split_part(symbol, '.', 2) AS ex FROM trade ORDER BY 1`)).map((r) => r.ex);
  assert.equal(exchanges, ['BJ', 'SH', 'SZ']);
});

test('the executions up to each snapshot sum to its cumulative volume and amount', async () => {
  const r = await one(`
    WITH s AS (
      SELECT l.symbol, l.tradedate, l.time, l.volume, l.amount,
        (SELECT coalesce(sum(t.volume), 0) FROM trade t WHERE t.symbol = l.symbol AND t.tradedate = l.tradedate AND t.trade_code = 'F' AND t.time <= l.time) AS tv,
        (SELECT coalesce(sum(t.amount), 0) FROM trade t WHERE t.symbol = l.symbol AND t.tradedate = l.tradedate AND t.trade_code = 'F' AND t.time <= l.time) AS ta
      FROM level2 l)
    SELECT count(*) AS snapshots,
      count(*) FILTER (WHERE tv <> volume) AS bad_volume,
      count(*) FILTER (WHERE abs(ta - amount) > 0.01) AS bad_amount,
      count(*) FILTER (WHERE volume > 0) AS traded,
      any_value(symbol || ' ' || tradedate || ' ' || time || ': volume ' || volume || ' vs ' || tv || ', amount ' || amount || ' vs ' || ta)
        FILTER (WHERE tv <> volume OR abs(ta - amount) > 0.01) AS example
    FROM s`);
  assert.ok(n(r.snapshots) > 60_000, `snapshots: ${r.snapshots}`);
  assert.ok(n(r.traded) > 50_000, 'most snapshots carry volume');
  assert.is(n(r.bad_volume), 0, String(r.example));
  assert.is(n(r.bad_amount), 0, String(r.example));
  // The last trade's price is the snapshot's close whenever the snapshot traded anything new.
  const close = await one(`
    WITH l AS (SELECT *, lag(volume, 1, 0) OVER (PARTITION BY symbol, tradedate ORDER BY time) AS prev FROM level2)
    SELECT count(*) AS bad FROM l
    WHERE l.volume > l.prev AND l.close <> (
      SELECT arg_max(t.price, t.time || lpad(CAST(t.trade_id AS VARCHAR), 12, '0')) FROM trade t
      WHERE t.symbol = l.symbol AND t.tradedate = l.tradedate AND t.trade_code = 'F' AND t.time <= l.time)`);
  assert.is(n(close.bad), 0);
});

test("every trade's orders exist, on the right side, placed no later, with volume for all they trade", async () => {
  const r = await one(`
    SELECT count(*) AS trades,
      count(*) FILTER (WHERE b.order_id IS NULL OR b.side <> 'B' OR b.time > t.time) AS bad_buy,
      count(*) FILTER (WHERE s.order_id IS NULL OR s.side <> 'S' OR s.time > t.time) AS bad_sell
    FROM trade t
    LEFT JOIN orders b ON b.symbol = t.symbol AND b.tradedate = t.tradedate AND b.order_id = t.buy_order_id
    LEFT JOIN orders s ON s.symbol = t.symbol AND s.tradedate = t.tradedate AND s.order_id = t.sell_order_id
    WHERE t.trade_code = 'F'`);
  assert.ok(n(r.trades) > 50_000);
  assert.is(n(r.bad_buy), 0);
  assert.is(n(r.bad_sell), 0);
  const over = await one(`
    WITH fills AS (
      SELECT symbol, tradedate, buy_order_id AS id, volume FROM trade WHERE trade_code = 'F'
      UNION ALL SELECT symbol, tradedate, sell_order_id, volume FROM trade WHERE trade_code = 'F'),
    per AS (SELECT symbol, tradedate, id, sum(volume) AS filled FROM fills GROUP BY ALL)
    SELECT count(*) AS bad FROM per JOIN orders o ON o.symbol = per.symbol AND o.tradedate = per.tradedate AND o.order_id = per.id
    WHERE per.filled > o.volume`);
  assert.is(n(over.bad), 0);
});

test('the call auctions: every trade at 09:25:00.000 or 15:00:00.000 is bs_flag N, no other trade is', async () => {
  const r = await one(`
    SELECT count(*) FILTER (WHERE time = '092500000') AS auction,
      count(*) FILTER (WHERE time = '150000000') AS closing,
      count(*) FILTER (WHERE (time IN ('092500000', '150000000')) <> (bs_flag IS NOT DISTINCT FROM 'N')) AS bad,
      count(*) FILTER (WHERE time NOT IN ('092500000', '150000000') AND bs_flag NOT IN ('B', 'S')) AS bad_continuous
    FROM trade WHERE trade_code = 'F'`);
  assert.ok(n(r.auction) > 0, 'auction trades exist');
  assert.ok(n(r.closing) > 0, 'closing-auction trades exist');
  assert.is(n(r.bad), 0);
  assert.is(n(r.bad_continuous), 0);
  const phases = await one(
    `SELECT count(*) AS bad FROM trade WHERE trade_code = 'F' AND time NOT IN ('092500000', '150000000') AND NOT (time BETWEEN '093000000' AND '113000000' OR time BETWEEN '130000000' AND '145659999')`,
  );
  assert.is(n(phases.bad), 0, 'continuous trades fall in the two sessions, the second ending at 14:57');
});

test('the closing call auction: no fill from 14:57:00.000 to 15:00:00.000, one match at 15:00:00.000 at one price, the close', async () => {
  const r = await one(`
    SELECT count(*) FILTER (WHERE time >= '145700000' AND time < '150000000') AS in_auction,
      count(*) FILTER (WHERE time > '150000000') AS after_match,
      count(*) FILTER (WHERE time = '150000000') AS matched
    FROM trade WHERE trade_code = 'F'`);
  assert.is(n(r.in_auction), 0, 'no fill in [14:57:00.000, 15:00:00.000)');
  assert.is(n(r.after_match), 0, 'every fill at or after 15:00 is at 15:00:00.000');
  assert.ok(n(r.matched) >= 14, `${r.matched} closing fills`);
  // Per stock-day: one match price, the close of the first snapshot at or after 15:00, whose
  // volume and amount are all the day's fills, its growth over 14:57's last snapshot the match's.
  const days = await duckRows(`
    WITH m AS (
      SELECT symbol, tradedate, count(DISTINCT price) AS prices, min(price) AS price, sum(volume) AS volume
      FROM trade WHERE trade_code = 'F' AND time >= '150000000' GROUP BY ALL),
    total AS (SELECT symbol, tradedate, sum(volume) AS volume, sum(amount) AS amount FROM trade WHERE trade_code = 'F' GROUP BY ALL),
    c AS (SELECT symbol, tradedate, arg_min(close, time) AS close, arg_min(volume, time) AS volume, arg_min(amount, time) AS amount
      FROM level2 WHERE time >= '150000000' GROUP BY ALL),
    b AS (SELECT symbol, tradedate, arg_max(volume, time) AS volume FROM level2 WHERE time < '145700000' GROUP BY ALL)
    SELECT l.symbol, l.tradedate, m.prices, m.price, m.volume AS matched, c.close, c.volume AS close_volume, c.amount AS close_amount,
      total.volume AS fills_volume, total.amount AS fills_amount, b.volume AS before_volume
    FROM (SELECT DISTINCT symbol, tradedate FROM level2) l
    LEFT JOIN m USING (symbol, tradedate) LEFT JOIN c USING (symbol, tradedate) LEFT JOIN total USING (symbol, tradedate) LEFT JOIN b USING (symbol, tradedate)
    ORDER BY 1, 2`);
  assert.is(days.length, 14);
  for (const d of days) {
    const k = `${d.symbol} ${d.tradedate}`;
    assert.is(n(d.prices), 1, `${k}: one match price`);
    assert.is(n(d.price), n(d.close), `${k}: the match price is the close`);
    assert.is(n(d.close_volume), n(d.fills_volume), `${k}: the first snapshot at or after 15:00 has every fill's volume`);
    assert.ok(Math.abs(n(d.close_amount) - n(d.fills_amount)) <= 0.01, `${k}: and their amount`);
    assert.is(n(d.close_volume) - n(d.before_volume), n(d.matched), `${k}: the match is what the close adds to 14:57`);
  }
});

test('the closing call auction: snapshots from 14:57 to 15:00 keep the last continuous volume, amount, last price, high and low', async () => {
  const r = await one(`
    WITH b AS (
      SELECT symbol, tradedate, arg_max(volume, time) AS volume, arg_max(amount, time) AS amount, arg_max(close, time) AS close,
        arg_max(high, time) AS high, arg_max(low, time) AS low
      FROM level2 WHERE time < '145700000' GROUP BY ALL)
    SELECT count(*) AS snapshots,
      count(*) FILTER (WHERE l.volume <> b.volume OR l.amount <> b.amount OR l.close <> b.close OR l.high <> b.high OR l.low <> b.low) AS moved,
      count(*) FILTER (WHERE l.bid2 IS NOT NULL OR l.ask2 IS NOT NULL OR l.bid1 IS NULL OR l.bid1 <> l.ask1) AS not_level1_match,
      any_value(l.symbol || ' ' || l.tradedate || ' ' || l.time) FILTER (WHERE l.volume <> b.volume OR l.amount <> b.amount OR l.close <> b.close) AS example
    FROM level2 l JOIN b USING (symbol, tradedate)
    WHERE l.time >= '145700000' AND l.time < '150000000'`);
  assert.is(n(r.snapshots), 14 * 60, 'a snapshot every 3 s from 14:57:00 to 14:59:57 per stock-day');
  assert.is(n(r.moved), 0, String(r.example));
  assert.is(n(r.not_level1_match), 0, 'level 1 carries the indicative match, levels 2–10 are null');
});

test('cancellations: Shenzhen as C trade records, Shanghai and Beijing as D orders; a cancelled remainder never trades', async () => {
  const c = await one(`
    SELECT count(*) AS n,
      count(*) FILTER (WHERE split_part(t.symbol, '.', 2) <> 'SZ') AS not_sz,
      count(*) FILTER (WHERE t.price <> 0 OR t.amount <> 0 OR t.bs_flag IS NOT NULL) AS bad_values,
      count(*) FILTER (WHERE (t.buy_order_id IS NULL) = (t.sell_order_id IS NULL)) AS not_one_order,
      count(*) FILTER (WHERE o.order_id IS NULL OR o.side <> CASE WHEN t.buy_order_id IS NULL THEN 'S' ELSE 'B' END OR o.time > t.time) AS bad_order
    FROM trade t LEFT JOIN orders o ON o.symbol = t.symbol AND o.tradedate = t.tradedate AND o.order_id = coalesce(t.buy_order_id, t.sell_order_id)
    WHERE t.trade_code = 'C'`);
  assert.ok(n(c.n) > 0, 'Shenzhen cancellations exist');
  assert.equal([n(c.not_sz), n(c.bad_values), n(c.not_one_order), n(c.bad_order)], [0, 0, 0, 0]);
  const d = await one(`
    SELECT count(*) AS n,
      count(*) FILTER (WHERE split_part(d.symbol, '.', 2) = 'SZ') AS in_sz,
      count(*) FILTER (WHERE o.order_id IS NULL OR o.side <> d.side OR o.price IS DISTINCT FROM d.price OR o.time > d.time) AS bad_original
    FROM orders d LEFT JOIN orders o ON o.symbol = d.symbol AND o.tradedate = d.tradedate AND o.order_no = d.order_no AND o.order_type <> 'D'
    WHERE d.order_type = 'D'`);
  assert.ok(n(d.n) > 0, 'Shanghai/Beijing deletions exist');
  assert.equal([n(d.in_sz), n(d.bad_original)], [0, 0]);
  // The cancelled order (found by id for C, by order_no for D): fills before + cancelled ≤ its volume, no fill after.
  const after = await one(`
    WITH cancels AS (
      SELECT t.symbol, t.tradedate, coalesce(t.buy_order_id, t.sell_order_id) AS id, t.time, t.volume FROM trade t WHERE t.trade_code = 'C'
      UNION ALL
      SELECT d.symbol, d.tradedate, o.order_id, d.time, d.volume FROM orders d
      JOIN orders o ON o.symbol = d.symbol AND o.tradedate = d.tradedate AND o.order_no = d.order_no AND o.order_type <> 'D'
      WHERE d.order_type = 'D'),
    fills AS (
      SELECT symbol, tradedate, buy_order_id AS id, time, volume FROM trade WHERE trade_code = 'F'
      UNION ALL SELECT symbol, tradedate, sell_order_id, time, volume FROM trade WHERE trade_code = 'F')
    SELECT count(*) AS cancels,
      count(*) FILTER (WHERE (SELECT count(*) FROM fills f WHERE f.symbol = c.symbol AND f.tradedate = c.tradedate AND f.id = c.id AND f.time > c.time) > 0) AS traded_after,
      count(*) FILTER (WHERE (SELECT coalesce(sum(f.volume), 0) FROM fills f WHERE f.symbol = c.symbol AND f.tradedate = c.tradedate AND f.id = c.id) + c.volume
        > (SELECT o.volume FROM orders o WHERE o.symbol = c.symbol AND o.tradedate = c.tradedate AND o.order_id = c.id)) AS over
    FROM cancels c`);
  assert.is(n(after.cancels), n(c.n) + n(d.n));
  assert.equal([n(after.traded_after), n(after.over)], [0, 0]);
});

test('order types and fields: market orders without price or amount, U only in Shenzhen, order_no and amount by exchange', async () => {
  const r = await one(`
    SELECT count(*) FILTER (WHERE order_type = 'M') AS market,
      count(*) FILTER (WHERE order_type IN ('M', 'U') AND (price IS NOT NULL OR amount IS NOT NULL)) AS priced_market,
      count(*) FILTER (WHERE order_type = 'U' AND split_part(symbol, '.', 2) <> 'SZ') AS u_outside_sz,
      count(*) FILTER (WHERE order_type = 'L' AND price IS NULL) AS unpriced_limit,
      count(*) FILTER (WHERE split_part(symbol, '.', 2) = 'SZ' AND (order_no IS NOT NULL OR amount IS NOT NULL)) AS sz_extras,
      count(*) FILTER (WHERE split_part(symbol, '.', 2) <> 'SZ' AND (order_no IS NULL OR order_no = order_id)) AS sh_without_no,
      count(*) FILTER (WHERE split_part(symbol, '.', 2) <> 'SZ' AND order_type = 'L' AND abs(amount - price * volume) > 0.005) AS sh_amount
    FROM orders`);
  assert.ok(n(r.market) > 0);
  assert.equal([n(r.priced_market), n(r.u_outside_sz), n(r.unpriced_limit), n(r.sz_extras), n(r.sh_without_no), n(r.sh_amount)], [0, 0, 0, 0, 0, 0]);
});

test('files: one row per id, in time then id order, ids increasing with time', async () => {
  for (const [view, id] of [
    ['trade', 'trade_id'],
    ['orders', 'order_id'],
  ] as const) {
    const dataset = view === 'orders' ? 'order' : 'trade';
    const r = await one(`
      WITH f AS (SELECT filename, file_row_number AS rn, time, ${id} AS id FROM read_parquet(${glob(dataset)}, filename = true, file_row_number = true)),
      w AS (SELECT *, lag(time) OVER (PARTITION BY filename ORDER BY rn) AS pt, lag(id) OVER (PARTITION BY filename ORDER BY rn) AS pid FROM f)
      SELECT count(*) AS rows, count(DISTINCT filename || '#' || id) AS ids,
        count(*) FILTER (WHERE time < pt OR (time = pt AND id <= pid)) AS out_of_order,
        count(*) FILTER (WHERE id < pid) AS id_decreasing
      FROM w`);
    assert.is(n(r.ids), n(r.rows), `${dataset}: one row per id`);
    assert.is(n(r.out_of_order), 0, `${dataset}: time, then id order`);
    assert.is(n(r.id_decreasing), 0, `${dataset}: sequence numbers increase with time`);
  }
});

test('doctor --deep decodes every trade, order and snapshot file and finds nothing wrong', async () => {
  const r = await runCli(['doctor', '--deep', '--data-dir', data]);
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /catalog: 42 files/); // 7 stocks × 2 days × level2, trade, order
  assert.match(r.stdout, /ok: no problems in 42 files/);
});

test.run();
