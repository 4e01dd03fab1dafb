import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { decompress } from '@mongodb-js/zstd';
import { tableFromIPC } from 'apache-arrow';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { readParquet } from 'parquet-wasm/node';
import { parquetHeader } from 'hyparquet/src/column.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeParquet, type SymbolDayColumns } from '../../../storage/parquet/writer.js';
import { readNamedColumns } from '../../../storage/parquet/generalReader.js';
import { readFooter } from '../../../storage/parquet/metadata.js';
import { readRowGroups, withFile } from '../../../storage/parquet/reader.js';
import { SCHEMAS, type Dataset, type FieldType } from '../../../shared/schema.js';
import { formatIndexTime, formatLevel2Time } from '../../../shared/timeFormat.js';

const HOUR = 3_600_000;
const MIN = 60_000;
const cents = (x: number) => Math.round(x * 100) / 100;

/** A day's columns to fill: the dataset's value fields, one zeroed column for each, `at` a field's column by name. */
function blankColumns(dataset: Dataset, rows: number) {
  const fields = SCHEMAS[dataset].valueFields;
  const at = (name: string) => fields.findIndex((f) => f.name === name);
  return { fields, at, values: fields.map(() => new Float64Array(rows)), timesMs: new Int32Array(rows) };
}

/** Level-2 day from 09:15 every 3 s: levels 2-10 and open/high/low/close null before 09:25. */
function level2Day(rows: number): SymbolDayColumns {
  const { fields, values, timesMs } = blankColumns('level2', rows);
  let volume = 0;
  let amount = 0;
  for (let i = 0; i < rows; i++) {
    const t = 9 * HOUR + 15 * MIN + i * 3000 + ((i * 37) % 1000);
    timesMs[i] = t;
    const auction = t < 9 * HOUR + 25 * MIN;
    const price = cents(10 + 0.5 * Math.sin(i / 40));
    if (!auction) {
      volume += (i % 7) * 100;
      amount = cents(amount + (i % 7) * 100 * price);
    }
    fields.forEach((f, c) => {
      const depth = /(\d+)$/.exec(f.name);
      const level = depth ? Number(depth[1]) : 0;
      let v: number;
      if (level >= 2 && auction) v = NaN;
      else if (f.name === 'volume') v = volume;
      else if (f.name === 'amount') v = amount;
      else if (f.name.includes('_vol'))
        v = ((i * (c + 3)) % 50) * 100; // includes zeros
      else if (auction && ['open', 'high', 'low', 'close'].includes(f.name)) v = NaN;
      else v = cents(price + (f.name.startsWith('ask') ? level : -level) * 0.01);
      values[c][i] = v;
    });
  }
  return { dataset: 'level2', symbol: '600000.SH', tradedate: '20240102', rows, timesMs, values };
}

/** Index day: pre_close/pct_chg always null, a few null and large (> 2^32, negative) transaction_num. */
function indexDay(rows: number): SymbolDayColumns {
  const { fields, values, timesMs } = blankColumns('index', rows);
  for (let i = 0; i < rows; i++) {
    timesMs[i] = 9 * HOUR + 30 * MIN + i * 5000 + ((i * 311) % 1000);
    fields.forEach((f, c) => {
      let v: number;
      if (f.name === 'pre_close' || f.name === 'pct_chg') v = NaN;
      else if (f.name === 'transaction_num') {
        v = i === 10 || i === 11 || i === 500 ? NaN : i === 600 ? -(2 ** 35 + 3) : 2 ** 33 + i * 1001;
      } else if (f.name.includes('_vol')) v = i % 13 === 0 ? NaN : (i * 7 + c) * 100;
      else v = cents(3500 + Math.cos(i / 17) * 20 + c * 0.01);
      values[c][i] = v;
    });
  }
  return { dataset: 'index', symbol: '000300', tradedate: '20240315', rows, timesMs, values };
}

const code = (letter: string) => letter.charCodeAt(0);

/**
 * Trades: ids increasing, several per millisecond, bs_flag B/S/N with the 09:25 auction's N,
 * Shenzhen-style cancellations (trade_code C, price 0, one order id null), a row group where
 * bs_flag is entirely null, ids above 2^32.
 */
