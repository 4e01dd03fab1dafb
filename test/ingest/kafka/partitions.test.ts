import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Partitioners, type PartitionMetadata } from 'kafkajs';
import { murmur2, partitionForKey } from '../../../ingest/kafka/partitions.js';
import { indexCode, stockCode } from '../../../ingest/feed/generate.js';

const m = suite('murmur2');

m('matches the Java client on its published test vectors', () => {
  // org.apache.kafka.common.utils.UtilsTest#testMurmur2
  const vectors: [string, number][] = [
    ['21', -973932308],
    ['foobar', -790332482],
    ['a-little-bit-long-string', -985981536],
    ['a-little-bit-longer-string', -1486304829],
    ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
    ['abc', 479470107],
  ];
  for (const [key, want] of vectors) assert.is(murmur2(Buffer.from(key)), want, key);
});

m.run();

const p = suite('partitionForKey');

function kafkajsPartition(key: string, count: number): number {
  const partitioner = Partitioners.DefaultPartitioner();
  const partitionMetadata: PartitionMetadata[] = Array.from({ length: count }, (_, i) => ({
    partitionErrorCode: 0,
    partitionId: i,
    leader: 1,
    replicas: [1],
    isr: [1],
  }));
  return partitioner({ topic: 't', partitionMetadata, message: { key, value: null } });
}

p('agrees with kafkajs DefaultPartitioner for every generated symbol and several partition counts', () => {
  const keys = [...Array.from({ length: 700 }, (_, i) => stockCode(i)), ...Array.from({ length: 80 }, (_, i) => indexCode(i)), '', 'é', '中证500'];
  for (const count of [1, 2, 3, 4, 7, 12, 64]) {
    for (const key of keys) assert.is(partitionForKey(key, count), kafkajsPartition(key, count), `${key} over ${count}`);
  }
});

p('rejects a partition count that is not a positive integer', () => {
  assert.throws(() => partitionForKey('600000.SH', 0), /positive integer/);
  assert.throws(() => partitionForKey('600000.SH', 1.5), /positive integer/);
});

p.run();
