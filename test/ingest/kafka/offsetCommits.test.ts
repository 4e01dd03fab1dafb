import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { pino } from 'pino';
import type { Consumer } from 'kafkajs';
import { OffsetCommitter, type KafkaOffset } from '../../../ingest/kafka/offsetCommits.js';
import type { Assignment } from '../../../ingest/kafka/positions.js';

/** A consumer that records commit requests and fails the next `failures` of them. */
class FakeConsumer {
  readonly commits: KafkaOffset[][] = [];
  failures = 0;
  async commitOffsets(batch: KafkaOffset[]): Promise<void> {
    if (this.failures > 0) {
      this.failures--;
      throw new Error('The group is rebalancing');
    }
    this.commits.push(batch.map((o) => ({ ...o })));
  }
}

function setup(assignment: Assignment | null) {
  const consumer = new FakeConsumer();
  const state = { consumer: consumer as unknown as Consumer | null, assignment };
  const committer = new OffsetCommitter({
    consumer: () => state.consumer,
    assignment: () => state.assignment,
    log: pino({ level: 'silent' }),
  });
  return { consumer, state, committer };
}

const off = (topic: string, partition: number, offset: number): KafkaOffset => ({ topic, partition, offset: String(offset) });

const t = suite('OffsetCommitter');

t('commits owned partitions only; the others stay pending until the assignment drops them', async () => {
  const { consumer, committer } = setup(new Map([['md.level2', [0, 1]]]));
  committer.commit([off('md.level2', 0, 10), off('md.level2', 2, 7), off('md.index', 0, 3)]);
  await committer.settled;
  assert.equal(consumer.commits, [[off('md.level2', 0, 10)]]);
  assert.is(committer.pendingCount, 2);
  committer.keepAssigned(new Map([['md.level2', [0, 1]]]));
  assert.is(committer.pendingCount, 0);
});

t('a failed commit is kept and retried with the next call, latest offset winning', async () => {
  const { consumer, committer } = setup(new Map([['md.level2', [0]]]));
  consumer.failures = 1;
  committer.commit([off('md.level2', 0, 10)]);
  await committer.settled;
  assert.equal(consumer.commits, []);
  assert.is(committer.pendingCount, 1);
  committer.commit([off('md.level2', 0, 12)]);
  await committer.settled;
  assert.equal(consumer.commits, [[off('md.level2', 0, 12)]]);
  assert.is(committer.pendingCount, 0);
});

t('nothing is committed while rebalancing or without a consumer; a later call commits', async () => {
  const { consumer, state, committer } = setup(null);
  committer.commit([off('md.level2', 0, 5)]);
  await committer.settled;
  assert.equal(consumer.commits, []);
  state.consumer = null;
  state.assignment = new Map([['md.level2', [0]]]);
  committer.commit([]);
  await committer.settled;
  assert.equal(consumer.commits, []);
  assert.is(committer.pendingCount, 1);
  state.consumer = consumer as unknown as Consumer;
  committer.commit([]);
  await committer.settled;
  assert.equal(consumer.commits, [[off('md.level2', 0, 5)]]);
  assert.is(committer.pendingCount, 0);
});

t('queued offsets (the stored ones, at assignment) are not sent until the next commit', async () => {
  // At assignment kafkajs has not started its runner; a commit then returns without error and
  // without committing, so the offsets must wait for a commit made once it runs.
  const { consumer, committer } = setup(new Map([['md.index', [1]]]));
  committer.queue([off('md.index', 1, 2)]);
  await committer.settled;
  assert.equal(consumer.commits, []);
  assert.is(committer.pendingCount, 1);
  committer.commit([]);
  await committer.settled;
  assert.equal(consumer.commits, [[off('md.index', 1, 2)]]);
  assert.is(committer.pendingCount, 0);
});

t('commits go one request at a time, in order', async () => {
  const { consumer, committer } = setup(new Map([['md.level2', [0, 1]]]));
  committer.commit([off('md.level2', 0, 1)]);
  committer.commit([off('md.level2', 1, 2)]);
  await committer.settled;
  assert.equal(consumer.commits, [[off('md.level2', 0, 1), off('md.level2', 1, 2)]]);
  assert.is(committer.pendingCount, 0);
});

t.run();