function tradeDay(rows: number): SymbolDayColumns {
  const { at, values, timesMs } = blankColumns('trade', rows);
  for (let i = 0; i < rows; i++) {
    const auction = i < 40;
    timesMs[i] = auction ? 9 * HOUR + 25 * MIN : 9 * HOUR + 30 * MIN + Math.floor(i / 3) * 700;
    const cancel = !auction && i % 17 === 0;
    const bsNull = i >= 200 && i < 300; // a whole row group (size 100) with no bs_flag
    values[at('trade_id')][i] = 2 ** 33 + i;
    values[at('price')][i] = cancel ? 0 : cents(10 + (i % 9) * 0.01);
    values[at('volume')][i] = 100 * (1 + (i % 11));
    values[at('amount')][i] = cancel ? 0 : cents(100 * (1 + (i % 11)) * (10 + (i % 9) * 0.01));
    values[at('bs_flag')][i] = cancel || bsNull ? NaN : auction ? code('N') : code(i % 2 ? 'B' : 'S');
    values[at('trade_code')][i] = code(cancel ? 'C' : 'F');
    values[at('buy_order_id')][i] = cancel && i % 2 ? NaN : 2 * i + 1;
    values[at('sell_order_id')][i] = cancel && !(i % 2) ? NaN : 2 * i + 2;
  }
  return { dataset: 'trade', symbol: '000001.SZ', tradedate: '20240102', rows, timesMs, values };
}

/** Orders: limit, market (price and amount null) and Shanghai deletions, order_no mostly set. */
function orderDay(rows: number): SymbolDayColumns {
  const { at, values, timesMs } = blankColumns('order', rows);
  for (let i = 0; i < rows; i++) {
    timesMs[i] = 9 * HOUR + 15 * MIN + Math.floor(i / 2) * 1300;
    const type = i % 10 === 3 ? 'M' : i % 10 === 7 ? 'D' : 'L';
    values[at('order_id')][i] = i + 1;
    values[at('price')][i] = type === 'M' ? NaN : cents(10 + (i % 5) * 0.01);
    values[at('volume')][i] = 100 * (1 + (i % 7));
    values[at('amount')][i] = type === 'L' ? cents(100 * (1 + (i % 7)) * (10 + (i % 5) * 0.01)) : NaN;
    values[at('side')][i] = code(i % 3 ? 'B' : 'S');
    values[at('order_type')][i] = code(type);
    values[at('order_no')][i] = i % 13 === 0 ? NaN : 500_000 + i * 3;
  }
  return { dataset: 'order', symbol: '600000.SH', tradedate: '20240102', rows, timesMs, values };
}

function timeText(day: SymbolDayColumns, i: number): string {
  return SCHEMAS[day.dataset].timeForm === 'level2' ? formatLevel2Time(day.timesMs[i]) : formatIndexTime(day.tradedate, day.timesMs[i]);
}

/** The value each column of row i must read back as (DuckDB/hyparquet JS forms). */
function expectedRow(day: SymbolDayColumns, i: number): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  let numeric = 0;
  for (const f of SCHEMAS[day.dataset].fields) {
    if (f.type === 'string') {
      row[f.name] = f.name === 'symbol' ? day.symbol : f.name === 'tradedate' ? day.tradedate : timeText(day, i);
      continue;
    }
    const v = day.values[numeric++][i];
    row[f.name] = Number.isNaN(v) ? null : f.type === 'int64' ? BigInt(v) : f.type === 'code' ? String.fromCharCode(v) : v;
  }
  return row;
}

function assertRows(label: string, day: SymbolDayColumns, got: Record<string, unknown>[]): void {
  assert.is(got.length, day.rows, `${label}: row count`);
  const names = SCHEMAS[day.dataset].fieldNames;
  for (let i = 0; i < day.rows; i++) {
    const want = expectedRow(day, i);
    for (const name of names) {
      if (!Object.is(got[i][name], want[name])) {
        assert.unreachable(`${label}: row ${i} ${name} = ${String(got[i][name])}, expected ${String(want[name])}`);
      }
    }
  }
}

interface ChunkStats {
  min: number | bigint | string | null;
  max: number | bigint | string | null;
  nulls: number;
}

