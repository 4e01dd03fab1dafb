/**
 * End to end against a real broker (librdkafka's mock cluster via kcat, or KAFKA_BROKERS):
 * a generated two-day feed with bad lines and corrected duplicates is produced once; then
 * `tickvault ingest` is SIGKILLed at several points (while consuming and staging, while
 * sealing), restarted, and finally stopped with SIGTERM. DuckDB must read, from the sealed
 * files, exactly the rows computed independently here from the feed lines (later wins, bad
 * lines excluded); quarantine must hold every bad line once. Two ingest processes in one group
 * on one data directory must then write the same files as one.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import Database from 'better-sqlite3';
import { Kafka, logLevel } from 'kafkajs';
import { INDEX_FIELDS, LEVEL2_FIELDS, type FieldDef } from '../../../shared/schema.js';
import { brokerForTests, uniqueTopicPrefix } from '../../support/kafkaBroker.js';
import { exited, runCli, startCli } from '../../support/cli.js';
import { duckRows, sqlString } from '../../support/duckdb.js';
import { tempDir } from '../../support/tempDir.js';
import { readCatalog } from '../../support/catalog.js';
import { assertRowsEqual, expectedFromLines, readParquet, relPath, type Expected as TickExpected } from '../feed/replayReference.js';

const broker = await brokerForTests('kafka ingest end-to-end tests');

// ---- the expected content, computed from the feed without the product's validator ---------

type Row = Record<string, string | number | null>;

interface Expected {
  readonly level2: Map<string, Row>;
  readonly index: Map<string, Row>;
  /** Trade and order files, from the replay tests' reference model (its own validity and duplicate rules). */
  readonly ticks: TickExpected;
  readonly bad: number;
  readonly lines: number;
}

function isRealDate(d: unknown): d is string {
  if (typeof d !== 'string' || !/^\d{8}$/.test(d)) return false;
  const y = +d.slice(0, 4),
    m = +d.slice(4, 6),
    day = +d.slice(6, 8);
  const t = new Date(Date.UTC(y, m - 1, day));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === day;
}

function goodClock(h: string, m: string, s: string): boolean {
  return +h < 24 && +m < 60 && +s < 60;
}

function expectedRow(obj: Record<string, unknown>, fields: readonly FieldDef[], alwaysNull: readonly string[]): Row | null {
  const row: Row = {};
  for (const f of fields) {
    const v = obj[f.name];
    if (f.type === 'string') {
      row[f.name] = v as string;
      continue;
    }
    if (v === undefined || v === null) row[f.name] = null;
    else if (typeof v !== 'number' || !Number.isFinite(v) || (f.type === 'int64' && !Number.isInteger(v))) return null;
    else row[f.name] = alwaysNull.includes(f.name) ? null : v;
  }
  return row;
}

/** The rows a correct ingestion keeps: every valid line, the later one winning per key. */
function expectedFromFeed(text: string): Expected {
  const level2 = new Map<string, Row>();
  const index = new Map<string, Row>();
  const tickLines: string[] = [];
  let bad = 0;
  let lines = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    lines++;
    // The generator writes every trade and order line, good or bad, with its kind first.
    if (line.startsWith('{"kind":"trade"') || line.startsWith('{"kind":"order"')) {
      tickLines.push(line);
      continue;
    }
    let obj: Record<string, unknown>;
    try {
      obj = JSON.parse(line) as Record<string, unknown>;
    } catch {
      bad++;
      continue;
    }
    let row: Row | null = null;
    if (obj && obj.kind === 'level2') {
      const t = /^(\d{2})(\d{2})(\d{2})\d{3}$/.exec(String(obj.time));
      if (
        typeof obj.symbol === 'string' &&
        /^\d{6}\.(SH|SZ|BJ)$/.test(obj.symbol) &&
        isRealDate(obj.tradedate) &&
        typeof obj.time === 'string' &&
        t &&
        goodClock(t[1], t[2], t[3])
      ) {
        row = expectedRow(obj, LEVEL2_FIELDS, []);
      }
      if (row) level2.set(`${row.symbol}|${row.tradedate}|${row.time}`, row);
    } else if (obj && obj.kind === 'index') {
      const t = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})\.\d{3}$/.exec(String(obj.time));
      if (
        typeof obj.symbol === 'string' &&
        /^\d{6}$/.test(obj.symbol) &&
        isRealDate(obj.tradedate) &&
        typeof obj.time === 'string' &&
        t &&
        `${t[1]}${t[2]}${t[3]}` === obj.tradedate &&
        goodClock(t[4], t[5], t[6])
      ) {
        row = expectedRow(obj, INDEX_FIELDS, ['pre_close', 'pct_chg']);
      }
      if (row) index.set(`${row.symbol}|${row.tradedate}|${row.time}`, row);
    }
    if (!row) bad++;
  }
  const ticks = expectedFromLines(tickLines);
  return { level2, index, ticks, bad: bad + ticks.badLines.length, lines };
}

