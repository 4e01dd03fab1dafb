import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SCHEMAS } from '../../../shared/schema.js';
import { readFooter, type ParquetFooter } from '../../../storage/parquet/metadata.js';
import { planRowGroupReads } from '../../../storage/parquet/readPlan.js';
import { withFile } from '../../../storage/parquet/reader.js';
import { duckChunks, openScratch, writeLevel2File, type DuckChunk, type Scratch } from './level2Fixture.js';

let scratch: Scratch;
const ctx: { path: string; footer?: ParquetFooter; chunks: DuckChunk[] } = { path: '', chunks: [] };
const t = suite('storage/parquet/readPlan: the byte ranges of exactly the requested column chunks, from the footer');

const col = (name: string) => SCHEMAS.level2.fieldNames.indexOf(name);

t.before(async () => {
  scratch = await openScratch('readplan');
  ctx.path = await writeLevel2File(scratch.dir, 1000, 300);
  ctx.footer = await withFile(ctx.path, async (fh) => readFooter(fh, (await fh.stat()).size));
  ctx.chunks = await duckChunks(scratch.con, ctx.path);
});

t.after(() => scratch.close());

t('time and close (not adjacent): one read per chunk, at the offsets and lengths DuckDB reports', () => {
  const time = col('time');
  const close = col('close');
  assert.ok(close - time > 1, 'columns lie between time and close');
  const plans = planRowGroupReads(ctx.footer!, [0, 1, 2, 3], [time, close]);
  assert.is(plans.length, 4);
  plans.forEach((plan, g) => {
    const duck = (c: number) => ctx.chunks.find((m) => m.group === g && m.column === c)!;
    assert.is(plan.group, g);
    assert.is(plan.numRows, g < 3 ? 300 : 100);
    assert.equal(
      plan.reads.map((r) => ({ start: r.start, length: r.length, columns: r.chunks.map((ch) => ch.column) })),
      [time, close].map((c) => ({ start: duck(c).start, length: duck(c).length, columns: [c] })),
      `row group ${g}`,
    );
  });
});

t('contiguous chunks are coalesced into one read, and only those', () => {
  const [open, high, low] = ['open', 'high', 'low'].map(col);
  const far = col('ask_vol10');
  const plans = planRowGroupReads(ctx.footer!, [1], [low, far, open, high]);
  const duck = (c: number) => ctx.chunks.find((m) => m.group === 1 && m.column === c)!;
  // DuckDB confirms the three touch end to end in the file.
  assert.is(duck(open).start + duck(open).length, duck(high).start);
  assert.is(duck(high).start + duck(high).length, duck(low).start);
  assert.equal(
    plans[0].reads.map((r) => ({ start: r.start, length: r.length, columns: r.chunks.map((ch) => ch.column) })),
    [
      { start: duck(open).start, length: duck(open).length + duck(high).length + duck(low).length, columns: [open, high, low] },
      { start: duck(far).start, length: duck(far).length, columns: [far] },
    ],
  );
});

t('every column of a row group is one read of the whole group', () => {
  const all = SCHEMAS.level2.fieldNames.map((_, c) => c);
  const [plan] = planRowGroupReads(ctx.footer!, [2], all);
  const group = ctx.chunks.filter((m) => m.group === 2);
  const start = Math.min(...group.map((m) => m.start));
  assert.equal(
    plan.reads.map((r) => [r.start, r.length, r.chunks.length]),
    [[start, group.reduce((s, m) => s + m.length, 0), all.length]],
  );
});

t('repeated columns are planned once; row groups keep the order asked', () => {
  const time = col('time');
  const plans = planRowGroupReads(ctx.footer!, [3, 0], [time, time]);
  assert.equal(
    plans.map((p) => [p.group, p.reads.map((r) => r.chunks.map((ch) => ch.column))]),
    [
      [3, [[time]]],
      [0, [[time]]],
    ],
  );
});

t('a row group or column the file lacks is a RangeError', () => {
  assert.throws(
    () => planRowGroupReads(ctx.footer!, [4], [0]),
    (e: unknown) => e instanceof RangeError && /row group 4/.test(e.message),
  );
  const n = SCHEMAS.level2.fieldNames.length;
  assert.throws(
    () => planRowGroupReads(ctx.footer!, [0], [n]),
    (e: unknown) => e instanceof RangeError && new RegExp(`column ${n}`).test(e.message),
  );
});

t.run();
