import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BatchQueue } from '../../../ingest/kafka/queue.js';

interface Item {
  readonly name: string;
  readonly messages: readonly number[];
}

const tick = () => new Promise((r) => setTimeout(r, 5));

const q = suite('BatchQueue');

q('slices complete in queued order; drained is reported once the last one completes', async () => {
  const events: string[] = [];
  const queue = new BatchQueue<number, Item, number>(
    {
      // Later slices answer sooner: completion must still follow the queue's order.
      send: (item, from, to) => new Promise((r) => setTimeout(() => r(to - from), item.name === 'a' ? 20 : 1)),
      complete: (item, from, to, n) => events.push(`${item.name}[${from},${to})=${n}`),
      drained: () => events.push('drained'),
    },
    (e) => assert.unreachable(String(e)),
    { sliceMessages: 2, depth: 3 },
  );
  queue.push({ name: 'a', messages: [1, 2, 3] });
  queue.push({ name: 'b', messages: [4] });
  await queue.idle();
  assert.equal(events, ['a[0,2)=2', 'a[2,3)=1', 'b[0,1)=1', 'drained']);
  assert.is(queue.size, 0);
  queue.push({ name: 'c', messages: [5] });
  await queue.idle();
  assert.equal(events.slice(4), ['c[0,1)=1', 'drained'], 'each burst ends with its own drained');
});

q('a failed slice is reported, what is queued is dropped, and drained is not claimed', async () => {
  const events: string[] = [];
  const errors: unknown[] = [];
  const queue = new BatchQueue<number, Item, number>(
    {
      send: async (item) => {
        if (item.name === 'bad') throw new Error('boom');
        return 1;
      },
      complete: (item) => events.push(item.name),
      drained: () => events.push('drained'),
    },
    (e) => errors.push(e),
  );
  queue.push({ name: 'bad', messages: [1] });
  queue.push({ name: 'later', messages: [2] });
  await queue.idle();
  await tick();
  assert.equal(events, []);
  assert.is(errors.length, 1);
  assert.is(queue.size, 0);
});

q.run();
