/**
 * tick_history end to end over HTTP: compatible, enhanced and boundary modes on replayed
 * generated data spanning January→February 2025 and the Spring Festival closure. Every
 * result is compared with DuckDB reading the sealed files (and the compatible day with the
 * feed lines themselves).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ServerHandle } from '../../support/server.js';
import {
  account,
  expectedBoundary,
  expectedCount,
  expectedRows,
  feedRows,
  FIELDS,
  symbolWhere,
  tick,
  tickData,
  tickServer,
  timeWhere,
  type TickData,
} from './support.js';

let server: ServerHandle;
let key: string;
let d: TickData;
const FEB = "tradedate BETWEEN '20250201' AND '20250214'";

function setup(s: ReturnType<typeof suite>): void {
  s.before(async () => {
    d = await tickData();
    server ??= await tickServer();
    key ??= await account('flagship');
  });
}

// ---------------------------------------------------------------------------------------
const compatible = suite('tick_history compatible mode');
setup(compatible);

compatible('the fixture spans the month boundary and the holiday', () => {
  assert.equal(d.days, [
    '20250120',
    '20250121',
    '20250122',
    '20250123',
    '20250124',
    '20250127',
    '20250205',
    '20250206',
    '20250207',
    '20250210',
    '20250211',
    '20250212',
    '20250213',
    '20250214',
  ]);
  assert.is(d.symbols.length, 6);
});

compatible('symbol + tradedate: the whole day ascending, no row limit, every field', async () => {
  const sym = d.symbols[2];
  const res = await tick(server, key, { symbol: sym, tradedate: '20250127' });
  assert.is(res.status, 200);
  assert.is(res.json.code, 200);
  assert.is(res.json.message, 'success');
  const data = res.json.data!;
  assert.equal(data.fields, [...FIELDS]);
  assert.equal(Object.keys(data), ['fields', 'items']);
  const expected = await expectedRows({ where: `tradedate = '20250127' AND symbol = '${sym}'` });
  assert.ok(expected.length > 4000, 'a full generated day');
  assert.is(data.items.length, expected.length);
  assert.equal(data.items, expected);
});

compatible('rows equal the feed lines, with pre_close and pct_chg reported null', async () => {
  const sym = d.symbols[0];
  const [res, feed] = await Promise.all([tick(server, key, { symbol: sym, tradedate: '20250205' }), feedRows(sym, '20250205')]);
  const items = res.json.data!.items;
  assert.is(items.length, feed.length);
  const fromFeed = [...feed].sort((a, b) => String(a.time).localeCompare(String(b.time)));
  assert.ok(
    fromFeed.some((o) => o.pre_close !== null && o.pct_chg !== null),
    'the feed carries pre_close/pct_chg',
  );
  items.forEach((row, i) => {
    FIELDS.forEach((f, c) => {
      const want = f === 'pre_close' || f === 'pct_chg' ? null : (fromFeed[i][f] ?? null);
      assert.is(row[c], want, `row ${i} ${f}`);
    });
  });
});

compatible('no date parameter: the latest trading day (20250214)', async () => {
  const res = await tick(server, key, { symbol: d.symbols[1], asset: 'index' });
  const items = res.json.data!.items;
  assert.ok(items.length > 0);
  assert.ok(items.every((r) => r[0] === '20250214'));
  assert.equal(items, await expectedRows({ where: `tradedate = '20250214' AND symbol = '${d.symbols[1]}'` }));
});

compatible('fields picks and orders columns; pre_close stays null', async () => {
  const sym = d.symbols[3];
  const res = await tick(server, key, { symbol: sym, tradedate: '20250121' }, 'time,close,pre_close,transaction_num,time');
  const data = res.json.data!;
  assert.equal(data.fields, ['time', 'close', 'pre_close', 'transaction_num']);
  assert.equal(
    data.items,
    await expectedRows({ where: `tradedate = '20250121' AND symbol = '${sym}'`, fields: ['time', 'close', 'pre_close', 'transaction_num'] }),
  );
});

compatible('a holiday, an unknown index, a day not stored: 200 no data with fields listed', async () => {
  for (const [params, message] of [
    [{ symbol: d.symbols[0], tradedate: '20250130' }, 'no data; 20250130 is not a trading day'],
    [{ symbol: '999999', tradedate: '20250121' }, 'no data; index 999999 is not stored for 20250121'],
    [{ symbol: d.symbols[0], tradedate: '20250217' }, 'no data; 20250217 is after the latest trading day 20250214'],
  ] as const) {
    const res = await tick(server, key, params);
    assert.is(res.status, 200);
    assert.is(res.json.message, message);
    assert.equal(res.json.data!.items, []);
    assert.equal(res.json.data!.fields, [...FIELDS]);
  }
});

compatible.run();

// ---------------------------------------------------------------------------------------
const enhanced = suite('tick_history enhanced plain detail');
setup(enhanced);

enhanced('several symbols, one day: default limit 6000, sorted by time then symbol', async () => {
  const syms = [d.symbols[4], d.symbols[0]];
  const res = await tick(server, key, { symbols: `${syms[0]},${syms[1]}`, tradedate: '20250122' });
  assert.is(res.json.message, 'success');
  const data = res.json.data!;
  assert.is(data.limit, 6000);
  assert.is(data.offset, 0);
  assert.is(data.has_more, true);
  assert.equal(data.items, await expectedRows({ where: `tradedate = '20250122' AND ${symbolWhere(syms)}`, limit: 6000 }));
});

enhanced('a range over months reads the end month only and says so; deep offset', async () => {
  const syms = d.symbols.slice(0, 4);
  const res = await tick(server, key, {
    symbols: [...syms, syms[0]],
    startdate: '20250120',
    enddate: '20250214',
    offset: 100_003,
    limit: 777,
  });
  assert.is(res.json.message, 'success; requested 20250120-20250214, effective 20250201-20250214');
  const data = res.json.data!;
  assert.is(data.offset, 100_003);
  assert.is(data.limit, 777);
  assert.equal(data.items, await expectedRows({ where: `${FEB} AND ${symbolWhere(syms)}`, limit: 777, offset: 100_003 }));
  assert.ok(data.items.every((r) => String(r[0]) >= '20250205'));
});

enhanced('a page crossing from one day into the next, ascending and descending', async () => {
  const syms = d.symbols.slice(1, 4);
  const perDay = await expectedCount(`tradedate = '20250205' AND ${symbolWhere(syms)}`);
  for (const order_dir of ['asc', 'desc'] as const) {
    const res = await tick(server, key, { symbols: syms, startdate: '20250205', enddate: '20250207', order_dir, offset: perDay - 100, limit: 300 });
    const items = res.json.data!.items;
    assert.equal(
      items,
      await expectedRows({ where: `tradedate BETWEEN '20250205' AND '20250207' AND ${symbolWhere(syms)}`, order: order_dir, limit: 300, offset: perDay - 100 }),
    );
    assert.is(new Set(items.map((r) => r[0])).size, 2, `${order_dir} page spans two days`);
  }
});

enhanced('start_time included, end_time excluded, to the millisecond', async () => {
  const syms = d.symbols.slice(0, 3);
  const res = await tick(server, key, { symbols: syms, recentdays: 3, start_time: '10:00:01.500', end_time: '10:05:00', limit: 6000 });
  assert.is(res.json.message, 'success; requested 20250212-20250214, effective 20250212-20250214');
  const where = `tradedate BETWEEN '20250212' AND '20250214' AND ${symbolWhere(syms)} AND ${timeWhere('10:00:01.500', '10:05:00.000')}`;
  assert.equal(res.json.data!.items, await expectedRows({ where }));
  assert.is(res.json.data!.has_more, false);
  // A row exactly at a bound: start includes it, end excludes it.
  const first = res.json.data!.items[0];
  const exact = String(first[2]).slice(11);
  const incl = await tick(server, key, { symbols: syms, tradedate: String(first[0]), start_time: exact, end_time: '10:05:00', limit: 1 });
  assert.equal(incl.json.data!.items[0], first);
  const excl = await tick(server, key, { symbols: syms, tradedate: String(first[0]), start_time: '10:00:00', end_time: exact });
  assert.ok(excl.json.data!.items.every((r) => String(r[2]).slice(11) < exact));
});

enhanced('every time form of either operation is accepted, with the same meaning (start included, end excluded)', async () => {
  const syms = d.symbols.slice(0, 3);
  const where = `tradedate = '20250213' AND ${symbolWhere(syms)} AND ${timeWhere('10:00:00.000', '10:05:00.000')}`;
  const expected = await expectedRows({ where });
  assert.ok(expected.length > 0);
  for (const [start_time, end_time] of [
    ['10:00', '10:05'],
    ['10:00:00', '10:05:00'],
    ['10:00:00.000', '10:05:00.000'],
    ['100000', '100500'],
    ['100000000', '100500000'],
    ['10:00', '100500000'],
  ]) {
    const res = await tick(server, key, { symbols: syms, tradedate: '20250213', start_time, end_time });
    assert.equal(res.json.data!.items, expected, `${start_time}..${end_time}`);
  }
  const ms = await tick(server, key, { symbols: syms, tradedate: '20250213', start_time: '100001500', end_time: '10:05:00.250' });
  assert.equal(
    ms.json.data!.items,
    await expectedRows({ where: `tradedate = '20250213' AND ${symbolWhere(syms)} AND ${timeWhere('10:00:01.500', '10:05:00.250')}` }),
  );
});

enhanced('trademin alone: the whole minute over recentdays (fewer days after the month cut)', async () => {
  const res = await tick(server, key, { symbols: d.symbols.join(','), recentdays: 10, trademin: '1000', order_dir: 'desc' });
  assert.is(res.json.message, 'success; requested 20250124-20250214, effective 20250201-20250214');
  const items = res.json.data!.items;
  assert.equal(items, await expectedRows({ where: `${FEB} AND ${timeWhere('10:00:00.000', '10:01:00.000')}`, order: 'desc' }));
  assert.is(new Set(items.map((r) => r[0])).size, 8, '8 of the 10 trading days are in February');
});

enhanced('limit above 6000 is served as 6000; paging to the end; has_more false', async () => {
  const syms = d.symbols.slice(0, 2);
  const total = await expectedCount(`tradedate = '20250210' AND ${symbolWhere(syms)}`);
  const big = await tick(server, key, { symbols: syms, tradedate: '20250210', limit: 50_000 });
  assert.is(big.json.data!.limit, 6000);
  assert.is(big.json.data!.items.length, 6000);
  const last = await tick(server, key, { symbols: syms, tradedate: '20250210', offset: 6000, limit: 6000 });
  assert.is(last.json.data!.items.length, total - 6000);
  assert.is(last.json.data!.has_more, false);
  assert.equal([...big.json.data!.items, ...last.json.data!.items], await expectedRows({ where: `tradedate = '20250210' AND ${symbolWhere(syms)}` }));
  const past = await tick(server, key, { symbols: syms, tradedate: '20250210', offset: total + 5 });
  assert.is(past.json.message, 'success');
  assert.equal(past.json.data!.items, []);
  assert.is(past.json.data!.has_more, false);
});

enhanced('symbol with an enhanced parameter is a one-symbol list; fields apply', async () => {
  const sym = d.symbols[5];
  const res = await tick(server, key, { symbol: sym, tradedate_offset: -1, limit: 10, offset: 5 }, 'symbol,time,vol,pct_chg');
  const data = res.json.data!;
  assert.is(res.json.message, 'success');
  assert.equal(data.fields, ['symbol', 'time', 'vol', 'pct_chg']);
  assert.equal(data.items, await expectedRows({ where: `tradedate = '20250213' AND symbol = '${sym}'`, limit: 10, offset: 5, fields: data.fields }));
});

enhanced('enddate alone is that one day, with the range message', async () => {
  const res = await tick(server, key, { symbols: d.symbols.slice(0, 2), enddate: '20250121', limit: 100 });
  assert.is(res.json.message, 'success; requested 20250121-20250121, effective 20250121-20250121');
  assert.ok(res.json.data!.items.every((r) => r[0] === '20250121'));
});

enhanced('an end month without data gives no data and names both ranges', async () => {
  for (const [params, message] of [
    // 1 to 3 February 2025: a weekend and the Spring Festival closure.
    [
      { startdate: '20250127', enddate: '20250203' },
      'no data; requested 20250127-20250203, effective 20250201-20250203; the effective range holds no trading day',
    ],
    [
      { startdate: '20250120', enddate: '20250303' },
      'no data; requested 20250120-20250303, effective 20250301-20250303; the effective range begins after the latest trading day 20250214',
    ],
  ] as const) {
    const res = await tick(server, key, { symbols: d.symbols[0], ...params });
    assert.is(res.status, 200);
    assert.is(res.json.message, message);
    assert.equal(res.json.data!.items, []);
    assert.is(res.json.data!.has_more, false);
    assert.equal(res.json.data!.fields, [...FIELDS]);
  }
});

enhanced.run();

// ---------------------------------------------------------------------------------------
const boundary = suite('tick_history boundary snapshots');
setup(boundary);

boundary('before/after a minute, whole market when symbols is omitted, sorted by symbol', async () => {
  for (const side of ['before', 'after'] as const) {
    const res = await tick(server, key, { trademin: '1030', side, tradedate: '20250121' });
    assert.is(res.json.message, 'success');
    // Boundary answers page like enhanced ones (api-contract: tick_history): limit, offset and has_more follow.
    assert.equal(Object.keys(res.json.data!), ['fields', 'items', 'limit', 'offset', 'has_more']);
    const items = res.json.data!.items;
    assert.is(items.length, d.symbols.length);
    assert.equal(items, await expectedBoundary('20250121', '1030', side));
  }
});

boundary('listed symbols only; before is strictly earlier, after is at or later', async () => {
  const syms = [d.symbols[3], d.symbols[1]];
  const res = await tick(server, key, { symbols: syms, trademin: '1337', side: 'after', tradedate: '20250211' });
  assert.equal(res.json.data!.items, await expectedBoundary('20250211', '1337', 'after', syms));
  assert.ok(res.json.data!.items.every((r) => String(r[2]).slice(11) >= '13:37:00.000'));
  const before = await tick(server, key, { symbols: syms, trademin: '1337', side: 'before', tradedate: '20250211' });
  assert.ok(before.json.data!.items.every((r) => String(r[2]).slice(11) < '13:37:00.000'));
});

boundary('over the lunch break, at the open and after the close', async () => {
  for (const [hhmm, side] of [
    ['1200', 'before'],
    ['1200', 'after'],
    ['0925', 'after'],
    ['1501', 'before'],
    ['0900', 'after'],
    ['2359', 'before'],
  ] as const) {
    const res = await tick(server, key, { trademin: hhmm, side, tradedate: '20250207' });
    assert.equal(res.json.data!.items, await expectedBoundary('20250207', hhmm, side), `${hhmm} ${side}`);
    assert.is(res.json.data!.items.length, d.symbols.length);
  }
});

boundary('no qualifying snapshot: the index is left out, no data when none has one', async () => {
  for (const [hhmm, side, message] of [
    ['0925', 'before', 'no data; no snapshot before 09:25 on 20250207'],
    ['1501', 'after', 'no data; no snapshot at or after 15:01 on 20250207'],
  ] as const) {
    const res = await tick(server, key, { trademin: hhmm, side, tradedate: '20250207' });
    assert.is(res.json.message, message);
    assert.equal(res.json.data!.items, []);
  }
});

boundary('limit and offset page the boundary rows by symbol; trademin HH:MM equals HHMM', async () => {
  const all = await expectedBoundary('20250211', '1337', 'after');
  assert.ok(all.length >= 3, `${all.length} boundary rows`);
  const whole = await tick(server, key, { trademin: '1337', side: 'after', tradedate: '20250211' });
  assert.equal(whole.json.data!.items, all);
  assert.equal([whole.json.data!.limit, whole.json.data!.offset, whole.json.data!.has_more], [6000, 0, false]);
  // Clients in the field send limit: 200 with every boundary query.
  const client = await tick(server, key, { trademin: '13:37', side: 'after', tradedate: '20250211', limit: 200 });
  assert.equal(client.json.data!.items, all);
  const pages: unknown[][] = [];
  for (let offset = 0; ; offset += 2) {
    const page = await tick(server, key, { trademin: '1337', side: 'after', tradedate: '20250211', limit: 2, offset });
    assert.is(page.status, 200);
    assert.equal(page.json.data!.items, all.slice(offset, offset + 2), `offset ${offset}`);
    assert.is(page.json.data!.has_more, offset + 2 < all.length, `has_more at ${offset}`);
    pages.push(...page.json.data!.items);
    if (!page.json.data!.has_more) break;
  }
  assert.equal(pages, all);
  // Past the end: success with no rows (there are boundary rows, just not on this page).
  const past = await tick(server, key, { trademin: '1337', side: 'after', tradedate: '20250211', offset: all.length });
  assert.equal([past.json.message, past.json.data!.items.length, past.json.data!.has_more], ['success', 0, false]);
  const before = await tick(server, key, { trademin: '13:37', side: 'before', tradedate: '20250211' }, 'symbol,time');
  assert.equal(
    before.json.data!.items,
    (await expectedBoundary('20250211', '1337', 'before')).map((r) => [r[1], r[2]]),
  );
});

boundary('latest day by default; one-day enddate and tradedate_offset; symbol alone is a list', async () => {
  const latest = await tick(server, key, { trademin: '1415', side: 'before' }, 'symbol,time,close');
  assert.equal(
    latest.json.data!.items,
    (await expectedBoundary('20250214', '1415', 'before')).map((r) => [r[1], r[2], r[6]]),
  );
  const one = await tick(server, key, { symbol: d.symbols[2], trademin: '1415', side: 'after', enddate: '20250213' });
  assert.is(one.json.message, 'success; requested 20250213-20250213, effective 20250213-20250213');
  assert.equal(one.json.data!.items, await expectedBoundary('20250213', '1415', 'after', [d.symbols[2]]));
  const off = await tick(server, key, { trademin: '1415', side: 'after', tradedate_offset: -8 });
  assert.equal(off.json.data!.items, await expectedBoundary('20250127', '1415', 'after'));
});

boundary('a day not stored: no data', async () => {
  const res = await tick(server, key, { trademin: '1030', side: 'before', tradedate: '20250131' });
  assert.is(res.json.message, 'no data; 20250131 is not a trading day');
  const notStored = await tick(server, key, { symbols: '999999', trademin: '1030', side: 'before', tradedate: '20250207' });
  assert.is(notStored.json.message, 'no data; none of the requested indexes is stored for 20250207');
  assert.equal(res.json.data!.items, []);
});

boundary.after(async () => {
  await server?.stop();
});

boundary.run();