// ---- reading a data directory ---------------------------------------------------------------

function readonlyDb(path: string): Database.Database | null {
  if (!existsSync(path)) return null;
  try {
    return new Database(path, { readonly: true, fileMustExist: true });
  } catch {
    return null;
  }
}

function scalar(path: string, sql: string, ...params: unknown[]): number {
  const db = readonlyDb(path);
  if (!db) return 0;
  try {
    return Number(
      db
        .prepare(sql)
        .pluck()
        .get(...params) ?? 0,
    );
  } catch {
    return 0; // table not created yet
  } finally {
    db.close();
  }
}

const stagedOffsets = (dir: string, topics: readonly string[]) =>
  scalar(join(dir, 'ingest.db'), `SELECT coalesce(sum(next_offset), 0) FROM kafka_offsets WHERE topic IN (${topics.map(() => '?').join(',')})`, ...topics);
const sealedDays = (dir: string) => readCatalog(dir, (c) => c.sealedDays().length, 0);

function sealedFileAppeared(dir: string): boolean {
  for (const ds of ['level2', 'index']) {
    const base = join(dir, ds);
    if (!existsSync(base)) continue;
    for (const day of readdirSync(base)) if (readdirSync(join(base, day)).length > 0) return true;
  }
  return false;
}

function catalogFiles(dir: string): Map<string, string> {
  return readCatalog(dir, (c) => new Map([...c.everyFile()].map((f) => [f.path, `${f.sha256}:${f.rows}`])), new Map<string, string>());
}

function quarantine(dir: string): { source: string; reason: string }[] {
  const db = readonlyDb(join(dir, 'ingest.db'))!;
  try {
    return db.prepare('SELECT source, reason FROM quarantine ORDER BY id').all() as { source: string; reason: string }[];
  } finally {
    db.close();
  }
}

