/**
 * The parts of making a sealed file's row text (storage/rowText/), measured one by one on one
 * generated stock-day: the level-2 file and the trade file of a liquid stock (issue 52: the row
 * text cost 1.8× the Parquet encode of a level-2 stock-day). CPU is process.cpuUsage(), which
 * counts libuv's threads too (zlib's async calls run there). Medians of `--repeat` runs.
 * `node dist/bench/rowText.bench.js [--ticks N] [--repeat N] [--variants]`.
 */
import { pathToFileURL } from 'node:url';
import { constants, crc32, deflateRaw as deflateRawCb, deflateRawSync } from 'node:zlib';
import { promisify } from 'node:util';
import { generateRows } from '../ingest/feed/generate.js';
import { SCHEMAS, type Dataset } from '../shared/schema.js';
import { bufferSource } from '../storage/parquet/byteSource.js';
import { readFooter } from '../storage/parquet/metadata.js';
import { readRowGroups, type DecodedColumn } from '../storage/parquet/reader.js';
import { encodeParquet, type SymbolDayColumns } from '../storage/parquet/writer.js';
import { columnsAsRead, rowColumnsOf, rowTextOf, rowTextOfColumns } from '../storage/rowText/rowTextBuild.js';
import { ALL_FIELDS, ROW_BYTES, serializeColumns, serializeRows, type RowColumn, type SerializedRows } from '../storage/rowText/rowJson.js';
import { encodeRowText } from '../storage/rowText/rowTextFile.js';

const deflateRaw = promisify(deflateRawCb);

interface Collected {
  times: number[];
  values: number[][];
}

/** One stock's day of level-2 snapshots, trades and orders, as the seal would hand them to the encoder. */
export function generatedStockDay(ticks: number): Record<'level2' | 'trade' | 'order', SymbolDayColumns> {
  const sets: Record<'level2' | 'trade' | 'order', Collected> = {
    level2: { times: [], values: SCHEMAS.level2.valueFields.map(() => []) },
    trade: { times: [], values: SCHEMAS.trade.valueFields.map(() => []) },
    order: { times: [], values: SCHEMAS.order.valueFields.map(() => []) },
  };
  let symbol = '';
  const into = (set: Collected) => (sym: string, _date: string, timeMs: number, values: Float64Array) => {
    symbol = sym;
    set.times.push(timeMs);
    for (let i = 0; i < values.length; i++) set.values[i]!.push(values[i]!);
  };
  generateRows(
    { days: ['20240102'], stocks: 1, indexes: 0, seed: 'rowtext', faults: 0, ticks },
    { level2: into(sets.level2), trade: into(sets.trade), order: into(sets.order), index: () => undefined },
  );
  const cols = (dataset: 'level2' | 'trade' | 'order'): SymbolDayColumns => {
    const s = sets[dataset];
    // Sorted by time, then id, as the seal sorts a bucket's rows.
    const idValue = SCHEMAS[dataset].idValue;
    const order = s.times
      .map((_, i) => i)
      .sort((a, b) => s.times[a]! - s.times[b]! || (idValue === null ? 0 : s.values[idValue]![a]! - s.values[idValue]![b]!));
    return {
      dataset,
      symbol,
      tradedate: '20240102',
      rows: order.length,
      timesMs: Int32Array.from(order, (i) => s.times[i]!),
      values: s.values.map((v) => Float64Array.from(order, (i) => v[i]!)),
    };
  };
  return { level2: cols('level2'), trade: cols('trade'), order: cols('order') };
}

