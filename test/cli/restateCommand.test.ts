/**
 * `tickvault restate` end to end with real files and a running server (api-contract:
 * Corrections): a day restated from a correction file and from quarantine; the new version
 * read back by DuckDB against rows computed here from the feed; pages before and after, a
 * cursor finishing on its version while new requests see the new one; Parquet and boundary
 * answers of the new version; SIGKILLs during a restatement; two sites identical.
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFeedLines } from '../../ingest/feed/lines.js';
import { runCli, startCli, exited } from '../support/cli.js';
import { duckRows, sqlString } from '../support/duckdb.js';
import { addAccount, httpRequest, preparedData, REPLAY_NOW, startServer } from '../support/server.js';
import { tempDir } from '../support/tempDir.js';

const t = suite('tickvault restate');
const DATA = { days: 2, stocks: 3, indexes: 2, ticks: 0.1 } as const;
const env = { TICKVAULT_NOW: REPLAY_NOW };
/** The server's clock: after the data days (flagship: all history). */
const SERVER_NOW = '2025-01-06T16:30:00+08:00';

type FeedRow = Record<string, unknown>;
const feed: FeedRow[] = [];
let pristine = '';

/** A fresh copy of the replayed lake (the prepared one is shared and read only). */
function lakeCopy(from = pristine): string {
  const dest = join(tempDir('tickvault-restate-'), 'data');
  cpSync(from, dest, { recursive: true });
  return dest;
}

const rowsOf = (kind: string, symbol: string, day: string) => feed.filter((r) => r.kind === kind && r.symbol === symbol && r.tradedate === day);