/** Per-column statistics of rows [start, end) as the writer should record them. */
function expectedStats(day: SymbolDayColumns, start: number, end: number): Map<string, ChunkStats> {
  const out = new Map<string, ChunkStats>();
  let numeric = 0;
  for (const f of SCHEMAS[day.dataset].fields) {
    if (f.type === 'string') {
      const texts = Array.from({ length: end - start }, (_, k) => String(expectedRow(day, start + k)[f.name]));
      const sorted = [...texts].sort();
      out.set(f.name, { min: sorted[0], max: sorted[sorted.length - 1], nulls: 0 });
      continue;
    }
    const col = day.values[numeric++].subarray(start, end);
    const present = Array.from(col).filter((v) => !Number.isNaN(v));
    if (f.type === 'code') {
      const letters = present.map((v) => String.fromCharCode(v)).sort();
      out.set(f.name, { min: letters[0] ?? null, max: letters[letters.length - 1] ?? null, nulls: col.length - present.length });
      continue;
    }
    const wrap = (v: number) => (f.type === 'int64' ? BigInt(v) : v);
    out.set(f.name, {
      min: present.length ? wrap(Math.min(...present)) : null,
      max: present.length ? wrap(Math.max(...present)) : null,
      nulls: col.length - present.length,
    });
  }
  return out;
}

/**
 * arrow-rs's Parquet reader compiled to WebAssembly (parquet-wasm): a third implementation,
 * independent of DuckDB's C++ and hyparquet's JavaScript. It hands back Arrow IPC, which
 * apache-arrow decodes into rows.
 */
function readWithParquetWasm(bytes: Uint8Array): Record<string, unknown>[] {
  const wasmTable = readParquet(bytes);
  const table = tableFromIPC(wasmTable.intoIPCStream());
  const names = table.schema.fields.map((f) => f.name);
  const columns = names.map((n) => table.getChild(n)!);
  const rows: Record<string, unknown>[] = [];
  for (let i = 0; i < table.numRows; i++) {
    const row: Record<string, unknown> = {};
    names.forEach((n, k) => (row[n] = columns[k]!.get(i)));
    rows.push(row);
  }
  return rows;
}

/** A decoded value in the rows' JS form: NaN is null, INT64 columns are bigint. */
function asRowValue(v: string | number | null, type: FieldType): unknown {
  if (v === null || (typeof v === 'number' && Number.isNaN(v))) return null;
  return type === 'int64' ? BigInt(v) : v;
}

/** Our fast reader (storage/parquet/reader.ts): every row group, every column, through the footer. */
async function readWithFastReader(path: string, dataset: Dataset): Promise<Record<string, unknown>[]> {
  const fields = SCHEMAS[dataset].fields;
  return withFile(path, async (fh) => {
    const footer = await readFooter(fh, (await fh.stat()).size);
    assert.equal(
      footer.columns.map((c) => c.name),
      SCHEMAS[dataset].fieldNames,
    );
    const groups = await readRowGroups(
      fh,
      footer,
      footer.rowGroups.map((_, g) => g),
      fields.map((_, c) => c),
    );
    const rows: Record<string, unknown>[] = [];
    groups.forEach((cols, g) => {
      for (let r = 0; r < footer.rowGroups[g].numRows; r++) {
        const row: Record<string, unknown> = {};
        fields.forEach((f, c) => (row[f.name] = asRowValue(cols.get(c)!.values[r], f.type)));
        rows.push(row);
      }
    });
    return rows;
  });
}

/** Our general reader (storage/parquet/generalReader.ts, hyparquet with the synchronous codec). */
async function readWithGeneralReader(bytes: Uint8Array, day: SymbolDayColumns): Promise<Record<string, unknown>[]> {
  const fields = SCHEMAS[day.dataset].fields;
  const columns = await readNamedColumns(bytes, SCHEMAS[day.dataset].fieldNames, day.rows);
  return Array.from({ length: day.rows }, (_, r) => Object.fromEntries(fields.map((f, c) => [f.name, asRowValue(columns[c][r], f.type)])));
}

/** hyparquet only takes synchronous decompressors: inflate every page up front, keyed by its bytes. */
async function readWithHyparquet(bytes: Uint8Array): Promise<Record<string, unknown>[]> {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const meta = parquetMetadata(file);
  const view = new DataView(file);
  const pages = new Map<string, Uint8Array>();
  const key = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');
  for (const rg of meta.row_groups) {
    for (const chunk of rg.columns) {
      const md = chunk.meta_data!;
      assert.is(md.codec, 'ZSTD');
      const start = Number(md.dictionary_page_offset ?? md.data_page_offset);
      const end = start + Number(md.total_compressed_size);
      const reader = { view, offset: start };
      while (reader.offset < end) {
        const header = parquetHeader(reader);
        const body = new Uint8Array(file, reader.offset, header.compressed_page_size);
        const plain = await decompress(Buffer.from(body));
        assert.is(plain.length, header.uncompressed_page_size);
        pages.set(key(body), new Uint8Array(plain));
        reader.offset += header.compressed_page_size;
      }
      assert.is(reader.offset, end, 'column chunk size matches its pages');
    }
  }
  return parquetReadObjects({
    file,
    compressors: {
      ZSTD: (input: Uint8Array) => {
        const page = pages.get(key(input));
        if (!page) throw new Error('page not pre-decompressed');
        return page;
      },
    },
  });
}