interface Figure {
  cpuMs: number;
  wallMs: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

async function measure(repeat: number, f: () => unknown): Promise<Figure> {
  await f(); // warm
  const cpu: number[] = [];
  const wall: number[] = [];
  for (let i = 0; i < repeat; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await f();
    wall.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  return { cpuMs: median(cpu), wallMs: median(wall) };
}

function groupsOf(cols: SymbolDayColumns, asRead: readonly RowColumn[] = columnsAsRead(cols)): SerializedRows[] {
  const size = SCHEMAS[cols.dataset].rowGroupSize;
  const groups: SerializedRows[] = [];
  for (let from = 0; from < cols.rows; from += size) {
    const to = Math.min(cols.rows, from + size);
    groups.push(serializeColumns(asRead, from, to, (to - from) * (ROW_BYTES[cols.dataset] ?? 340)));
  }
  return groups;
}

const line = (name: string, f: Figure, extra = '') =>
  `  ${name.padEnd(44)} cpu ${f.cpuMs.toFixed(1).padStart(6)} ms  wall ${f.wallMs.toFixed(1).padStart(6)} ms${extra}`;

export async function benchRowText(opts: { ticks: number; repeat: number; variants: boolean; log: (s: string) => void }): Promise<void> {
  const { repeat, log } = opts;
  const day = generatedStockDay(opts.ticks);
  const sha = '00'.repeat(32);
  for (const dataset of ['level2', 'trade', 'order'] as const satisfies readonly Dataset[]) {
    const cols = day[dataset];
    const groups = groupsOf(cols);
    const fast = groupsOf(cols, rowColumnsOf(cols));
    if (!fast.every((g, i) => g.bytes.equals(groups[i]!.bytes))) throw new Error(`${dataset}: rowColumnsOf's text differs from columnsAsRead's`);
    const textBytes = groups.reduce((a, g) => a + g.bytes.length, 0);
    const whole = await rowTextOfColumns(cols, SCHEMAS[dataset].rowGroupSize, sha);
    log(
      `${dataset}: ${cols.rows} rows in ${groups.length} groups, text ${(textBytes / 1024).toFixed(0)} KiB, row text ${(whole.length / 1024).toFixed(1)} KiB`,
    );
    log(line('parquet encode (for scale)', await measure(repeat, () => encodeParquet(cols, { rowGroupSize: SCHEMAS[dataset].rowGroupSize }))));
    log(line('rowTextOfColumns (all)', await measure(repeat, () => rowTextOfColumns(cols, SCHEMAS[dataset].rowGroupSize, sha))));
    log(line('  columnsAsRead', await measure(repeat, () => columnsAsRead(cols))));
    const asRead = columnsAsRead(cols);
    log(line('  serializeRows of columnsAsRead (every group)', await measure(repeat, () => groupsOf(cols, asRead))));
    log(line('  rowColumnsOf', await measure(repeat, () => rowColumnsOf(cols))));
    const columns = rowColumnsOf(cols);
    log(line('  serializeColumns of rowColumnsOf', await measure(repeat, () => groupsOf(cols, columns))));
    log(line('  serializeRows, reader-shaped, fresh strings', await measure(repeat, () => groupsOf(cols))));
    log(line('  encodeRowText (deflate + index)', await measure(repeat, () => encodeRowText(groups, sha))));
    log(line('    crc32 of texts', await measure(repeat, () => groups.map((g) => crc32(g.bytes)))));
    // The path of a row text made after the seal (storage/rowText/rowTextKeeper.ts): from the file's bytes.
    const file = await encodeParquet(cols, { rowGroupSize: SCHEMAS[dataset].rowGroupSize });
    log(line('rowTextOf (from the Parquet bytes, all)', await measure(repeat, () => rowTextOf(file, dataset, sha, 'bench'))));
    const source = bufferSource(file, 'bench');
    const footer = await readFooter(source, file.byteLength);
    const all = ALL_FIELDS[dataset];
    const decodeAll = async () => {
      const out: DecodedColumn[][] = [];
      for (let g = 0; g < footer.rowGroups.length; g++) {
        const [m] = await readRowGroups(source, footer, [g], all, 'bench');
        out.push(all.map((c) => m!.get(c)!));
      }
      return out;
    };
    log(line('  readRowGroups (decode, every group)', await measure(repeat, decodeAll)));
    const decoded = await decodeAll();
    const serializeDecoded = () =>
      decoded.map((d, g) => serializeRows(d, 0, footer.rowGroups[g]!.numRows, footer.rowGroups[g]!.numRows * (ROW_BYTES[dataset] ?? 340)));
    log(line('  serializeRows of the decoded', await measure(repeat, serializeDecoded)));
    log(line('  encodeRowText (deflate + index)', await measure(repeat, () => encodeRowText(groups, sha))));
    if (!opts.variants) continue;
    const sized = (o: object) => ({ finishFlush: constants.Z_SYNC_FLUSH, chunkSize: Math.max(16 * 1024, textBytes >> 2), ...o });
    const variants: [string, object][] = [
      ['level 1', { level: 1 }],
      ['level 1 memLevel 9', { level: 1, memLevel: 9 }],
      ['level 1 memLevel 5', { level: 1, memLevel: 5 }],
      ['level 1 windowBits 12', { level: 1, windowBits: 12 }],
      ['level 1 windowBits 10', { level: 1, windowBits: 10 }],
      ['level 2', { level: 2 }],
      ['level 1 Z_RLE', { level: 1, strategy: constants.Z_RLE }],
      ['level 1 Z_HUFFMAN_ONLY', { level: 1, strategy: constants.Z_HUFFMAN_ONLY }],
      ['level 1 Z_FILTERED', { level: 1, strategy: constants.Z_FILTERED }],
    ];
    for (const [name, o] of variants) {
      let bytes = 0;
      const par = await measure(repeat, async () => {
        const frames = await Promise.all(groups.map((g) => deflateRaw(g.bytes, sized(o))));
        bytes = frames.reduce((a, f) => a + f.length, 0);
      });
      const seq = await measure(repeat, () => groups.map((g) => deflateRawSync(g.bytes, sized(o))));
      log(line(`    deflate ${name}, Promise.all`, par, `  ${(bytes / 1024).toFixed(1)} KiB`));
      log(line(`    deflate ${name}, sync sequential`, seq));
    }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const arg = (name: string, dflt: number) => {
    const i = process.argv.indexOf(name);
    return i < 0 ? dflt : Number(process.argv[i + 1]);
  };
  await benchRowText({ ticks: arg('--ticks', 8), repeat: arg('--repeat', 15), variants: process.argv.includes('--variants'), log: (s) => console.log(s) });
}