function writeFeed(rows: readonly (FeedRow | string)[]): string {
  const path = join(tempDir('tickvault-corr-'), 'corrections.jsonl');
  writeFileSync(path, rows.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n');
  return path;
}

const restate = (dataDir: string, ...args: string[]) => runCli(['restate', '--data-dir', dataDir, ...args], { env });
const digestLines = async (dataDir: string) => {
  const r = await runCli(['doctor', '--digests', '--data-dir', dataDir]);
  assert.is(r.code, 0, r.stderr);
  return r.stdout.trimEnd().split('\n');
};
const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** Corrections of 600000.SH's level-2 day 20250102: three bid1 changed, one row added, one bad line. */
function level2Corrections(): { rows: FeedRow[]; bad: string } {
  const day = rowsOf('level2', '600000.SH', '20250102');
  const changed = day.slice(1000, 1003).map((r): FeedRow => ({ ...r, bid1: Math.round(((r.bid1 as number) + 0.01) * 100) / 100 }));
  const last = day[1003]!;
  const added: FeedRow = { ...last, time: `${(last.time as string).slice(0, 6)}999`, bid1: 1.23 };
  return { rows: [...changed, added], bad: '{"kind":"level2","symbol":"600000.SH","tradedate":"20250102","time":"bad"}' };
}

t.before(async () => {
  const data = await preparedData(DATA);
  pristine = data.dataDir;
  for await (const batch of readFeedLines(data.feedFile)) for (const line of batch.lines) if (line !== '') feed.push(JSON.parse(line) as FeedRow);
});

t('a correction file: version 2 beside version 1, merged by time, read back by DuckDB; a rerun changes nothing', async () => {
  const dataDir = lakeCopy();
  const { rows, bad } = level2Corrections();
  const file = writeFeed([...rows, bad]);
  const r = await restate(dataDir, '--dataset', 'level2', '--date', '20250102', file);
  assert.is(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    /^read 4 correction rows of level2 20250102, 1 quarantined; restated 1 symbol-day: 600000\.SH v2 \([\d,]+ rows: 3 changed, 1 added\); boundary part rebuilt\n$/,
  );

  // Expected rows, from the feed and the corrections (the later of one time wins), by time.
  const byTime = new Map<string, number | null>();
  for (const row of [...rowsOf('level2', '600000.SH', '20250102'), ...rows]) byTime.set(row.time as string, (row.bid1 as number | null) ?? null);
  const expected = [...byTime.entries()].sort((a, b) => a[0].localeCompare(b[0]));
  const v2 = join(dataDir, 'level2/date=20250102/600000.SH.v2.parquet');
  const got = await duckRows(`SELECT time, bid1 FROM read_parquet(${sqlString(v2)})`);
  assert.equal(
    got.map((g) => [g.time, g.bid1]),
    expected,
  );
  // Version 1 is still on disk, as sealed (one row fewer).
  const v1 = await duckRows(`SELECT count(*) AS n FROM read_parquet(${sqlString(join(dataDir, 'level2/date=20250102/600000.SH.parquet'))})`);
  assert.is(Number(v1[0]!.n), expected.length - 1);
  const kv = await duckRows(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata(${sqlString(v2)})`);
  assert.equal(
    kv.map((x) => [x.k, x.v]),
    [['tickvault.version', '2']],
  );

  const doctor = await runCli(['doctor', '--data-dir', dataDir]);
  assert.is(doctor.code, 0, doctor.stdout + doctor.stderr);
  const lines = await digestLines(dataDir);
  assert.ok(lines.some((l) => l.endsWith('  level2/date=20250102/600000.SH.parquet')));
  assert.ok(lines.some((l) => l.endsWith('  level2/date=20250102/600000.SH.v2.parquet') && l.startsWith(sha256(v2))));

  const again = await restate(dataDir, '--dataset', 'level2', '--date', '20250102', file);
  assert.is(again.code, 0, again.stderr);
  assert.match(again.stdout, /nothing to change: the corrections equal the current rows; nothing written/);
  assert.not.ok(existsSync(join(dataDir, 'level2/date=20250102/600000.SH.v3.parquet')));
  assert.equal(await digestLines(dataDir), lines);
});

t('corrections in anything import reads: a CSV of trades through a mapping, a Parquet of the lake columns, a folder', async () => {
  const dataDir = lakeCopy();
  const trades = join(dataDir, 'trade/date=20250102/600000.SH.parquet');
  const [{ id }] = await duckRows(
    `SELECT trade_id::BIGINT AS id FROM read_parquet(${sqlString(trades)}) WHERE trade_code = 'F' ORDER BY time, trade_id LIMIT 1 OFFSET 10`,
  );
  const dir = tempDir('tickvault-corr-');
  const csv = join(dir, 'fix.csv');
  // DuckDB's CSV of our columns (what mappings/tickvault-trade.map reads), one price corrected.
  await duckRows(`COPY (SELECT * REPLACE (CASE WHEN trade_id = ${id} THEN round(price + 0.01, 2) ELSE price END AS price)
    FROM read_parquet(${sqlString(trades)}) WHERE trade_id = ${id}) TO ${sqlString(csv)} (HEADER)`);
  const mapping = join(process.cwd(), 'mappings/tickvault-trade.map');
  const r = await restate(dataDir, '--dataset', 'trade', '--date', '20250102', csv, '--mapping', mapping);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^read 1 correction rows of trade 20250102; restated 1 symbol-day: 600000\.SH v2 \([\d,]+ rows: 1 changed, 0 added\)\n$/);
  const [before, after] = await Promise.all(
    [trades, join(dataDir, 'trade/date=20250102/600000.SH.v2.parquet')].map((f) =>
      duckRows(`SELECT trade_id::BIGINT AS id, price FROM read_parquet(${sqlString(f)}) ORDER BY time, trade_id`),
    ),
  );
  assert.is(after!.length, before!.length);
  const diff = after!.filter((row, i) => row.price !== before![i]!.price);
  assert.equal(
    diff.map((d) => d.id),
    [id],
  );
  assert.is(diff[0]!.price, Math.round(((before!.find((b) => b.id === id)!.price as number) + 0.01) * 100) / 100);

  // The lake's own columns need no mapping: a folder holding one level-2 correction file.
  const folder = join(dir, 'l2');
  const snaps = join(dataDir, 'level2/date=20250102/000001.SZ.parquet');
  mkdirSync(folder);
  await duckRows(
    `COPY (SELECT * REPLACE (99.5 AS ask1) FROM read_parquet(${sqlString(snaps)}) ORDER BY time LIMIT 2) TO ${sqlString(join(folder, 'part.parquet'))} (FORMAT parquet)`,
  );
  const p = await restate(dataDir, '--dataset', 'level2', '--date', '20250102', folder);
  assert.is(p.code, 0, p.stderr);
  assert.match(p.stdout, /restated 1 symbol-day: 000001\.SZ v2 \([\d,]+ rows: 2 changed, 0 added\)/);
  const asks = await duckRows(`SELECT ask1 FROM read_parquet(${sqlString(join(dataDir, 'level2/date=20250102/000001.SZ.v2.parquet'))}) ORDER BY time LIMIT 3`);
  assert.equal(
    asks.slice(0, 2).map((a) => a.ask1),
    [99.5, 99.5],
  );
  assert.is.not(asks[2]!.ask1, 99.5);

  const bad = await restate(dataDir, '--dataset', 'trade', '--date', '20250102', csv);
  assert.is(bad.code, 2, 'a CSV without a mapping is refused as by import');
  assert.match(bad.stderr, /mapping/);
});

t('bad arguments and an open day: exit 2, one line, nothing written', async () => {
  const dataDir = lakeCopy();
  const file = writeFeed(level2Corrections().rows);
  for (const args of [
    ['--date', '20250102', file],
    ['--dataset', 'level2', file],
    ['--dataset', 'level2', '--date', '20250102'],
    ['--dataset', 'level2', '--date', '20250102', '--from-quarantine', file],
    ['--dataset', 'quotes', '--date', '20250102', file],
    ['--dataset', 'level2', '--date', '20250107', file],
  ]) {
    const r = await restate(dataDir, ...args);
    assert.is(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.is(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /^tickvault restate: /);
  }
  assert.not.ok(existsSync(join(dataDir, 'level2/date=20250102/600000.SH.v2.parquet')));
});

async function api(url: string, apikey: string, apiname: string, params: object, fields?: string) {
  const res = await httpRequest(`${url}/api`, {
    body: JSON.stringify({ apiname, apikey, params, ...(fields ? { fields } : {}) }),
    headers: { 'content-type': 'application/json' },
  });
  return {
    status: res.status,
    headers: res.headers,
    body: res.body,
    json: () => JSON.parse(res.text) as { code: number; message: string; data: Record<string, unknown> },
  };
}

t('a running server: a cursor pages its version to the end, new requests and downloads see the new one, tick_history too, without a restart', async () => {
  const dataDir = lakeCopy();
  const { key } = addAccount(dataDir, 'flagship');
  const server = await startServer(dataDir, { now: SERVER_NOW });
  try {
    const first = (await api(server.url, key, 'level2_quote_history', { symbol: '600000.SH', tradedate: '20250103', page_size: 2000 }, 'time,bid1')).json();
    assert.is(first.data.version, 1);
    const cursor = first.data.next_cursor as string;

    // Restate the rows of the second page and the index row a 10:00 boundary answers.
    const day = rowsOf('level2', '600000.SH', '20250103');
    const fix = day.slice(2000, 2002).map((r): FeedRow => ({ ...r, bid1: 99.99 }));
    const index = rowsOf('index', '000300', '20250103').filter((r) => (r.time as string).slice(11) < '10:00:00.000');
    const lastBefore: FeedRow = { ...index[index.length - 1]!, close: 4321.5 };
    for (const [dataset, rows] of [
      ['level2', fix],
      ['index', [lastBefore]],
    ] as const) {
      const r = await restate(dataDir, '--dataset', dataset, '--date', '20250103', writeFeed(rows));
      assert.is(r.code, 0, r.stderr);
    }

    // The cursor issued on version 1 pages version 1: the rows as sealed.
    const second = (
      await api(server.url, key, 'level2_quote_history', { symbol: '600000.SH', tradedate: '20250103', page_size: 2000, cursor }, 'time,bid1')
    ).json();
    assert.is(second.data.version, 1);
    const items = second.data.items as [string, number][];
    assert.equal(
      items.slice(0, 2),
      day.slice(2000, 2002).map((r) => [r.time, r.bid1]),
    );
    // A new request reads version 2 from its first row on.
    const fresh = (await api(server.url, key, 'level2_quote_history', { symbol: '600000.SH', tradedate: '20250103', page_size: 2000 }, 'time,bid1')).json();
    assert.is(fresh.data.version, 2);
    const page2 = (
      await api(
        server.url,
        key,
        'level2_quote_history',
        { symbol: '600000.SH', tradedate: '20250103', page_size: 2000, cursor: fresh.data.next_cursor },
        'time,bid1',
      )
    ).json();
    assert.is(page2.data.version, 2);
    assert.equal(
      (page2.data.items as [string, number][]).slice(0, 2),
      fix.map((r) => [r.time, 99.99]),
    );

    const dl = await api(server.url, key, 'level2_quote_history', { symbol: '600000.SH', tradedate: '20250103', format: 'parquet' });
    assert.is(dl.status, 200);
    assert.is(dl.headers['x-tickvault-version'], '2');
    assert.is(createHash('sha256').update(dl.body).digest('hex'), sha256(join(dataDir, 'level2/date=20250103/600000.SH.v2.parquet')));

    // tick_history's boundary (through the rebuilt part) and detail read the new version.
    const boundary = (
      await api(server.url, key, 'tick_history', { symbols: '000300', tradedate: '20250103', trademin: '10:00', side: 'before' }, 'time,close')
    ).json();
    assert.equal(boundary.data.items, [[lastBefore.time, 4321.5]]);
    const v2 = join(dataDir, 'index/date=20250103/000300.v2.parquet');
    const duck = await duckRows(`SELECT time, close FROM read_parquet(${sqlString(v2)}) WHERE time < '2025-01-03 10:00:00.000' ORDER BY time DESC LIMIT 1`);
    assert.equal(
      boundary.data.items,
      duck.map((d) => [d.time, d.close]),
    );
    const detail = (
      await api(server.url, key, 'tick_history', { symbols: '000300', tradedate: '20250103', start_time: '09:59', end_time: '10:00' }, 'time,close')
    ).json();
    assert.ok(
      (detail.data.items as [string, number][]).some(([time, close]) => time === lastBefore.time && close === 4321.5),
      JSON.stringify(detail.data.items),
    );

    // asset=stock reads the level-2 lake's current version too (the day listed afresh).
    const t0 = fix[0]!.time as string;
    const hms = `${t0.slice(0, 2)}:${t0.slice(2, 4)}:${t0.slice(4, 6)}`;
    const stock = (
      await api(server.url, key, 'tick_history', { asset: 'stock', symbols: '600000', tradedate: '20250103', start_time: hms, limit: 3 }, 'bid1')
    ).json();
    assert.ok(
      (stock.data.items as [number][]).some(([bid1]) => bid1 === 99.99),
      JSON.stringify(stock),
    );

    // Old versions go only when asked, never a current one; a cursor on a removed one is a 400.
    const v1Path = join(dataDir, 'level2/date=20250103/600000.SH.parquet');
    const before = await digestLines(dataDir);
    const prune = await runCli(['prune-versions', '--data-dir', dataDir, '--dataset', 'level2'], { env });
    assert.is(prune.code, 0, prune.stderr);
    assert.match(prune.stdout, /^removed 1 old version and 1 replaced boundary part of 1 dataset-day \(/);
    assert.not.ok(existsSync(v1Path));
    assert.ok(existsSync(join(dataDir, 'level2/date=20250103/600000.SH.v2.parquet')));
    assert.ok(existsSync(join(dataDir, 'index/date=20250103/000300.parquet')), 'another dataset is left alone');
    // The list loses exactly the removed file's line (the last line is the list's own digest).
    assert.equal(
      (await digestLines(dataDir)).slice(0, -1),
      before.slice(0, -1).filter((l) => !l.endsWith('  level2/date=20250103/600000.SH.parquet')),
    );
    const doctor = await runCli(['doctor', '--data-dir', dataDir]);
    assert.is(doctor.code, 0, doctor.stdout);
    const gone = await api(server.url, key, 'level2_quote_history', { symbol: '600000.SH', tradedate: '20250103', page_size: 2000, cursor }, 'time,bid1');
    assert.is(gone.status, 400);
    assert.match(gone.json().message, /version 1 of 600000\.SH 20250103, which was removed here/);
    const twice = await runCli(['prune-versions', '--data-dir', dataDir], { env });
    assert.match(twice.stdout, /^removed 1 old version and 1 replaced boundary part of 1 dataset-day/, 'the index day now');
    assert.match(
      (await runCli(['prune-versions', '--data-dir', dataDir], { env })).stdout,
      /^removed 0 old versions and 0 replaced boundary parts of 0 dataset-days/,
    );
    assert.is((await api(server.url, key, 'level2_quote_history', { symbol: '600000.SH', tradedate: '20250103' }, 'time')).json().data.version, 2);
  } finally {
    await server.stop();
  }
});

t('late messages in quarantine: restated from there, then gone from quarantine; days shows the day restated', async () => {
  const dataDir = lakeCopy();
  const late: FeedRow = { ...rowsOf('level2', '300001.SZ', '20250102')[500]!, ask1: 55.55 };
  const rep = await runCli(['replay', writeFeed([late]), '--data-dir', dataDir], { env });
  assert.is(rep.code, 1, 'every line late: replay says so'); // README: a replay that stages nothing exits 1
  const ingestDb = join(dataDir, 'ingest.db');
  const lateCount = () => {
    const db = new Database(ingestDb, { readonly: true });
    try {
      return (db.prepare("SELECT count(*) AS n FROM quarantine WHERE reason LIKE 'late: level2 20250102 %'").get() as { n: number }).n;
    } finally {
      db.close();
    }
  };
  assert.is(lateCount(), 1);
  const server = await startServer(dataDir, { now: SERVER_NOW });
  const metric = async () => {
    const text = (await httpRequest(`${server.url}/metrics`, { method: 'GET' })).text;
    return Number(/^tickvault_late_messages_waiting\{dataset="level2"\} (\d+)$/m.exec(text)?.[1]);
  };
  let r;
  try {
    assert.is(await metric(), 1, '/metrics counts the late message waiting');
    r = await restate(dataDir, '--dataset', 'level2', '--date', '20250102', '--from-quarantine');
    assert.is(await metric(), 0, 'taken in: none waits');
  } finally {
    await server.stop();
  }
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /restated 1 symbol-day: 300001\.SZ v2 \([\d,]+ rows: 1 changed, 0 added\)/);
  assert.is(lateCount(), 0);
  const row = await duckRows(
    `SELECT ask1 FROM read_parquet(${sqlString(join(dataDir, 'level2/date=20250102/300001.SZ.v2.parquet'))}) WHERE time = ${sqlString(late.time as string)}`,
  );
  assert.equal(
    row.map((x) => x.ask1),
    [55.55],
  );
  const days = await runCli(['days', '--data-dir', dataDir, '--dataset', 'level2', '--from', '20250102', '--to', '20250102', '--json'], { env });
  assert.is(days.code, 0, days.stderr);
  const status = JSON.parse(days.stdout.trim().split('\n')[0]!) as { status: string; version: number; late: number };
  assert.equal([status.status, status.version, status.late], ['restated', 2, 0]);
});

t('SIGKILL at any point of a restatement: the same command again gives the files of an uninterrupted one', async () => {
  const file = writeFeed(level2Corrections().rows);
  const clean = lakeCopy();
  assert.is((await restate(clean, '--dataset', 'level2', '--date', '20250102', file)).code, 0);
  const want = await digestLines(clean);
  for (const afterMs of [150, 300, 450, 600, 800]) {
    const dataDir = lakeCopy();
    const child = startCli(['restate', '--data-dir', dataDir, '--dataset', 'level2', '--date', '20250102', file], { env });
    child.stdin!.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), afterMs);
    await exited(child);
    clearTimeout(timer);
    const r = await restate(dataDir, '--dataset', 'level2', '--date', '20250102', file);
    assert.is(r.code, 0, r.stderr);
    const doctor = await runCli(['doctor', '--data-dir', dataDir]);
    assert.ok(doctor.code === 0 || /stale-temp/.test(doctor.stdout), `killed after ${afterMs} ms: ${doctor.stdout}`);
    assert.equal(await digestLines(dataDir), want, `killed after ${afterMs} ms`);
  }
});

t('two sites: the same restatement gives identical files; a cursor of a version a site lacks gets 503, never other rows', async () => {
  const a = lakeCopy();
  const b = lakeCopy();
  const file = writeFeed(level2Corrections().rows);
  assert.is((await restate(a, '--dataset', 'level2', '--date', '20250102', file)).code, 0);
  const { key } = addAccount(b, 'flagship');
  addAccount(a, 'flagship', key);
  // Both sites sign cursors with one key (api-contract: a cursor pages at any site): A's, made at its start.
  const sa = await startServer(a, { now: SERVER_NOW });
  cpSync(join(a, 'cursor.key'), join(b, 'cursor.key'));
  const sb = await startServer(b, { now: SERVER_NOW });
  try {
    const q = { symbol: '600000.SH', tradedate: '20250102', page_size: 1000 };
    const atA = (await api(sa.url, key, 'level2_quote_history', q)).json();
    assert.is(atA.data.version, 2);
    const missing = await api(sb.url, key, 'level2_quote_history', { ...q, cursor: atA.data.next_cursor });
    assert.is(missing.status, 503);
    assert.ok(Number(missing.headers['retry-after']) > 0);
    assert.match(missing.json().message, /version 2 of 600000\.SH 20250102, which this site does not hold/);

    assert.is((await restate(b, '--dataset', 'level2', '--date', '20250102', file)).code, 0);
    assert.equal(await digestLines(b), await digestLines(a));
    const [pa, pb] = await Promise.all(
      [sa, sb].map(async (s) => (await api(s.url, key, 'level2_quote_history', { ...q, cursor: atA.data.next_cursor })).json()),
    );
    assert.is(pb.data.version, 2);
    assert.equal(pb.data.items, pa.data.items);
  } finally {
    await Promise.all([sa.stop(), sb.stop()]);
  }
});

t.run();