const cases: { name: string; day: () => SymbolDayColumns; rowGroupSize: number }[] = [
  { name: 'level2', day: () => level2Day(2345), rowGroupSize: 150 },
  { name: 'index', day: () => indexDay(777), rowGroupSize: 100 },
  { name: 'level2 single row', day: () => level2Day(1), rowGroupSize: 1000 },
  { name: 'index one row group', day: () => indexDay(300), rowGroupSize: 5000 },
  { name: 'trade', day: () => tradeDay(1234), rowGroupSize: 100 },
  { name: 'order', day: () => orderDay(999), rowGroupSize: 250 },
];

const ctx: { dir: string; inst?: DuckDBInstance; con?: DuckDBConnection } = { dir: '' };
const t = suite('storage/parquet: the writer read back by both our readers, DuckDB, hyparquet and arrow-rs');

t.before(async () => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'tickvault-parquet-test-'));
  ctx.inst = await DuckDBInstance.create(':memory:');
  ctx.con = await ctx.inst.connect();
});

t.after(async () => {
  ctx.con?.closeSync();
  ctx.inst?.closeSync();
  await rm(ctx.dir, { recursive: true, force: true });
});

async function query(sql: string): Promise<Record<string, unknown>[]> {
  const r = await ctx.con!.runAndReadAll(sql);
  return r.getRowObjectsJS() as Record<string, unknown>[];
}

async function writeCase(name: string, bytes: Uint8Array): Promise<string> {
  const path = join(ctx.dir, `${name.replace(/\W+/g, '_')}.parquet`);
  await writeFile(path, bytes);
  return path.replaceAll("'", "''");
}

for (const c of cases) {
  t(`${c.name}: reads back identically with our fast and general readers, DuckDB, hyparquet and arrow-rs (parquet-wasm)`, async () => {
    const day = c.day();
    const bytes = await encodeParquet(day, { rowGroupSize: c.rowGroupSize });
    assert.equal(Buffer.from(bytes.subarray(0, 4)).toString(), 'PAR1');
    assert.equal(Buffer.from(bytes.subarray(bytes.length - 4)).toString(), 'PAR1');
    const path = await writeCase(c.name, bytes);

    const rows = await query(`select * exclude (file_row_number) from read_parquet('${path}', file_row_number = true) order by file_row_number`);
    assertRows('duckdb', day, rows);
    assertRows('hyparquet', day, await readWithHyparquet(bytes));
    assertRows('parquet-wasm', day, readWithParquetWasm(bytes));
    assertRows('fast reader', day, await readWithFastReader(path.replaceAll("''", "'"), day.dataset));
    assertRows('general reader', day, await readWithGeneralReader(bytes, day));
  });

  t(`${c.name}: schema, ZSTD, row groups and statistics`, async () => {
    const day = c.day();
    const schema = SCHEMAS[day.dataset];
    const path = await writeCase(`${c.name}-meta`, await encodeParquet(day, { rowGroupSize: c.rowGroupSize }));

    const described = await query(`describe select * from read_parquet('${path}')`);
    const duckType = { string: 'VARCHAR', code: 'VARCHAR', double: 'DOUBLE', int64: 'BIGINT' } as const;
    assert.equal(
      described.map((r) => [r.column_name, r.column_type]),
      schema.fields.map((f) => [f.name, duckType[f.type]]),
    );

    const physical = await query(`select name, type, repetition_type, converted_type, logical_type from parquet_schema('${path}') where num_children is null`);
    assert.equal(
      physical.map((r) => [r.name, r.type, r.repetition_type, r.converted_type, r.logical_type]),
      schema.fields.map((f) =>
        f.type === 'string'
          ? [f.name, 'BYTE_ARRAY', 'REQUIRED', 'UTF8', 'StringType()']
          : f.type === 'code'
            ? [f.name, 'BYTE_ARRAY', 'OPTIONAL', 'UTF8', 'StringType()']
            : [f.name, f.type === 'int64' ? 'INT64' : 'DOUBLE', 'OPTIONAL', null, null],
      ),
    );

    const fileMeta = await query(`select created_by, num_rows, num_row_groups from parquet_file_metadata('${path}')`);
    assert.ok(String(fileMeta[0].created_by).startsWith('tickvault'));
    assert.is(fileMeta[0].num_rows, BigInt(day.rows));
    const groups = Math.ceil(day.rows / c.rowGroupSize);
    assert.is(fileMeta[0].num_row_groups, BigInt(groups));

    const meta = await query(
      `select row_group_id, row_group_num_rows, path_in_schema, compression, stats_min_value, stats_max_value, stats_null_count
       from parquet_metadata('${path}') order by row_group_id, column_id`,
    );
    assert.is(meta.length, groups * schema.fields.length);
    for (let g = 0; g < groups; g++) {
      const start = g * c.rowGroupSize;
      const end = Math.min(day.rows, start + c.rowGroupSize);
      const want = expectedStats(day, start, end);
      const chunks = meta.filter((m) => m.row_group_id === BigInt(g));
      assert.equal(
        chunks.map((m) => m.path_in_schema),
        schema.fieldNames,
        `row group ${g} columns`,
      );
      for (const m of chunks) {
        const name = String(m.path_in_schema);
        const w = want.get(name)!;
        const where = `row group ${g} ${name}`;
        assert.is(m.row_group_num_rows, BigInt(end - start), `${where} rows`);
        assert.is(m.compression, 'ZSTD', `${where} codec`);
        assert.is(m.stats_null_count, BigInt(w.nulls), `${where} null count`);
        const parse = (s: unknown) => (s === null ? null : typeof w.min === 'string' ? s : typeof w.min === 'bigint' ? BigInt(String(s)) : Number(s));
        assert.is(parse(m.stats_min_value), w.min, `${where} min`);
        assert.is(parse(m.stats_max_value), w.max, `${where} max`);
      }
      const time = chunks.find((m) => m.path_in_schema === 'time')!;
      assert.is(time.stats_min_value, timeText(day, start), `row group ${g} time min`);
      assert.is(time.stats_max_value, timeText(day, end - 1), `row group ${g} time max`);
    }
  });
}

