import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../../support/cli.js';
import { duckRows, sqlString } from '../../support/duckdb.js';
import { tempDir } from '../../support/tempDir.js';
import {
  assertDataDirMatches,
  assertRowsEqual,
  catalogFiles,
  COLUMNS,
  describeFile,
  duckType,
  expectedFromLines,
  feedFileLines,
  filesOnDisk,
  quarantine,
  readParquet,
  relPath,
  sha256,
  type Expected,
} from './replayReference.js';

const root = tempDir('tickvault-replay-');

async function cli(args: string[]): Promise<{ stdout: string; stderr: string }> {
  const r = await runCli(args);
  if (r.code !== 0) assert.unreachable(`tickvault ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return r;
}

/** Parses the replay summary line into its counts. */
function summary(stdout: string): { lines: number; staged: number; quarantined: number; late: number } {
  const m = /replayed (\d+) lines: (\d+) staged, (\d+) quarantined \((\d+) late\)/.exec(stdout);
  assert.ok(m, `replay summary: ${stdout}`);
  return { lines: +m![1], staged: +m![2], quarantined: +m![3], late: +m![4] };
}

function assertQuarantine(dataDir: string, feed: string, exp: Expected, what: string): void {
  const q = quarantine(dataDir);
  assert.is(q.length, exp.badLines.length, `${what}: quarantine count`);
  assert.equal(q.map((r) => r.source).sort(), exp.badLines.map((n) => `${feed}:${n}`).sort(), `${what}: quarantine sources`);
  for (const r of q) {
    const n = Number(r.source.slice(feed.length + 1));
    assert.is(r.raw, exp.lines[n - 1], `${what}: raw text of ${r.source}`);
    assert.type(r.reason, 'string');
    assert.ok(r.reason.length > 3 && !r.reason.startsWith('late'), `${what}: reason of ${r.source}: ${r.reason}`);
  }
}

// =============================================================================================
// A generated multi-day feed with faults, end to end through the CLI.
// =============================================================================================
const gen = suite('replay: generated feed with faults (2 days, 5 stocks with their trades and orders, 3 indexes)');

const G = {
  dir: join(root, 'gen'),
  data: join(root, 'gen', 'data'),
  feed: join(root, 'gen-feed.jsonl.zst'),
  exp: null as Expected | null,
  firstStdout: '',
};

gen.before(async () => {
  await cli(['generate', '--out', G.feed, '--from', '20250102', '--days', '2', '--stocks', '5', '--indexes', '3', '--faults', '0.01', '--seed', 'replay-test']);
  G.exp = expectedFromLines(feedFileLines(G.feed));
  G.firstStdout = (await cli(['replay', G.feed, '--data-dir', G.data])).stdout;
});

gen('the feed is what the test expects: both days, all symbols, bad lines and duplicates present', () => {
  const exp = G.exp!;
  // level2, trade and order files of every stock, index files of every index, both days
  assert.is(exp.files.size, 2 * (5 * 3 + 3));
  for (const ds of ['trade', 'order'])
    assert.ok(
      [...exp.files.values()].some((f) => f.dataset === ds),
      `${ds} files expected`,
    );
  assert.ok(exp.badLines.length > 100, `bad lines: ${exp.badLines.length}`);
  const good = exp.goodLines.size;
  const distinct = [...exp.files.values()].reduce((a, f) => a + f.rows.length, 0);
  assert.ok(good - distinct > 100, `duplicates: ${good - distinct}`);
});

gen('every file read by DuckDB equals the feed: values, nulls, order; catalog, sealed days, calendar', async () => {
  await assertDataDirMatches(G.data, G.exp!, 'generated');
});

gen('the summary counts the lines the test counted', () => {
  const s = summary(G.firstStdout);
  const exp = G.exp!;
  assert.is(s.lines, exp.lineCount);
  assert.is(s.quarantined, exp.badLines.length);
  assert.is(s.staged, exp.goodLines.size);
  assert.is(s.late, 0);
});

gen('the quarantine holds every bad line once with file:line, its raw text and a reason', () => {
  assertQuarantine(G.data, G.feed, G.exp!, 'generated');
});

gen('columns, their order and types are the spec fields, nothing more (DESCRIBE)', async () => {
  for (const f of G.exp!.files.values()) {
    const d = await describeFile(join(G.data, relPath(f)));
    assert.equal(
      d,
      COLUMNS[f.dataset].map((c) => [c, duckType(c)]),
      relPath(f),
    );
  }
});

gen('call-auction rows keep levels 2–10 null and index pre_close/pct_chg are null in the files', async () => {
  const l2 = [...G.exp!.files.values()].find((f) => f.dataset === 'level2')!;
  const rows = await duckRows(
    `SELECT count(*) AS n, count(bid2) AS b2, count(ask_vol10) AS av10, count(bid1) AS b1
     FROM read_parquet(${sqlString(join(G.data, relPath(l2)))}, hive_partitioning=false) WHERE time < '092500000'`,
  );
  assert.ok(Number(rows[0].n) > 150);
  assert.is(Number(rows[0].b2), 0);
  assert.is(Number(rows[0].av10), 0);
  assert.is(Number(rows[0].b1), Number(rows[0].n));
  const idx = await duckRows(
    `SELECT count(pre_close) AS pc, count(pct_chg) AS pct, count(*) AS n FROM read_parquet(${sqlString(join(G.data, 'index/date=*/*.parquet'))})`,
  );
  assert.is(Number(idx[0].pc), 0);
  assert.is(Number(idx[0].pct), 0);
  assert.ok(Number(idx[0].n) > 9000);
});

gen('read_parquet over a dataset directory with hive_partitioning works and adds up', async () => {
  const exp = G.exp!;
  for (const ds of ['level2', 'index'] as const) {
    const glob = join(G.data, ds, 'date=*', '*.parquet');
    const got = await duckRows(
      `SELECT CAST(date AS VARCHAR) AS d, symbol, count(*) AS n, min(time) AS first, max(time) AS last
       FROM read_parquet(${sqlString(glob)}, hive_partitioning=true) GROUP BY ALL ORDER BY d, symbol`,
    );
    const want = [...exp.files.values()]
      .filter((f) => f.dataset === ds)
      .sort((a, b) => (a.tradedate + a.symbol < b.tradedate + b.symbol ? -1 : 1))
      .map((f) => ({ d: f.tradedate, symbol: f.symbol, n: BigInt(f.rows.length), first: f.rows[0].time, last: f.rows[f.rows.length - 1].time }));
    assert.equal(got, want, ds);
    // the partition column agrees with the tradedate column everywhere
    const mismatch = await duckRows(
      `SELECT count(*) AS n FROM read_parquet(${sqlString(glob)}, hive_partitioning=true) WHERE CAST(date AS VARCHAR) <> tradedate`,
    );
    assert.is(Number(mismatch[0].n), 0);
  }
});

gen('replaying the same feed again: every good line is late, bad lines keep their reasons, no file changes', async () => {
  const exp = G.exp!;
  const before = new Map(
    filesOnDisk(G.data).map((p) => {
      const st = statSync(join(G.data, p));
      return [p, { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, sha: sha256(join(G.data, p)) }];
    }),
  );
  const catBefore = catalogFiles(G.data);
  const qBefore = quarantine(G.data).length;
  // Nothing staged: the summary still prints, and the replay says so loudly and exits 1.
  const out = await runCli(['replay', G.feed, '--data-dir', G.data]);
  assert.is(out.code, 1, out.stderr);
  assert.match(
    out.stderr,
    new RegExp(
      `^tickvault replay: nothing staged: all ${exp.lineCount} lines were quarantined \\(${exp.goodLines.size} late: their days were already sealed\\); reasons in the quarantine table of .*ingest\\.db\n$`,
    ),
  );
  const s = summary(out.stdout);
  assert.is(s.lines, exp.lineCount);
  assert.is(s.staged, 0);
  assert.is(s.late, exp.goodLines.size);
  assert.is(s.quarantined, exp.lineCount);

  const after = new Map(
    filesOnDisk(G.data).map((p) => {
      const st = statSync(join(G.data, p));
      return [p, { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, sha: sha256(join(G.data, p)) }];
    }),
  );
  assert.equal(after, before, 'files, sizes, mtimes, inodes and contents unchanged');
  assert.equal(catalogFiles(G.data), catBefore, 'catalog rows unchanged');

  const q = quarantine(G.data).slice(qBefore);
  assert.is(q.length, exp.lineCount);
  const late = q.filter((r) => /late/i.test(r.reason));
  assert.is(late.length, exp.goodLines.size, 'every good line is quarantined as late');
  for (const r of late) {
    const n = Number(r.source.slice(G.feed.length + 1));
    assert.ok(exp.goodLines.has(n), `late entry ${r.source} is a good line`);
  }
  const notLate = q
    .filter((r) => !/late/i.test(r.reason))
    .map((r) => r.source)
    .sort();
  assert.equal(notLate, exp.badLines.map((n) => `${G.feed}:${n}`).sort(), 'bad lines are quarantined for their own reasons');
  await assertDataDirMatches(G.data, exp, 'after a second replay');
});

// =============================================================================================
// A hand-written feed: one of every bad kind, duplicates, symbol forms, disorder.
// =============================================================================================
const hand = suite('replay: hand-written feed');

const D = '20250106';
const idxT = (hms: string) => `2025-01-06 ${hms}`;
const l2 = (o: Record<string, unknown>) => JSON.stringify({ kind: 'level2', tradedate: D, ...o });
const ix = (o: Record<string, unknown>) => JSON.stringify({ kind: 'index', tradedate: D, ...o });
const tr = (o: Record<string, unknown>) => JSON.stringify({ kind: 'trade', tradedate: D, ...o });
const od = (o: Record<string, unknown>) => JSON.stringify({ kind: 'order', tradedate: D, ...o });

/** [line, expected: 'ok', 'blank' (ignored) or a regex the quarantine reason must match] */
const HAND: [string, 'ok' | 'blank' | RegExp][] = [
  // 600000.SH in four spellings, out of order, with a duplicate whose later line wins
  [l2({ symbol: '600000', time: '093006000', close: 10.02, open: 10, volume: 300, amount: 3006 }), 'ok'],
  [l2({ symbol: 'sh600000', time: '093000000', close: 10.01, open: 10, volume: 100, amount: 1001 }), 'ok'],
  [l2({ symbol: '600000.XSHG', time: '093003000', close: 9.99, open: 10, volume: 200, amount: 2000 }), 'ok'],
  [l2({ symbol: '600000.SH', time: '093003000', close: 10.0, open: 10, volume: 200, amount: 2001, bid1: 9.99, bid_vol1: 500 }), 'ok'],
  [l2({ symbol: 'SH600000', time: '091500000', bid1: 10.0, ask1: 10.0, bid_vol1: 1000, ask_vol1: 1200, pre_close: 9.9 }), 'ok'],
  // 000001 the stock and 000001 the index stay apart
  [l2({ symbol: '000001', time: '093000000', close: 11.5, volume: 0, amount: 0, ask10: 11.6 }), 'ok'],
  [l2({ symbol: 'sz000001', time: '093000000', close: 11.52, volume: 0, amount: 0 }), 'ok'], // duplicate, later wins
  [
    ix({
      symbol: '000001',
      time: idxT('09:30:00.000'),
      open: 3200.1,
      close: 3200.5,
      pre_close: 3190,
      pct_chg: 0.33,
      vol: 1e9,
      amount: 1.5e10,
      transaction_num: 1000,
      bid1: 3200.4,
    }),
    'ok',
  ],
  [ix({ symbol: '000001', time: idxT('09:25:00.120'), open: 3200.1, close: 3200.1, transaction_num: null }), 'ok'],
  [ix({ symbol: '000001', time: idxT('09:30:00.000'), open: 3200.1, close: 3200.6, vol: 1e9, amount: 1.5e10, transaction_num: 1001 }), 'ok'], // dup, later wins
  // BJ stock, every numeric missing
  [l2({ symbol: 'BJ830799', time: '100000500' }), 'ok'],
  [l2({ symbol: '920000', time: '100000500', close: 5.5 }), 'ok'],
  ['', 'blank'],
  ['   ', 'blank'],
  // the first and last millisecond of the day; large and small magnitudes survive exactly
  [l2({ symbol: '300750.SZ', time: '235959999', amount: 123456789012.34, volume: 1e15, bid1: 0.001, ask1: 1e-7 }), 'ok'],
  [l2({ symbol: '300750.SZ', time: '000000000', close: 0.01, amount: 9007199254740991 }), 'ok'],
  // ---- bad lines, one of every kind ----
  ['{"kind":"level2","symbol":"600000.SH", truncated', /JSON/i],
  ['[1,2,3]', /object/i],
  [JSON.stringify({ tradedate: D, symbol: '600000', time: '093009000' }), /kind/],
  [JSON.stringify({ kind: 'futures', tradedate: D, symbol: 'IF2501', time: '093009000' }), /kind/],
  [l2({ time: '093009000', close: 1 }), /symbol/],
  [l2({ symbol: 'ABC123', time: '093009000' }), /symbol/],
  [l2({ symbol: '600000.SS', time: '093009000' }), /symbol/],
  [l2({ symbol: '../600000', time: '093009000' }), /symbol/],
  [l2({ symbol: '600000.SH/..', time: '093009000' }), /symbol/],
  [l2({ symbol: '100000', time: '093009000' }), /symbol/],
  [ix({ symbol: '000300.SH', time: idxT('09:30:03.000') }), /symbol/],
  [JSON.stringify({ kind: 'level2', symbol: '600000', time: '093009000' }), /tradedate/],
  [l2({ symbol: '600000', tradedate: '20251340', time: '093009000' }), /tradedate/],
  [l2({ symbol: '600000', tradedate: '2025-01-06', time: '093009000' }), /tradedate/],
  [l2({ symbol: '600000' }), /time/],
  [l2({ symbol: '600000', time: '25:61:00' }), /time/],
  [l2({ symbol: '600000', time: '250000000' }), /time/],
  [l2({ symbol: '600000', time: '09300900' }), /time/],
  [ix({ symbol: '000300', time: '093003000' }), /time/],
  [ix({ symbol: '000300', time: '2025-01-07 09:30:03.000' }), /tradedate|date/],
  [l2({ symbol: '600000', time: '093009000', close: 'n/a' }), /close/],
  [l2({ symbol: '600000', time: '093009000', volume: true }), /volume/],
  [l2({ symbol: '600000', time: '093009000', bid1: [1] }), /bid1/],
  [l2({ symbol: '600000', time: '093009000', ask_vol3: { v: 1 } }), /ask_vol3/],
  [ix({ symbol: '000300', time: idxT('09:30:03.000'), transaction_num: 12.5 }), /transaction_num/],
  [ix({ symbol: '000300', time: idxT('09:30:03.000'), vol: '100' }), /vol/],
  // a good index row after all the bad ones
  [ix({ symbol: '000300', time: idxT('09:30:03.000'), close: 3900.25, transaction_num: 7 }), 'ok'],
  // ---- tick-by-tick trades and orders (api-contract: Trades and orders) ----
  // three trades in one millisecond, sent out of id order; trade 12 re-sent corrected with a
  // later time (duplicates go by id, the later line wins, and its time counts)
  [
    tr({
      symbol: '000001',
      time: '092500000',
      trade_id: 12,
      price: 11.5,
      volume: 500,
      amount: 5750,
      bs_flag: 'N',
      trade_code: 'F',
      buy_order_id: 3,
      sell_order_id: 4,
    }),
    'ok',
  ],
  [
    tr({
      symbol: '000001.SZ',
      time: '093000010',
      trade_id: 21,
      price: 11.52,
      volume: 100,
      amount: 1152,
      bs_flag: 'B',
      trade_code: 'F',
      buy_order_id: 9,
      sell_order_id: 5,
    }),
    'ok',
  ],
  [
    tr({
      symbol: 'sz000001',
      time: '093000010',
      trade_id: 20,
      price: 11.51,
      volume: 200,
      amount: 2302,
      bs_flag: 'S',
      trade_code: 'F',
      buy_order_id: 6,
      sell_order_id: 8,
    }),
    'ok',
  ],
  [
    tr({
      symbol: '000001',
      time: '093000010',
      trade_id: 19,
      price: 0,
      volume: 300,
      amount: 0,
      bs_flag: null,
      trade_code: 'C',
      buy_order_id: 7,
      sell_order_id: null,
    }),
    'ok',
  ],
  [
    tr({
      symbol: '000001',
      time: '093500000',
      trade_id: 12,
      price: 11.5,
      volume: 600,
      amount: 6900,
      bs_flag: 'N',
      trade_code: 'F',
      buy_order_id: 3,
      sell_order_id: 4,
    }),
    'ok',
  ],
  // every optional member missing; an id above 2^32
  [tr({ symbol: '600000.SH', time: '100000000', trade_id: 2 ** 40 + 1 }), 'ok'],
  [od({ symbol: '600000.SH', time: '091500001', order_id: 1, price: 10, volume: 1000, amount: 10000, side: 'B', order_type: 'L', order_no: 70001 }), 'ok'],
  [od({ symbol: '600000.SH', time: '091500001', order_id: 2, price: null, volume: 300, amount: null, side: 'S', order_type: 'M', order_no: 70002 }), 'ok'],
  [od({ symbol: '600000.SH', time: '100000000', order_id: 3, price: 10, volume: 400, side: 'B', order_type: 'D', order_no: 70001 }), 'ok'],
  [od({ symbol: '600000.SH', time: '091500001', order_id: 2, price: null, volume: 200, amount: null, side: 'S', order_type: 'M', order_no: 70002 }), 'ok'], // dup, later wins
  [od({ symbol: '000001.SZ', time: '093000000', order_id: 5, volume: 100, side: 'S', order_type: 'U' }), 'ok'],
  // bad trades and orders, one of every kind
  [tr({ symbol: '000001', time: '093000010', price: 11.5, volume: 100 }), /trade_id is missing/],
  [tr({ symbol: '000001', time: '093000010', trade_id: 1.5 }), /trade_id is not an integer/],
  [tr({ symbol: '000001', time: '093000010', trade_id: '7' }), /trade_id is not a number/],
  [tr({ symbol: '000001', time: '093000010', trade_id: 7, bs_flag: 'X' }), /bs_flag must be B, S or N or null/],
  [tr({ symbol: '000001', time: '093000010', trade_id: 7, bs_flag: 'BS' }), /bs_flag/],
  [tr({ symbol: '000001', time: '093000010', trade_id: 7, trade_code: 'f' }), /trade_code must be F or C or null/],
  [tr({ symbol: '000001', time: '093000010', trade_id: 7, buy_order_id: 3.25 }), /buy_order_id is not an integer/],
  [tr({ symbol: '000001', time: '2025-01-06 09:30:00.010', trade_id: 7 }), /time is not HHMMSSmmm/],
  [tr({ symbol: 'IF2501', time: '093000010', trade_id: 7 }), /symbol/],
  [tr({ symbol: '000001', time: '093000010', trade_id: 7, price: 'x' }), /price is not a number/],
  [od({ symbol: '600000', time: '093000000', side: 'B', order_type: 'L' }), /order_id is missing/],
  [od({ symbol: '600000', time: '093000000', order_id: 9, order_type: 'L' }), /side is missing/],
  [od({ symbol: '600000', time: '093000000', order_id: 9, side: 'b', order_type: 'L' }), /side must be B or S$/],
  [od({ symbol: '600000', time: '093000000', order_id: 9, side: 'B', order_type: 'X' }), /order_type must be L, M, U or D$/],
  [od({ symbol: '600000', time: '093000000', order_id: 9, side: 'B' }), /order_type is missing/],
  [od({ symbol: '600000', time: '093000000', order_id: 9, side: 'B', order_type: 'L', order_no: 1e300 }), /order_no is not an integer/],
];

const H = { data: join(root, 'hand', 'data'), feed: join(root, 'hand-feed.jsonl'), exp: null as Expected | null, stdout: '' };

hand.before(async () => {
  writeFileSync(H.feed, HAND.map(([l]) => l).join('\n') + '\n');
  H.exp = expectedFromLines(feedFileLines(H.feed));
  H.stdout = (await cli(['replay', H.feed, '--data-dir', H.data])).stdout;
});

hand('the reference model agrees with the hand-made labels', () => {
  const exp = H.exp!;
  const bad = HAND.map(([, e], i) => (e instanceof RegExp ? i + 1 : 0)).filter((n) => n > 0);
  assert.equal(exp.badLines, bad);
  assert.is(exp.lineCount, HAND.filter(([, e]) => e !== 'blank').length);
});

hand('files equal the expected rows; catalog, sealed days and calendar agree', async () => {
  await assertDataDirMatches(H.data, H.exp!, 'hand');
});

hand('spelled-out expectations: forms merge, later duplicate wins, rows sorted, nulls kept', async () => {
  const sh = await readParquet(join(H.data, `level2/date=${D}/600000.SH.parquet`), 'level2');
  assert.equal(
    sh.map((r) => r.time),
    ['091500000', '093000000', '093003000', '093006000'],
  );
  assert.equal(
    sh.map((r) => r.close),
    [null, 10.01, 10.0, 10.02],
  );
  assert.is(sh[2].amount, 2001);
  assert.is(sh[2].bid1, 9.99);
  assert.is(sh[0].pre_close, 9.9);
  assert.is(sh[0].bid2, null);
  assert.ok(sh.every((r) => r.symbol === '600000.SH' && r.tradedate === D));

  const sz = await readParquet(join(H.data, `level2/date=${D}/000001.SZ.parquet`), 'level2');
  assert.is(sz.length, 1);
  assert.is(sz[0].close, 11.52);
  assert.is(sz[0].ask10, null, 'the later duplicate replaces the whole row, not just some fields');

  const ind = await readParquet(join(H.data, `index/date=${D}/000001.parquet`), 'index');
  assert.equal(
    ind.map((r) => r.time),
    [idxT('09:25:00.120'), idxT('09:30:00.000')],
  );
  assert.is(ind[0].transaction_num, null);
  assert.is(ind[1].transaction_num, 1001n);
  assert.is(ind[1].close, 3200.6);
  assert.is(ind[1].bid1, null);
  assert.ok(ind.every((r) => r.pre_close === null && r.pct_chg === null && r.symbol === '000001'));

  const bj = await readParquet(join(H.data, `level2/date=${D}/830799.BJ.parquet`), 'level2');
  assert.is(bj.length, 1);
  for (const c of COLUMNS.level2.slice(3)) assert.is(bj[0][c], null, c);
  const bj2 = await readParquet(join(H.data, `level2/date=${D}/920000.BJ.parquet`), 'level2');
  assert.is(bj2[0].close, 5.5);

  const cy = await readParquet(join(H.data, `level2/date=${D}/300750.SZ.parquet`), 'level2');
  assert.equal(
    cy.map((r) => r.time),
    ['000000000', '235959999'],
  );
  assert.equal([cy[1].amount, cy[1].volume, cy[1].bid1, cy[1].ask1, cy[0].amount], [123456789012.34, 1e15, 0.001, 1e-7, 9007199254740991]);

  const i300 = await readParquet(join(H.data, `index/date=${D}/000300.parquet`), 'index');
  assertRowsEqual(i300, [H.exp!.files.get(`index|${D}|000300`)!.rows[0]], '000300');
  assert.is(i300[0].transaction_num, 7n);
});

hand('each bad line is quarantined once with file:line and a reason that names the problem', () => {
  const q = quarantine(H.data);
  const bad = HAND.map(([l, e], i) => ({ line: i + 1, text: l, re: e })).filter((b) => b.re instanceof RegExp);
  assert.is(q.length, bad.length);
  for (const b of bad) {
    const hits = q.filter((r) => r.source === `${H.feed}:${b.line}`);
    assert.is(hits.length, 1, `line ${b.line} quarantined once`);
    assert.is(hits[0].raw, b.text);
    assert.match(hits[0].reason, b.re as RegExp, `line ${b.line}: ${b.text}`);
  }
  const s = summary(H.stdout);
  assert.is(s.quarantined, bad.length);
  assert.is(s.lines, HAND.filter(([, e]) => e !== 'blank').length, 'blank lines are not counted');
});

hand('a second feed for a sealed day: its lines are late, the files stay', async () => {
  const extra = join(root, 'hand-late.jsonl');
  writeFileSync(
    extra,
    [
      l2({ symbol: '600000.SH', time: '093009000', close: 10.5 }),
      l2({ symbol: '601000', time: '093000000', close: 8 }), // a symbol with no file that day: the day is sealed
      'not json',
    ].join('\n') + '\n',
  );
  const before = filesOnDisk(H.data).map((p) => [p, sha256(join(H.data, p))]);
  const qBefore = quarantine(H.data).length;
  const r = await runCli(['replay', extra, '--data-dir', H.data]);
  assert.is(r.code, 1, 'nothing staged is a failure');
  assert.match(r.stderr, /nothing staged: all 3 lines were quarantined \(2 late/);
  const s = summary(r.stdout);
  assert.is(s.late, 2);
  assert.is(s.staged, 0);
  const q = quarantine(H.data).slice(qBefore);
  assert.equal(
    q.map((r) => r.source),
    [1, 2, 3].map((n) => `${extra}:${n}`),
  );
  assert.match(q[0].reason, /late/);
  assert.match(q[1].reason, /late/);
  assert.not.match(q[2].reason, /late/);
  assert.equal(
    filesOnDisk(H.data).map((p) => [p, sha256(join(H.data, p))]),
    before,
  );
});

// =============================================================================================
// Same content in every feed format, and several files in one replay.
// =============================================================================================
const formats = suite('replay: .jsonl, .jsonl.gz and several files at once');

formats('one feed split over a .jsonl.gz and a .jsonl, replayed together, equals the whole', async () => {
  const dir = join(root, 'formats');
  const whole = join(root, 'fmt-whole.jsonl.gz');
  await cli([
    'generate',
    '--out',
    whole,
    '--from',
    '20250107',
    '--days',
    '1',
    '--stocks',
    '2',
    '--indexes',
    '1',
    '--faults',
    '0.02',
    '--seed',
    'fmt',
    '--ticks',
    '0',
  ]);
  const lines = feedFileLines(whole);
  const cut = Math.floor(lines.length / 2);
  const a = join(root, 'fmt-a.jsonl.gz');
  const b = join(root, 'fmt-b.jsonl');
  const { gzipSync } = await import('node:zlib');
  writeFileSync(a, gzipSync(Buffer.from(lines.slice(0, cut).join('\r\n') + '\r\n')));
  writeFileSync(b, lines.slice(cut).join('\n')); // no trailing newline
  await cli(['replay', a, b, '--data-dir', join(dir, 'data')]);
  const exp = expectedFromLines(lines);
  await assertDataDirMatches(join(dir, 'data'), exp, 'split feed');
  const q = quarantine(join(dir, 'data'));
  const want = exp.badLines.map((n) => (n <= cut ? `${a}:${n}` : `${b}:${n - cut}`)).sort();
  assert.equal(q.map((r) => r.source).sort(), want);
});

formats('a correction in a later file of the same replay wins', async () => {
  const a = join(root, 'corr-a.jsonl');
  const b = join(root, 'corr-b.jsonl');
  const row = (close: number, t = '093000000') => l2({ symbol: '601318', time: t, close, volume: 100 });
  writeFileSync(a, [row(1), row(2, '093003000')].join('\n') + '\n');
  writeFileSync(b, [row(1.5)].join('\n') + '\n');
  const data = join(root, 'corr', 'data');
  await cli(['replay', a, b, '--data-dir', data]);
  const rows = await readParquet(join(data, `level2/date=${D}/601318.SH.parquet`), 'level2');
  assert.equal(
    rows.map((r) => [r.time, r.close]),
    [
      ['093000000', 1.5],
      ['093003000', 2],
    ],
  );
});

formats('a line longer than any read chunk (3 MiB), good and bad, keeps the numbering right', async () => {
  const p = join(root, 'long.jsonl');
  const big = 'x'.repeat(3 << 20);
  const lines = [
    l2({ symbol: '600036', time: '093000000', close: 30 }),
    l2({ symbol: '600036', time: '093003000', close: 31, note: big }), // good: unknown members are ignored
    `{"kind":"level2","symbol":"600036","note":"${big}"`, // bad: not JSON
    l2({ symbol: '600036', time: '093006000', close: 'bad' }),
    l2({ symbol: '600036', time: '093009000', close: 32 }),
  ];
  writeFileSync(p, lines.join('\n') + '\n');
  const data = join(root, 'long', 'data');
  await cli(['replay', p, '--data-dir', data]);
  const exp = expectedFromLines(lines);
  await assertDataDirMatches(data, exp, 'long lines');
  const q = quarantine(data);
  assert.equal(
    q.map((r) => r.source),
    [`${p}:3`, `${p}:4`],
  );
  assert.ok(lines[2].startsWith(q[0].raw) && q[0].raw.length > 1000, 'raw text of a huge line is kept (possibly capped)');
  assert.is(q[1].raw, lines[3]);
});

formats('empty feeds (.jsonl and an empty .jsonl.zst) replay to nothing, and say so with exit 1', async () => {
  const e1 = join(root, 'empty.jsonl');
  const e2 = join(root, 'empty.jsonl.zst');
  writeFileSync(e1, '');
  writeFileSync(e2, '');
  const data = join(root, 'empty', 'data');
  const r = await runCli(['replay', e1, e2, '--data-dir', data]);
  assert.is(r.code, 1, r.stderr);
  assert.is(r.stderr, 'tickvault replay: nothing replayed: the feed files hold no lines\n');
  const s = summary(r.stdout);
  assert.equal(s, { lines: 0, staged: 0, quarantined: 0, late: 0 });
  assert.equal(filesOnDisk(data), []);
});

formats('a truncated .zst fails the replay and seals nothing', async () => {
  const whole = join(root, 'fmt-trunc-src.jsonl.zst');
  await cli(['generate', '--out', whole, '--from', '20250108', '--days', '1', '--stocks', '1', '--indexes', '0', '--seed', 'trunc', '--ticks', '0']);
  const { readFileSync } = await import('node:fs');
  const bytes = readFileSync(whole);
  const cut = join(root, 'fmt-trunc.jsonl.zst');
  writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
  const data = join(root, 'trunc', 'data');
  const r = await runCli(['replay', cut, '--data-dir', data]);
  assert.is.not(r.code, 0, 'a broken feed file is an error');
  assert.ok(r.stderr.trim().length > 0);
  assert.equal(
    filesOnDisk(data).filter((f) => f.endsWith('.parquet')),
    [],
    'nothing sealed from a broken file',
  );
});

gen.run();
hand.run();
formats.run();
