import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Limiter } from '../../shared/limiter.js';

/** The one concurrency limit: never more than `max` tasks at once, the rest in arrival order. */
const test = suite('shared/limiter');

/** A task that runs until its `finish` is called; `started` tells whether it has begun. */
function gated(log: string[], name: string) {
  let finish!: (fail?: boolean) => void;
  const gate = new Promise<void>((resolve, reject) => (finish = (fail) => (fail ? reject(new Error(name)) : resolve())));
  return {
    finish: (fail?: boolean) => finish(fail),
    task: async () => {
      log.push(`start ${name}`);
      await gate;
      return name;
    },
  };
}

test('at most max at once; the waiting start in arrival order as places free, a failure freeing its place too', async () => {
  const limit = new Limiter(2);
  const log: string[] = [];
  const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((n) => gated(log, n));
  const ra = limit.run(a.task);
  const rb = limit.run(b.task).catch((e: Error) => `failed ${e.message}`);
  const rc = limit.run(c.task);
  const rd = limit.run(d.task);
  await Promise.resolve();
  assert.equal(log, ['start a', 'start b']);
  b.finish(true);
  assert.is(await rb, 'failed b');
  assert.equal(log, ['start a', 'start b', 'start c']);
  a.finish();
  assert.is(await ra, 'a');
  assert.equal(log, ['start a', 'start b', 'start c', 'start d']);
  c.finish();
  d.finish();
  assert.equal(await Promise.all([rc, rd]), ['c', 'd']);
});

test.run();
