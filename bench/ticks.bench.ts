/**
 * Tick-by-tick trades and orders into the lake (issue: trades and orders 1 of 2):
 * - replay end to end: a generated day's trade and order lines (no snapshots), from a
 *   .jsonl.zst feed to sealed files, in a `tickvault replay` process of its own, rows/s;
 * - seal: the same replay's sealing rows/s, against DuckDB writing the same rows (appender into
 *   a table, then COPY … TO parquet zstd, one file per symbol-day, the same row-group size), in
 *   the same run.
 * `node dist/bench/ticks.bench.js [--stocks N] [--scale S]`.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { FeedWriter } from '../ingest/feed/writer.js';
import { SCHEMAS, codeValue } from '../shared/schema.js';
import { CatalogReader, openCatalog, type CatalogFile } from '../storage/catalog.js';
import { readFooter } from '../storage/parquet/metadata.js';
import { readRowGroups, withFile } from '../storage/parquet/reader.js';
import { DEFAULT_ZSTD_LEVEL, type SymbolDayColumns } from '../storage/parquet/writer.js';
import { parseLevel2Time } from '../shared/timeFormat.js';
import { appendSymbolDay, duckType } from './parquetEncode.bench.js';
import { replayFeed, runBenchCli, type ReplayFigures } from './storage.bench.js';

export interface TicksBenchOptions {
  stocks?: number;
  /** `generate --ticks`: 1 is a realistic few thousand trades per stock-day. */
  scale?: number;
  log?: (line: string) => void;
}

export interface TicksBenchResult {
  readonly replay: ReplayFigures;
  readonly trades: number;
  readonly orders: number;
  readonly replayRowsPerSec: number;
  readonly sealRowsPerSec: number;
  readonly duckdbRowsPerSec: number;
}

const TICK_KINDS = ['{"kind":"trade"', '{"kind":"order"'];

/** Keeps a generated feed's trade and order lines; returns how many of each. */
async function tickLinesOnly(from: string, to: string): Promise<{ trades: number; orders: number }> {
  const out = new FeedWriter(to);
  let trades = 0;
  let orders = 0;
  for await (const line of createInterface({ input: createReadStream(from), crlfDelay: Infinity })) {
    if (line.startsWith(TICK_KINDS[0])) trades++;
    else if (line.startsWith(TICK_KINDS[1])) orders++;
    else continue;
    await out.writeLine(line);
  }
  await out.close();
  return { trades, orders };
}

/** A sealed file's columns as the sealer had them (read back with our reader; codes as character codes). */
async function sealedColumns(dataDir: string, f: CatalogFile): Promise<SymbolDayColumns> {
  const schema = SCHEMAS[f.dataset];
  return withFile(join(dataDir, f.path), async (fh) => {
    const footer = await readFooter(fh, (await fh.stat()).size);
    const groups = await readRowGroups(
      fh,
      footer,
      footer.rowGroups.map((_, g) => g),
      schema.fields.map((_, c) => c),
    );
    const timesMs = new Int32Array(f.rows);
    const values = schema.valueFields.map(() => new Float64Array(f.rows));
    let row = 0;
    for (const cols of groups) {
      const n = cols.get(0)!.values.length;
      let v = 0;
      schema.fields.forEach((field, c) => {
        const col = cols.get(c)!;
        if (field.name === 'time') for (let i = 0; i < n; i++) timesMs[row + i] = parseLevel2Time(col.values[i])!;
        if (field.type === 'string') return;
        const out = values[v++];
        for (let i = 0; i < n; i++) {
          const x = col.values[i];
          out[row + i] = x === null ? NaN : typeof x === 'string' ? codeValue(x) : x;
        }
      });
      row += n;
    }
    return { dataset: f.dataset, symbol: f.symbol, tradedate: f.tradedate, rows: f.rows, timesMs, values };
  });
}

