/**
 * The warm-up's made-up day (storage/parquet/warmUp.ts): its row groups decode to the values it
 * was made of, and its numbers reach every branch of the serialiser a real day's do, or a real
 * page would be the first to meet them (a deoptimisation and a recompile on a user's page).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SCHEMAS } from '../../../shared/schema.js';
import { formatLevel2Time } from '../../../shared/timeFormat.js';
import { warmUpDay, warmUpRowGroups } from '../../../storage/parquet/warmUp.js';

const t = suite('storage/parquet/warmUp: a made-up day that decodes to itself and reaches every branch of the number writer');
const size = SCHEMAS.level2.rowGroupSize;

t('the row groups decode to the day they were made of, nulls included, every column', async () => {
  const day = warmUpDay(2 * size);
  const fields = SCHEMAS.level2.fields;
  let round = 0;
  for await (const g of warmUpRowGroups(3)) {
    const base = (round++ % 2) * size;
    assert.is(g.rows, size);
    assert.equal(g.columns.get(0)!.values[0], day.symbol);
    assert.equal(g.columns.get(1)!.values[size - 1], day.tradedate);
    assert.equal(g.columns.get(2)!.values[7], formatLevel2Time(day.timesMs[base + 7]));
    SCHEMAS.level2.valueFields.forEach((f, v) => {
      const col = g.columns.get(fields.indexOf(f))!;
      assert.is(col.kind, 'number', f.name);
      const got = Array.from(col.values as Float64Array);
      const want = Array.from(day.values[v].subarray(base, base + size));
      assert.equal(got, want, f.name); // NaN equals NaN in uvu's deep equal
    });
  }
  assert.is(round, 3);
});

t('its numbers: integers of 1 to 12 digits, cents past 2^31, three decimals, off the grids, negative, and nulls', () => {
  const values = warmUpDay(2 * size).values.flatMap((v) => Array.from(v));
  const integers = new Set(values.filter((x) => Number.isInteger(x)).map((x) => String(x).length));
  for (let d = 1; d <= 12; d++) assert.ok(integers.has(d), `an integer of ${d} digits`);
  assert.ok(
    values.some((x) => !Number.isInteger(x) && x > 2 ** 31 && Math.round(x * 100) / 100 === x),
    'cents above 2^31',
  );
  assert.ok(
    values.some((x) => Math.round(x * 100) / 100 !== x && Math.round(x * 1000) / 1000 === x),
    'three decimals',
  );
  assert.ok(
    values.some((x) => Number.isNaN(x)),
    'nulls',
  );
});

t.run();
