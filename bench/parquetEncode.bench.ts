/**
 * Seal-encoding throughput: `encodeParquet` + file write per symbol-day, against DuckDB
 * (appender into a table, then COPY … TO parquet zstd) turning the same columns into files,
 * in the same run. `node dist/bench/parquetEncode.bench.js [--symbols N] [--rows N]
 * [--row-group-size N] [--level N] [--concurrency N]`.
 */
import { DuckDBInstance, type DuckDBAppender } from '@duckdb/node-api';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { encodeParquet, DEFAULT_ZSTD_LEVEL, type SymbolDayColumns } from '../storage/parquet/writer.js';
import { SCHEMAS, type FieldType } from '../shared/schema.js';
import { formatIndexTime, formatLevel2Time } from '../shared/timeFormat.js';

export interface ParquetEncodeBenchOptions {
  symbols?: number;
  rowsPerSymbol?: number;
  rowGroupSize?: number;
  compressionLevel?: number;
  /** Symbol-days encoded at once by the tickvault side (the sealer's fan-out). */
  concurrency?: number;
  log?: (line: string) => void;
}

export interface ParquetEncodeBenchResult {
  symbols: number;
  rowsPerSymbol: number;
  rowGroupSize: number;
  concurrency: number;
  encodeRowsPerSec: number;
  encodeBytesPerSymbol: number;
  duckdbRowsPerSec: number;
  duckdbBytesPerSymbol: number;
  /**
   * Row groups DuckDB actually wrote per file: copying from a table it cuts them at its
   * 2,048-row vectors, so ROW_GROUP_SIZE 1000 yields 2,048-row groups.
   */
  duckdbRowGroupsPerSymbol: number;
  /** encodeRowsPerSec / duckdbRowsPerSec */
  ratio: number;
}

const HMS = (h: number, m: number, s: number) => ((h * 60 + m) * 60 + s) * 1000;

/** Snapshot times of a trading day (3 s cadence: auction 09:15-09:25, continuous sessions). */
function tradingDayTimes(rows: number): Int32Array {
  const grid: number[] = [];
  for (let t = HMS(9, 15, 0); t <= HMS(9, 25, 0); t += 3000) grid.push(t);
  for (let t = HMS(9, 30, 0); t <= HMS(11, 30, 0); t += 3000) grid.push(t);
  for (let t = HMS(13, 0, 0); t <= HMS(15, 0, 0); t += 3000) grid.push(t);
  const out = new Int32Array(rows);
  for (let i = 0; i < rows; i++) {
    // Spread over the whole day when rows < grid; jitter the ms like a real feed.
    const base = grid[Math.floor((i * grid.length) / rows)] ?? grid[grid.length - 1] + (i - grid.length + 1) * 3000;
    out[i] = base + ((i * 7919) % 990);
  }
  return out;
}

/** Small deterministic PRNG so every run encodes the same bytes. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

const cents = (x: number) => Math.round(x * 100) / 100;

/** One realistic level-2 symbol-day: 0.01 price grid, cumulative volume, levels 2-10 null before 09:25. */
export function makeLevel2SymbolDay(index: number, rows: number, tradedate = '20240102'): SymbolDayColumns {
  const fields = SCHEMAS.level2.valueFields;
  const col = new Map(fields.map((f, i) => [f.name, i]));
  const values = fields.map(() => new Float64Array(rows));
  const set = (name: string, i: number, v: number) => {
    values[col.get(name)!][i] = v;
  };
  const random = rng(index + 1);
  const timesMs = tradingDayTimes(rows);
  const preClose = cents(5 + random() * 60);
  let price = preClose;
  let open = NaN;
  let high = -Infinity;
  let low = Infinity;
  let volume = 0;
  let amount = 0;
  for (let i = 0; i < rows; i++) {
    const auction = timesMs[i] < HMS(9, 25, 0);
    const step = random();
    price = cents(Math.max(0.01, price + (step < 0.2 ? -0.01 : step > 0.8 ? 0.01 : 0)));
    if (!auction) {
      if (Number.isNaN(open)) open = price;
      high = Math.max(high, price);
      low = Math.min(low, price);
      const lots = Math.floor(random() * 200);
      volume += lots * 100;
      amount += lots * 100 * price;
    }
    set('open', i, open);
    set('high', i, auction ? NaN : high);
    set('low', i, auction ? NaN : low);
    set('close', i, auction ? NaN : price);
    set('pre_close', i, preClose);
    set('volume', i, volume);
    set('amount', i, cents(amount));
    for (let k = 1; k <= 10; k++) {
      const missing = auction && k > 1;
      set(`bid${k}`, i, missing ? NaN : cents(price - 0.01 * k));
      set(`ask${k}`, i, missing ? NaN : cents(price + 0.01 * (k - 1) + 0.01));
      set(`bid_vol${k}`, i, missing ? NaN : Math.floor(random() * 500) * 100);
      set(`ask_vol${k}`, i, missing ? NaN : Math.floor(random() * 500) * 100);
    }
  }
  const code = String(600000 + index).padStart(6, '0');
  return { dataset: 'level2', symbol: `${code}.SH`, tradedate, rows, timesMs, values };
}

