import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { buildMinuteIndex, minuteStarts } from '../../../storage/minuteIndex.js';
import { candidatePositions, minuteOfRow, type FileCandidates } from '../../../storage/boundary/candidates.js';
import { BoundaryBlock, decodeDirectory, encodeDirectory, partBlocks } from '../../../storage/boundary/partCodec.js';

const MINUTE = 60_000;

/** A random ascending day of times: bursts, empty minutes, a lunch gap. */
function randomTimes(seed: number, n: number): Int32Array {
  let x = seed;
  const rnd = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
  const out: number[] = [];
  let t = (9 * 60 + 25) * MINUTE;
  for (let i = 0; i < n; i++) {
    t += rnd() < 0.05 ? Math.floor(rnd() * 40 * MINUTE) : Math.floor(rnd() * 4000);
    out.push(t);
  }
  return Int32Array.from(out);
}

const candidates = suite('boundary candidates');

candidates('candidatePositions are exactly the first and last row of every minute that has rows', () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    const times = randomTimes(seed, 2000);
    const got = [...candidatePositions(minuteStarts(buildMinuteIndex(times)), times.length)];
    // Brute force: a row is a candidate when its minute differs from its neighbour's on either side.
    const want: number[] = [];
    for (let p = 0; p < times.length; p++) {
      const m = Math.floor(times[p] / MINUTE);
      const first = p === 0 || Math.floor(times[p - 1] / MINUTE) !== m;
      const last = p === times.length - 1 || Math.floor(times[p + 1] / MINUTE) !== m;
      if (first || last) want.push(p);
    }
    assert.equal(got, want, `seed ${seed}`);
  }
});

candidates("minuteOfRow is each row's own minute, from the minute index alone", () => {
  for (const seed of [7, 8, 9]) {
    const times = randomTimes(seed, 3000);
    const idx = buildMinuteIndex(times);
    const starts = minuteStarts(idx);
    for (let p = 0; p < times.length; p++) assert.is(minuteOfRow(idx, starts, p), Math.floor(times[p] / MINUTE), `seed ${seed} row ${p}`);
  }
});

const codec = suite('boundary part blocks');

function files(): FileCandidates[] {
  // Given out of symbol order: the part sorts them.
  return [
    {
      symbol: 'B',
      positions: Int32Array.from([0, 4, 5, 9]),
      minutes: Int16Array.from([570, 570, 571, 575]),
      texts: ['["b0"]', '["b4"]', '["b5 é"]', '["b9"]'],
    },
    { symbol: 'A', positions: Int32Array.from([0, 1, 2]), minutes: Int16Array.from([570, 571, 571]), texts: ['["a0"]', '["a1"]', '["a2 中"]'] },
  ];
}

codec("blocks by minute hold each file's rows of that minute; texts read back by (symbol, position)", () => {
  const { symbols, blocks: made } = partBlocks(files());
  const blocks = [...made];
  assert.equal(symbols, ['A', 'B']);
  assert.equal(
    blocks.map((b) => b.minute),
    [570, 571, 575],
  );
  const [m570, m571, m575] = blocks.map((b) => new BoundaryBlock(b.raw));
  assert.is(m570.rows, 3);
  assert.is(m570.text(0, 0), '["a0"]');
  assert.is(m570.text(1, 0), '["b0"]');
  assert.is(m570.text(1, 4), '["b4"]');
  assert.is(m571.text(0, 2), '["a2 中"]');
  assert.is(m571.text(1, 5), '["b5 é"]');
  assert.is(m575.text(1, 9), '["b9"]');
  // Absent rows: another minute's row, an unknown symbol, a position between candidates.
  assert.is(m570.text(0, 1), null);
  assert.is(m571.text(2, 0), null);
  assert.is(m575.text(1, 8), null);
  assert.is(m575.text(0, 9), null);
});

codec('the directory round-trips; a torn one is refused', () => {
  const entries = [
    { minute: 570, offset: 4, length: 100 },
    { minute: 1439, offset: 104, length: 70_000 },
  ];
  const dir = decodeDirectory(encodeDirectory(entries));
  assert.equal([...dir.values()], entries);
  assert.throws(() => decodeDirectory(encodeDirectory(entries).subarray(0, 15)), /not a whole number/);
});

candidates.run();
codec.run();
