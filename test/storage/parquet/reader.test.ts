import { readFile, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SCHEMAS } from '../../../shared/schema.js';
import { DamagedFileError } from '../../../storage/damagedFile.js';
import type { ByteSource } from '../../../storage/parquet/byteSource.js';
import { UnsupportedParquetError } from '../../../storage/parquet/format.js';
import { readFooter, type ChunkDesc, type ParquetFooter } from '../../../storage/parquet/metadata.js';
import { readRowGroups, withFile, type DecodedColumn } from '../../../storage/parquet/reader.js';
import { decodeChunk } from '../../../storage/parquet/columnChunk.js';
import { decompressPages, splitPages } from '../../../storage/parquet/page.js';
import { duckChunks, duckColumns, openScratch, writeLevel2File, type Scratch } from './level2Fixture.js';

let ctx: Scratch;
const t = suite('storage/parquet/reader: reads only the requested chunks, decodes what DuckDB reads, names damage');

const col = (name: string) => SCHEMAS.level2.fieldNames.indexOf(name);
const ROWS = 2400;
const GROUP = 1200; // SCHEMAS.level2's row group size: a quarter of a day's snapshots
const GROUPS = [0, 1];

t.before(async () => {
  ctx = await openScratch('reader');
});

t.after(() => ctx.close());

async function footerOf(path: string): Promise<ParquetFooter> {
  return withFile(path, async (fh) => readFooter(fh, (await fh.stat()).size));
}

/** The footer with one chunk's description changed: a file whose data no longer matches it. */
function withChunk(footer: ParquetFooter, g: number, c: number, patch: Partial<ChunkDesc>): ParquetFooter {
  return {
    ...footer,
    rowGroups: footer.rowGroups.map((rg, i) => (i !== g ? rg : { ...rg, chunks: rg.chunks.map((ch, j) => (j === c ? { ...ch, ...patch } : ch)) })),
  };
}

/** Rejects with the error `fn` throws, or fails the test. */
async function thrown(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (e) {
    return e;
  }
  return assert.unreachable('expected an error');
}

function concatColumn(groups: Map<number, DecodedColumn>[], c: number): unknown[] {
  return groups.flatMap((m) => Array.from(m.get(c)!.values as ArrayLike<string | number | null>, (v) => (typeof v === 'number' && Number.isNaN(v) ? null : v)));
}

t('time and close of every row group: bytes read are exactly those chunks (DuckDB sizes), values are what DuckDB reads', async () => {
  const path = await writeLevel2File(ctx.dir, ROWS, GROUP);
  const footer = await footerOf(path);
  const time = col('time');
  const close = col('close');
  const chunks = (await duckChunks(ctx.con, path)).filter((m) => m.column === time || m.column === close);
  assert.is(chunks.length, 2 * GROUPS.length);

  const reads: { position: number; bytesRead: number }[] = [];
  const groups = await withFile(path, (fh) => {
    const counting: ByteSource = {
      read: async (buffer, offset, length, position) => {
        const r = await fh.read(buffer, offset, length, position);
        reads.push({ position, bytesRead: r.bytesRead });
        return r;
      },
    };
    return readRowGroups(counting, footer, GROUPS, [time, close]);
  });

  const bytesRead = reads.reduce((s, r) => s + r.bytesRead, 0);
  const chunkBytes = chunks.reduce((s, m) => s + m.length, 0);
  assert.is(bytesRead, chunkBytes, 'bytes read = the two chunks of each row group, by DuckDB');
  for (const r of reads) {
    const inside = chunks.some((m) => r.position >= m.start && r.position + r.bytesRead <= m.start + m.length);
    assert.ok(inside, `read of ${r.bytesRead} bytes at ${r.position} lies inside a requested chunk`);
  }
  // What the reader used to read: one range from the first requested chunk to the end of the last.
  const span = GROUPS.reduce((s, g) => {
    const [a, b] = [time, close].map((c) => chunks.find((m) => m.group === g && m.column === c)!);
    return s + (b.start + b.length - a.start);
  }, 0);
  assert.ok(bytesRead < span, `${bytesRead} bytes read, against ${span} for the old first-to-last range`);
  console.log(`  time,close of ${GROUPS.length} row groups: ${bytesRead} bytes read (old min..max range: ${span})`);

  assert.equal(
    groups.map((m) => [...m.keys()]),
    GROUPS.map(() => [time, close]),
    'exactly the requested columns',
  );
  const [duckTime, duckClose] = await duckColumns(ctx.con, path, ['time', 'close']);
  assert.equal(concatColumn(groups, time), duckTime);
  assert.equal(concatColumn(groups, close), duckClose);
  assert.ok(duckClose.some((v) => v !== null) && duckTime.length === ROWS);
});

