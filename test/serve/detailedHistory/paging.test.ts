import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { planPage } from '../../../serve/detailedHistory/paging.js';

const test = suite('level2 paging arithmetic');

test('first page, older offsets and token positions page to the same rows', () => {
  const filtered = { lo: 100, hi: 3100 };
  assert.equal(planPage(filtered, { kind: 'first' }, 1000), { first: 100, end: 1100, lo: 100, hi: 3100, hasMore: true });
  assert.equal(planPage(filtered, { kind: 'offset', offset: 1000 }, 1000), planPage(filtered, { kind: 'token', position: 1100, version: 1 }, 1000));
  const last = planPage(filtered, { kind: 'offset', offset: 2000 }, 1000);
  assert.equal([last.first, last.end, last.hasMore], [2100, 3100, false]);
  const beyond = planPage(filtered, { kind: 'offset', offset: 99999 }, 1000);
  assert.equal([beyond.first, beyond.end, beyond.hasMore], [3100, 3100, false]);
  const empty = planPage({ lo: 5, hi: 5 }, { kind: 'first' }, 10);
  assert.equal([empty.first, empty.end, empty.hasMore], [5, 5, false]);
  // An exact fit: the page ends at the last row, so nothing more.
  assert.is(planPage({ lo: 0, hi: 1000 }, { kind: 'first' }, 1000).hasMore, false);
});

test.run();