async function until(what: string, cond: () => boolean, timeoutMs: number, child?: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (child && (child.exitCode !== null || child.signalCode !== null))
      throw new Error(`ingest exited (${child.exitCode ?? child.signalCode}) while waiting for ${what}`);
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A started `tickvault ingest` with its stderr (JSON log lines) collected. */
interface Ingest {
  readonly child: ChildProcess;
  readonly logs: () => Record<string, unknown>[];
}

const NOW = '2025-01-03T16:30:00+08:00'; // after the last day's close + grace: days seal once caught up

function startIngest(brokers: string, topics: string, group: string, dataDir: string): Ingest {
  const child = startCli(['ingest', '--brokers', brokers, '--topics', topics, '--group', group, '--data-dir', dataDir, '--session-timeout', '3000'], {
    env: { TICKVAULT_NOW: NOW, TICKVAULT_LOG_LEVEL: 'info' },
  });
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  child.stdout!.resume();
  return {
    child,
    logs: () =>
      err
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

async function kill(ing: Ingest): Promise<void> {
  ing.child.kill('SIGKILL');
  await exited(ing.child);
}

/** Kafka never holds an offset the data directory has not durably recorded. */
async function assertCommitsNotAhead(brokers: string, group: string, topics: readonly string[], dataDir: string): Promise<void> {
  const db = readonlyDb(join(dataDir, 'ingest.db'));
  const stored = new Map<string, number>();
  if (db) {
    try {
      for (const r of db.prepare('SELECT topic, partition, next_offset FROM kafka_offsets').all() as {
        topic: string;
        partition: number;
        next_offset: number;
      }[]) {
        stored.set(`${r.topic}/${r.partition}`, r.next_offset);
      }
    } catch {
      // not created yet: nothing recorded
    } finally {
      db.close();
    }
  }
  const admin = new Kafka({ brokers: [brokers], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    for (const topic of topics) {
      const [c] = await admin.fetchOffsets({ groupId: group, topics: [topic] });
      for (const p of c.partitions) {
        if (Number(p.offset) < 0) continue;
        assert.ok(
          Number(p.offset) <= (stored.get(`${topic}/${p.partition}`) ?? 0),
          `${topic}/${p.partition}: Kafka has ${p.offset}, the data directory ${stored.get(`${topic}/${p.partition}`)}`,
        );
      }
    }
  } finally {
    await admin.disconnect();
  }
}

async function stopCleanly(ing: Ingest): Promise<void> {
  ing.child.kill('SIGTERM');
  const r = await exited(ing.child);
  const tail = ing
    .logs()
    .slice(-5)
    .map((l) => JSON.stringify(l))
    .join('\n');
  assert.is(r.code, 0, `ingest must exit 0 on SIGTERM; last log lines:\n${tail}`);
}

function num(v: unknown): unknown {
  return typeof v === 'bigint' ? Number(v) : v;
}

async function assertFilesMatch(dataDir: string, dataset: 'level2' | 'index', want: Map<string, Row>): Promise<void> {
  const fields = dataset === 'level2' ? LEVEL2_FIELDS : INDEX_FIELDS;
  const glob = join(dataDir, dataset, 'date=*', '*.parquet');
  const got = await duckRows(`SELECT * FROM read_parquet(${sqlString(glob)}, hive_partitioning = false) ORDER BY symbol, tradedate, time`);
  assert.is(got.length, want.size, `${dataset}: row count`);
  const wantSorted = [...want.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([, r]) => r);
  for (let i = 0; i < got.length; i++) {
    const g = got[i];
    const w = wantSorted[i];
    for (const f of fields) {
      if (num(g[f.name]) !== w[f.name]) {
        assert.unreachable(
          `${dataset} row ${i} (${w.symbol} ${w.tradedate} ${w.time}) column ${f.name}: file has ${String(g[f.name])}, feed says ${String(w[f.name])}`,
        );
      }
    }
  }
}

// ---- the tests ------------------------------------------------------------------------------

const e2e = suite('tickvault ingest against a broker');

if (broker) {
  const work = tempDir('tickvault-kafka-');
  const feed = join(work, 'feed.jsonl');
  const prefix = uniqueTopicPrefix('ingest');
  const topicList = [`${prefix}.level2`, `${prefix}.index`, `${prefix}.trade`, `${prefix}.order`];
  // level2 and index on both days; trades and orders (--tick-days 1) on the second
  const DATASET_DAYS = 6;
  const topics = topicList.join(',');
  let expected: Expected;
  let total = 0;
  const single = join(work, 'single');

  e2e.before(async () => {
    const gen = await runCli([
      'generate',
      '--out',
      feed,
      '--from',
      '20250102',
      '--days',
      '2',
      '--stocks',
      '6',
      '--indexes',
      '2',
      '--seed',
      'kafka-e2e',
      '--faults',
      '0.01',
      '--tick-days',
      '1',
    ]);
    assert.is(gen.code, 0, gen.stderr);
    expected = expectedFromFeed(readFileSync(feed, 'utf8'));
    assert.ok(expected.bad > 100, 'the feed carries bad lines');
    assert.ok(expected.ticks.badLines.length > 50, 'bad trade and order lines among them');
    assert.is(new Set([...expected.ticks.files.values()].map((f) => `${f.dataset}|${f.tradedate}`)).size, 2, 'trades and orders of one day');
    const prod = await runCli(['produce', '--brokers', broker.brokers, '--topics', topics, feed]);
    assert.is(prod.code, 0, prod.stderr);
    assert.match(prod.stdout, new RegExp(`produced ${expected.lines} messages`));
    total = expected.lines;
  });

  e2e.after(async () => {
    await broker.stop();
  });

  e2e('survives SIGKILL while consuming, staging and sealing: every row once, every bad line quarantined once', async () => {
    const group = `${prefix}-single`;
    const fractions = [0.15, 0.45, 0.75];
    for (const f of fractions) {
      const ing = startIngest(broker.brokers, topics, group, single);
      const before = stagedOffsets(single, topicList);
      // Kill right after progress moves past the mark: the next chunk is then being decoded or
      // staged, so the kill lands inside a chunk as often as not.
      await until(`${Math.round(f * 100)}% staged`, () => stagedOffsets(single, topicList) >= Math.max(before + 1, f * total), 60_000, ing.child);
      await kill(ing);
      await assertCommitsNotAhead(broker.brokers, group, topicList, single);
    }
    // While sealing: the first file in place (or its temp file) means a seal is under way.
    let ing = startIngest(broker.brokers, topics, group, single);
    await until('a seal to begin', () => sealedFileAppeared(single), 90_000, ing.child);
    await kill(ing);
    await assertCommitsNotAhead(broker.brokers, group, topicList, single);
    const sealedAtKill = sealedDays(single);
    assert.ok(sealedAtKill < DATASET_DAYS, 'killed before every day was sealed');
    // And once more between partition seals.
    ing = startIngest(broker.brokers, topics, group, single);
    await until('a partition seal', () => ing.logs().some((l) => l.msg === 'partition sealed' && Number(l.files) > 0), 90_000, ing.child);
    await kill(ing);

    ing = startIngest(broker.brokers, topics, group, single);
    await until('every dataset-day sealed', () => sealedDays(single) === DATASET_DAYS, 120_000, ing.child);
    await stopCleanly(ing);

    await assertFilesMatch(single, 'level2', expected.level2);
    await assertFilesMatch(single, 'index', expected.index);
    for (const f of expected.ticks.files.values()) assertRowsEqual(await readParquet(join(single, relPath(f)), f.dataset), f.rows, `kafka ${relPath(f)}`);
    const tickFiles = readCatalog(single, (c) => [...c.everyFile()].filter((f) => f.dataset === 'trade' || f.dataset === 'order').length, 0);
    assert.is(tickFiles, expected.ticks.files.size, 'trade and order files: exactly the expected ones');
    const q = quarantine(single);
    assert.is(q.length, expected.bad, 'every bad line quarantined exactly once');
    assert.is(new Set(q.map((e) => e.source)).size, q.length, 'no message quarantined twice');
    assert.ok(
      q.every((e) => /^[\w.-]+\/\d+@\d+$/.test(e.source)),
      'sources are topic/partition@offset',
    );
    assert.is(q.filter((e) => e.reason.startsWith('late')).length, 0, 'nothing was late');
    assert.is(scalar(join(single, 'ingest.db'), 'SELECT count(*) FROM open_symbols'), 0, 'nothing left staged');
  });

  e2e('the group offsets in Kafka reach the end of every partition', async () => {
    const kafka = new Kafka({ brokers: [broker.brokers], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    try {
      for (const topic of topicList) {
        const ends = new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, p.high]));
        const [committed] = await admin.fetchOffsets({ groupId: `${prefix}-single`, topics: [topic] });
        for (const p of committed.partitions) {
          // A partition that never held a message (six symbols over four partitions of a
          // topic) has nothing to commit: no offset (-1) is its end.
          const end = ends.get(p.partition);
          if (end === '0' && p.offset === '-1') continue;
          assert.is(p.offset, end, `${topic}/${p.partition}`);
        }
      }
    } finally {
      await admin.disconnect();
    }
  });

  e2e('ingest writes byte-identical files to a replay of the same feed', async () => {
    const replayDir = join(work, 'replay');
    const r = await runCli(['replay', '--data-dir', replayDir, feed], { env: { TICKVAULT_NOW: NOW } });
    assert.is(r.code, 0, r.stderr);
    assert.equal(catalogFiles(single), catalogFiles(replayDir));
  });

  e2e('two ingest processes in one group on one data directory write the same files as one', async () => {
    const shared = join(work, 'shared');
    const group = `${prefix}-pair`;
    const a = startIngest(broker.brokers, topics, group, shared);
    const b = startIngest(broker.brokers, topics, group, shared);
    try {
      await until('every dataset-day sealed', () => sealedDays(shared) === DATASET_DAYS, 120_000);
    } finally {
      await Promise.all([stopCleanly(a), stopCleanly(b)]);
    }
    assert.equal(catalogFiles(shared), catalogFiles(single));
    assert.is(quarantine(shared).length, expected.bad);

    // Every partition-day was sealed exactly once, by whichever process owned the partition.
    const sealedBy = new Map<string, string[]>();
    for (const [name, ing] of [
      ['a', a],
      ['b', b],
    ] as const) {
      for (const l of ing.logs()) {
        if (l.msg !== 'partition sealed') continue;
        const k = `${String(l.topic)}/${String(l.partition)}/${String(l.tradedate)}`;
        sealedBy.set(k, [...(sealedBy.get(k) ?? []), name]);
      }
    }
    assert.is(sealedBy.size, DATASET_DAYS * 4, 'six dataset-days x four partitions');
    for (const [k, who] of sealedBy) assert.is(who.length, 1, `${k} sealed by ${who.join(',')}`);
    const assigned = (ing: Ingest) =>
      ing
        .logs()
        .filter((l) => l.msg === 'partitions assigned')
        .at(-1)?.assignment as Record<string, number[]> | undefined;
    const partsA = Object.values(assigned(a) ?? {}).flat().length;
    const partsB = Object.values(assigned(b) ?? {}).flat().length;
    assert.ok(partsA > 0 && partsB > 0, `both processes own partitions (a: ${partsA}, b: ${partsB})`);
    // Which process seals what depends on timing: the first member can catch up and seal every
    // partition-day before the second joins. What must hold, whoever sealed: the same files as
    // one process, and each partition-day sealed exactly once (both asserted above).
  });
}

e2e.run();