/** DuckDB writing the same symbol-days as files (appender, then COPY per file): rows/s. */
async function duckdbWriteRowsPerSec(days: readonly SymbolDayColumns[], dir: string): Promise<number> {
  const inst = await DuckDBInstance.create(':memory:');
  const con = await inst.connect();
  try {
    for (const d of ['trade', 'order'] as const) {
      await con.run(`CREATE TABLE "${d}" (${SCHEMAS[d].fields.map((f) => `"${f.name}" ${duckType(f.type)}`).join(', ')})`);
    }
    const write = async (day: SymbolDayColumns, n: number) => {
      const app = await con.createAppender(day.dataset);
      appendSymbolDay(app, day);
      app.closeSync();
      const file = join(dir, `duck-${n}.parquet`).replaceAll("'", "''");
      const rg = SCHEMAS[day.dataset].rowGroupSize;
      await con.run(`COPY "${day.dataset}" TO '${file}' (FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL ${DEFAULT_ZSTD_LEVEL}, ROW_GROUP_SIZE ${rg})`);
      await con.run(`DELETE FROM "${day.dataset}"`);
    };
    for (const [i, d] of days.slice(0, 4).entries()) await write(d, -1 - i); // warm-up
    const t0 = performance.now();
    let rows = 0;
    for (const [i, d] of days.entries()) {
      await write(d, i);
      rows += d.rows;
    }
    return (rows * 1000) / (performance.now() - t0);
  } finally {
    con.closeSync();
    inst.closeSync();
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

export async function runTicksBench(opts: TicksBenchOptions = {}): Promise<TicksBenchResult> {
  const stocks = opts.stocks ?? 200;
  const scale = opts.scale ?? 1;
  const log = opts.log ?? ((l: string) => console.log(l));
  const dir = await mkdtemp(join(tmpdir(), 'tickvault-ticks-bench-'));
  try {
    const full = join(dir, 'full.jsonl');
    await runBenchCli([
      'generate',
      '--out',
      full,
      '--from',
      '20250102',
      '--days',
      '1',
      '--stocks',
      String(stocks),
      '--indexes',
      '0',
      '--ticks',
      String(scale),
      '--seed',
      'bench',
    ]);
    const feed = join(dir, 'ticks.jsonl.zst');
    const { trades, orders } = await tickLinesOnly(full, feed);
    await rm(full);
    const dataDir = join(dir, 'data');
    const replay = await replayFeed(feed, dataDir);
    const replayRowsPerSec = (replay.lines * 1000) / replay.wallMs;
    const sealRowsPerSec = (replay.rows * 1000) / replay.sealingMs;

    const db = openCatalog(join(dataDir, 'catalog.db'), true);
    const files = [...new CatalogReader(db).everyFile()].filter((f) => f.dataset === 'trade' || f.dataset === 'order');
    db.close();
    const days: SymbolDayColumns[] = [];
    for (const f of files) days.push(await sealedColumns(dataDir, f));
    const sealedRows = days.reduce((a, d) => a + d.rows, 0);
    if (sealedRows !== replay.rows) throw new Error(`the replay sealed ${replay.rows} rows, the files hold ${sealedRows}`);
    const duckdbRowsPerSec = await duckdbWriteRowsPerSec(days, dir);

    const perStock = (n: number) => fmt(n / stocks);
    log(
      `ticks replay end-to-end: ${fmt(replayRowsPerSec)} rows/s — ${fmt(trades)} trades + ${fmt(orders)} orders ` +
        `(${perStock(trades)} + ${perStock(orders)} per stock-day, ${stocks} stocks, --ticks ${scale}), wall ${(replay.wallMs / 1000).toFixed(1)} s ` +
        `(staging ${(replay.stagingMs / 1000).toFixed(1)} s, sealing ${(replay.sealingMs / 1000).toFixed(1)} s), peak RSS ${(replay.peakRssBytes / 2 ** 20).toFixed(0)} MiB`,
    );
    log(
      `ticks seal: ${fmt(sealRowsPerSec)} rows/s (${(sealRowsPerSec / duckdbRowsPerSec).toFixed(2)}x duckdb appender+COPY ${fmt(duckdbRowsPerSec)} rows/s, same rows, same run)`,
    );
    return { replay, trades, orders, replayRowsPerSec, sealRowsPerSec, duckdbRowsPerSec };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? Number(process.argv[i + 1]) : undefined;
  };
  await runTicksBench({ stocks: arg('stocks'), scale: arg('scale') });
}