t('levels 2-10 of the auction row group are all null and carry no bounds', async () => {
  const day = level2Day(2345);
  const path = await writeCase('auction', await encodeParquet(day, { rowGroupSize: 150 }));
  const rows = await query(
    `select path_in_schema, stats_min_value, stats_null_count from parquet_metadata('${path}') where row_group_id = 0 and path_in_schema in ('bid2', 'ask_vol10', 'bid1')`,
  );
  const bid1Min = expectedStats(day, 0, 150).get('bid1')!.min;
  assert.ok(typeof bid1Min === 'number');
  assert.equal(rows, [
    { path_in_schema: 'bid1', stats_min_value: String(bid1Min), stats_null_count: 0n },
    { path_in_schema: 'bid2', stats_min_value: null, stats_null_count: 150n },
    { path_in_schema: 'ask_vol10', stats_min_value: null, stats_null_count: 150n },
  ]);
});

t('compressionLevel is applied', async () => {
  const day = level2Day(2345);
  const fast = await encodeParquet(day, { rowGroupSize: 500, compressionLevel: 1 });
  const small = await encodeParquet(day, { rowGroupSize: 500, compressionLevel: 9 });
  assert.ok(small.length < fast.length, `level 9 (${small.length} B) should beat level 1 (${fast.length} B)`);
});

t('rejects inputs that do not match the schema', async () => {
  const day = indexDay(20);
  const rejects = async (cols: SymbolDayColumns, rowGroupSize: number, pattern: RegExp) => {
    try {
      await encodeParquet(cols, { rowGroupSize });
    } catch (e) {
      assert.match(String(e), pattern);
      return;
    }
    assert.unreachable(`expected ${pattern}`);
  };
  await rejects({ ...day, values: day.values.slice(1) }, 10, /value columns/);
  await rejects({ ...day, timesMs: day.timesMs.subarray(1) }, 10, /timesMs/);
  await rejects(day, 0, /rowGroupSize/);
  const fractional = day.values.map((v) => v.slice());
  fractional[SCHEMAS.index.valueFields.findIndex((f) => f.type === 'int64')][3] = 1.5;
  await rejects({ ...day, values: fractional }, 10, /transaction_num/);
  const dataset: Dataset = 'level2';
  await rejects({ ...day, dataset }, 10, /value columns/);
});

t.run();