async function runPool<T>(items: readonly T[], concurrency: number, job: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await job(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
}

/** DuckDB's column type for a schema field: the same types our files carry. */
export function duckType(type: FieldType): string {
  return type === 'string' || type === 'code' ? 'VARCHAR' : type === 'int64' ? 'BIGINT' : 'DOUBLE';
}

/** Appends a symbol-day's rows, the values our writer would store (codes as their letters). */
export function appendSymbolDay(app: DuckDBAppender, day: SymbolDayColumns): void {
  const schema = SCHEMAS[day.dataset];
  const time = schema.timeForm === 'level2' ? formatLevel2Time : (ms: number) => formatIndexTime(day.tradedate, ms);
  for (let r = 0; r < day.rows; r++) {
    let numeric = 0;
    for (const f of schema.fields) {
      if (f.type === 'string') {
        app.appendVarchar(f.name === 'symbol' ? day.symbol : f.name === 'tradedate' ? day.tradedate : time(day.timesMs[r]));
        continue;
      }
      const v = day.values[numeric++][r];
      if (Number.isNaN(v)) app.appendNull();
      else if (f.type === 'int64') app.appendBigInt(BigInt(v));
      else if (f.type === 'code') app.appendVarchar(String.fromCharCode(v));
      else app.appendDouble(v);
    }
    app.endRow();
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** The sizes and settings of one run, as the result and its line report them. */
interface EncodeSettings {
  readonly symbols: number;
  readonly rowsPerSymbol: number;
  readonly rowGroupSize: number;
  readonly level: number;
  readonly concurrency: number;
}

/** The two encoders, each writing a symbol-day's file into the run's directory under a prefix (`sub`). */
interface Encoders {
  ours(day: SymbolDayColumns, sub: string): Promise<void>;
  duck(day: SymbolDayColumns, sub: string): Promise<void>;
  /** Row groups in DuckDB's file of `day` under `sub`. */
  duckRowGroups(day: SymbolDayColumns, sub: string): Promise<number>;
  close(): void;
}

export async function runParquetEncodeBench(opts: ParquetEncodeBenchOptions = {}): Promise<ParquetEncodeBenchResult> {
  const settings: EncodeSettings = {
    symbols: opts.symbols ?? 200,
    rowsPerSymbol: opts.rowsPerSymbol ?? 4800,
    rowGroupSize: opts.rowGroupSize ?? 1000,
    level: opts.compressionLevel ?? DEFAULT_ZSTD_LEVEL,
    concurrency: opts.concurrency ?? 1,
  };
  const { symbols, rowsPerSymbol, rowGroupSize, concurrency } = settings;
  const log = opts.log ?? ((line: string) => console.log(line));

  const days = Array.from({ length: symbols }, (_, i) => makeLevel2SymbolDay(i, rowsPerSymbol));
  const warm = days.slice(0, Math.min(5, symbols));
  const totalRows = symbols * rowsPerSymbol;
  const dir = await mkdtemp(join(tmpdir(), 'tickvault-encode-bench-'));
  try {
    const enc = await openEncoders(dir, settings);
    await runPool(warm, concurrency, (d) => enc.ours(d, 'warm'));
    for (const d of warm) await enc.duck(d, 'warm');
    const { encodeMs, duckMs } = await timeInBatches(enc, days, concurrency);
    const duckdbRowGroupsPerSymbol = await enc.duckRowGroups(days[0], 'dk');
    enc.close();
    const { ourBytes, duckBytes, files } = await fileSizes(dir, days.slice(0, Math.min(10, symbols)));

    const result: ParquetEncodeBenchResult = {
      symbols,
      rowsPerSymbol,
      rowGroupSize,
      concurrency,
      encodeRowsPerSec: (totalRows * 1000) / encodeMs,
      encodeBytesPerSymbol: ourBytes / files,
      duckdbRowsPerSec: (totalRows * 1000) / duckMs,
      duckdbBytesPerSymbol: duckBytes / files,
      duckdbRowGroupsPerSymbol,
      ratio: duckMs / encodeMs,
    };
    log(encodeLine(result, settings));
    return result;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Setup: our encoder (encode + write), and DuckDB's (append into a table, COPY it out, empty it). */
async function openEncoders(dir: string, { rowGroupSize, level }: EncodeSettings): Promise<Encoders> {
  const inst = await DuckDBInstance.create(':memory:');
  const con = await inst.connect();
  const schemaFields = SCHEMAS.level2.fields;
  await con.run(`CREATE TABLE t (${schemaFields.map((f) => `"${f.name}" ${duckType(f.type)}`).join(', ')})`);
  const duckFile = (day: SymbolDayColumns, sub: string) => join(dir, `${sub}-${day.symbol}.duck.parquet`).replaceAll("'", "''");
  return {
    async ours(day, sub) {
      const bytes = await encodeParquet(day, { rowGroupSize, compressionLevel: level });
      await writeFile(join(dir, `${sub}-${day.symbol}.parquet`), bytes);
    },
    async duck(day, sub) {
      const app = await con.createAppender('t');
      appendSymbolDay(app, day);
      app.closeSync();
      await con.run(`COPY t TO '${duckFile(day, sub)}' (FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL ${level}, ROW_GROUP_SIZE ${rowGroupSize})`);
      await con.run('DELETE FROM t');
    },
    async duckRowGroups(day, sub) {
      const duckMeta = await con.runAndReadAll(`select num_row_groups from parquet_file_metadata('${duckFile(day, sub)}')`);
      return Number(duckMeta.getRowObjectsJS()[0].num_row_groups);
    },
    close() {
      con.closeSync();
      inst.closeSync();
    },
  };
}

/** Measure: every symbol-day through both encoders, alternating which goes first in batches so load from elsewhere on the machine hits both alike. */
async function timeInBatches(enc: Encoders, days: readonly SymbolDayColumns[], concurrency: number): Promise<{ encodeMs: number; duckMs: number }> {
  let encodeMs = 0;
  let duckMs = 0;
  const timeOurs = async (batch: readonly SymbolDayColumns[]) => {
    const t0 = performance.now();
    await runPool(batch, concurrency, (d) => enc.ours(d, 'tv'));
    encodeMs += performance.now() - t0;
  };
  const timeDuck = async (batch: readonly SymbolDayColumns[]) => {
    const t0 = performance.now();
    for (const d of batch) await enc.duck(d, 'dk');
    duckMs += performance.now() - t0;
  };
  const BATCH = 25;
  for (let b = 0; b * BATCH < days.length; b++) {
    const batch = days.slice(b * BATCH, (b + 1) * BATCH);
    if (b % 2 === 0) {
      await timeOurs(batch);
      await timeDuck(batch);
    } else {
      await timeDuck(batch);
      await timeOurs(batch);
    }
  }
  return { encodeMs, duckMs };
}

/** Bytes of the timed files of `probe`, ours and DuckDB's. */
async function fileSizes(dir: string, probe: readonly SymbolDayColumns[]): Promise<{ ourBytes: number; duckBytes: number; files: number }> {
  const size = async (name: string) => (await stat(join(dir, name))).size;
  let ourBytes = 0;
  let duckBytes = 0;
  for (const d of probe) {
    ourBytes += await size(`tv-${d.symbol}.parquet`);
    duckBytes += await size(`dk-${d.symbol}.duck.parquet`);
  }
  return { ourBytes, duckBytes, files: probe.length };
}

function encodeLine(result: ParquetEncodeBenchResult, { symbols, rowsPerSymbol, rowGroupSize, level, concurrency }: EncodeSettings): string {
  return (
    `seal-encode: ${fmt(result.encodeRowsPerSec)} rows/s (${result.ratio.toFixed(2)}x duckdb ${fmt(result.duckdbRowsPerSec)} rows/s)` +
    ` — ${symbols} symbols x ${rowsPerSymbol} rows, row groups of ${rowGroupSize}, zstd ${level}, concurrency ${concurrency};` +
    ` file ${fmt(result.encodeBytesPerSymbol)} B (${Math.ceil(rowsPerSymbol / rowGroupSize)} row groups)` +
    ` vs duckdb ${fmt(result.duckdbBytesPerSymbol)} B (${result.duckdbRowGroupsPerSymbol}) per symbol-day`
  );
}

function argValue(args: string[], name: string): number | undefined {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const v = Number(args[i + 1]);
  if (!Number.isFinite(v)) throw new Error(`${name} needs a number`);
  return v;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  await runParquetEncodeBench({
    symbols: argValue(args, '--symbols'),
    rowsPerSymbol: argValue(args, '--rows'),
    rowGroupSize: argValue(args, '--row-group-size'),
    compressionLevel: argValue(args, '--level'),
    concurrency: argValue(args, '--concurrency'),
  });
}
