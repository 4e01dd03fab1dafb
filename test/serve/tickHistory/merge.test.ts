/**
 * planDay + mergeDay against a brute-force sort of every selected row, over synthetic
 * symbol-days with shared timestamps (ties broken by symbol), empty minutes (lunch), empty
 * files and row windows that cut minutes in half.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { buildMinuteIndex, minuteStarts } from '../../../storage/minuteIndex.js';
import { mergeDay, planDay, selectedRows, type Direction, type MergeSource } from '../../../serve/tickHistory/merge.js';

interface Fixture {
  readonly times: Int32Array[];
  readonly sources: MergeSource[];
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const HM = (h: number, m: number) => (h * 60 + m) * 60_000;

function fixture(seed: number, files: number, window?: { lo: number; hi: number }): Fixture {
  const rnd = rng(seed);
  const times: Int32Array[] = [];
  for (let f = 0; f < files; f++) {
    const t: number[] = [];
    if (f === 1) {
      times.push(new Int32Array(0)); // a symbol with an empty selection
      continue;
    }
    // Mostly on a shared 3 s grid (ties across files), sometimes jittered, with a lunch gap.
    for (let ms = HM(9, 25); ms < HM(15, 0); ms += 3000) {
      if (ms >= HM(11, 30) && ms < HM(13, 0)) continue;
      if (rnd() < 0.15) continue;
      t.push(rnd() < 0.5 ? ms : ms + Math.floor(rnd() * 999));
    }
    times.push(Int32Array.from(t));
  }
  const sources = times.map((t): MergeSource => {
    const minuteIndex = buildMinuteIndex(t);
    const lo = window ? Math.min(window.lo, t.length) : 0;
    const hi = window ? Math.min(window.hi, t.length) : t.length;
    return { lo, hi, minuteIndex, starts: minuteStarts(minuteIndex) };
  });
  return { times, sources };
}

function bruteForce(fx: Fixture, dir: Direction): [number, number][] {
  const rows: [number, number][] = [];
  fx.sources.forEach((s, i) => {
    for (let p = s.lo; p < s.hi; p++) rows.push([i, p]);
  });
  rows.sort((a, b) => fx.times[a[0]][a[1]] - fx.times[b[0]][b[1]] || a[0] - b[0]);
  return dir === 'asc' ? rows : rows.reverse();
}

function page(fx: Fixture, rank: number, take: number, dir: Direction): [number, number][] {
  const plan = planDay(fx.sources, rank, take, dir);
  for (let s = 0; s < fx.sources.length; s++) {
    assert.ok(plan.from[s] >= fx.sources[s].lo && plan.to[s] <= Math.max(fx.sources[s].lo, fx.sources[s].hi), 'spans stay inside the selection');
  }
  return mergeDay(plan, take, dir, (s, p) => {
    assert.ok(p >= plan.from[s] && p < plan.to[s], `read outside the plan: source ${s} position ${p}`);
    return fx.times[s][p];
  }).map((r) => [r.source, r.position]);
}

const merge = suite('tickHistory/merge');

merge('pages at every kind of rank equal the brute-force order, both directions', () => {
  const fx = fixture(7, 6);
  const total = selectedRows(fx.sources);
  for (const dir of ['asc', 'desc'] as const) {
    const all = bruteForce(fx, dir);
    assert.is(all.length, total);
    for (const [rank, take] of [
      [0, 1],
      [0, 50],
      [17, 3],
      [1234, 500],
      [total - 5, 10],
      [total - 1, 1],
      [4000, 6000],
      [0, total + 10],
    ]) {
      assert.equal(page(fx, rank, take, dir), all.slice(rank, rank + take), `${dir} rank ${rank} take ${take}`);
    }
  }
});

merge('random ranks and takes over windows that cut minutes', () => {
  for (let seed = 1; seed <= 12; seed++) {
    const rnd = rng(seed * 31);
    const fx = fixture(seed, 2 + (seed % 5), { lo: Math.floor(rnd() * 300), hi: 1500 + Math.floor(rnd() * 2000) });
    const total = selectedRows(fx.sources);
    for (const dir of ['asc', 'desc'] as const) {
      const all = bruteForce(fx, dir);
      for (let k = 0; k < 10; k++) {
        const rank = Math.floor(rnd() * total);
        const take = 1 + Math.floor(rnd() * 700);
        assert.equal(page(fx, rank, take, dir), all.slice(rank, rank + take), `seed ${seed} ${dir} rank ${rank} take ${take}`);
      }
    }
  }
});

merge('the plan reads only the minutes around the page, not the rows before it', () => {
  const fx = fixture(3, 5);
  const total = selectedRows(fx.sources);
  const rank = Math.floor(total * 0.8);
  const plan = planDay(fx.sources, rank, 30, 'asc');
  let spanRows = 0;
  for (let s = 0; s < fx.sources.length; s++) spanRows += plan.to[s] - plan.from[s];
  // ~5 files x ~17 rows a minute: a couple of minutes' worth, far below the rank.
  assert.ok(spanRows < 300, `read ${spanRows} rows`);
  assert.ok(plan.skip < spanRows);
});

merge('a rank beyond the selection is a RangeError', () => {
  const fx = fixture(5, 3);
  assert.throws(() => planDay(fx.sources, selectedRows(fx.sources), 1, 'asc'), RangeError);
});

merge.run();