t('every column of every row group, nulls included: what DuckDB reads; numeric values never taken from what the room held before', async () => {
  const path = await writeLevel2File(ctx.dir, ROWS, GROUP);
  const footer = await footerOf(path);
  const all = SCHEMAS.level2.fieldNames.map((_, i) => i);
  const groups = await withFile(path, (fh) => readRowGroups(fh, footer, GROUPS, all));
  const duck = await duckColumns(ctx.con, path, SCHEMAS.level2.fieldNames);
  for (const c of all) assert.equal(concatColumn(groups, c), duck[c], SCHEMAS.level2.fieldNames[c]);
  const deep = col('bid10');
  assert.ok(duck[deep].slice(0, 200).every((v) => v === null) && duck[deep][200] !== null, 'a column with nulls, then values, in one page');

  // The same chunk decoded into room full of another number: nulls are NaN, values the page's.
  const bytes = await readFile(path);
  const chunk = footer.rowGroups[0].chunks[deep];
  const pages = splitPages(bytes, chunk.start, chunk.start + chunk.length, path);
  const data = await decompressPages(
    pages.map((page) => ({ codec: chunk.codec, page })),
    path,
  );
  const room = new Float64Array(GROUP).fill(12345);
  const decoded = decodeChunk(
    footer.columns[deep],
    pages.map((page, i) => ({ page, data: data[i] })),
    GROUP,
    path,
    room,
  );
  assert.is(decoded.values, room, 'decoded into the room given');
  assert.equal(
    Array.from(room, (v) => (Number.isNaN(v) ? null : v)),
    duck[deep].slice(0, GROUP),
  );
});

t('a file shorter than its footer says: DamagedFileError naming the path withFile opened', async () => {
  const path = await writeLevel2File(ctx.dir, ROWS, GROUP);
  const footer = await footerOf(path); // as a cache holds it from before the damage
  const close = footer.rowGroups[1].chunks[col('close')];
  await truncate(path, close.start + Math.floor(close.length / 2));
  const e = await thrown(() => withFile(path, (fh) => readRowGroups(fh, footer, [1], [col('close')])));
  assert.instance(e, DamagedFileError);
  assert.is((e as DamagedFileError).path, path);
  assert.match((e as Error).message, /shorter than its footer says/);
});

t('a page running past the end of its chunk (the footer says the chunk is shorter): DamagedFileError', async () => {
  const path = await writeLevel2File(ctx.dir, ROWS, GROUP);
  const footer = await footerOf(path);
  const c = col('close');
  const short = withChunk(footer, 0, c, { length: footer.rowGroups[0].chunks[c].length - 1 });
  const labelled = await thrown(() =>
    withFile(path, (fh) => readRowGroups({ path: 'level2/2024/x.parquet', read: (b, o, l, p) => fh.read(b, o, l, p) }, short, [0], [c])),
  );
  assert.instance(labelled, DamagedFileError);
  assert.is((labelled as DamagedFileError).path, 'level2/2024/x.parquet', "the source's own path");
  assert.match((labelled as Error).message, /truncated page/);
  const unnamed = await thrown(() => withFile(path, (fh) => readRowGroups({ read: (b, o, l, p) => fh.read(b, o, l, p) }, short, [0], [c])));
  assert.is((unnamed as DamagedFileError).path, '(parquet file)');
  const explicit = await thrown(() => withFile(path, (fh) => readRowGroups(fh, short, [0], [c], 'given/path.parquet')));
  assert.is((explicit as DamagedFileError).path, 'given/path.parquet');
});

t('a page header whose uncompressed size is off by one: DamagedFileError (pages decompress to another size)', async () => {
  const path = await writeLevel2File(ctx.dir, ROWS, GROUP);
  const footer = await footerOf(path);
  const c = col('close');
  const at = footer.rowGroups[0].chunks[c].start;
  const bytes = await readFile(path);
  // PageHeader in Thrift compact form: field 1 (i32 type) = 0x15 and a zigzag varint, then
  // field 2 (i32 uncompressed_page_size) = 0x15 and its zigzag varint; +2 in the varint's
  // low bits is +1 in the size.
  assert.is(bytes[at], 0x15);
  assert.is(bytes[at + 2], 0x15);
  bytes[at + 3] = (bytes[at + 3] & 0x7f) < 0x7e ? bytes[at + 3] + 2 : bytes[at + 3] - 2;
  const patched = join(ctx.dir, 'patched.parquet');
  await writeFile(patched, bytes);
  const e = await thrown(() => withFile(patched, (fh) => readRowGroups(fh, footer, [0], [c])));
  assert.instance(e, DamagedFileError);
  assert.is((e as DamagedFileError).path, patched);
  assert.match((e as Error).message, /decompress to \d+ bytes, their headers say \d+/);
});

t('a codec outside the subset stays UnsupportedParquetError (callers fall back to the general reader on it)', async () => {
  const path = await writeLevel2File(ctx.dir, ROWS, GROUP);
  const footer = await footerOf(path);
  const snappy = withChunk(footer, 0, col('close'), { codec: 1 });
  const e = await thrown(() => withFile(path, (fh) => readRowGroups(fh, snappy, [0], [col('close')])));
  assert.instance(e, UnsupportedParquetError);
  assert.not.instance(e, DamagedFileError);
});

t.run();
