/**
 * The partition a keyed message lands on under the Java client's (and kafkajs's default)
 * partitioner: murmur2 of the key bytes, made positive, modulo the partition count. An
 * ingest process uses it to tell which symbols it owns when a symbol-day has no recorded
 * partition (see sealState.ts).
 */
const SEED = 0x9747b28c;
const M = 0x5bd1e995;

/** Kafka's murmur2 (org.apache.kafka.common.utils.Utils#murmur2), as a signed 32-bit int. */
export function murmur2(data: Uint8Array): number {
  const length = data.length;
  let h = SEED ^ length;
  const length4 = length >>> 2;
  for (let i = 0; i < length4; i++) {
    const i4 = i * 4;
    let k = data[i4] | (data[i4 + 1] << 8) | (data[i4 + 2] << 16) | (data[i4 + 3] << 24);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    k = Math.imul(k, M);
    h = Math.imul(h, M) ^ k;
  }
  const tail = length & ~3;
  const rem = length & 3;
  if (rem === 3) h ^= data[tail + 2] << 16;
  if (rem >= 2) h ^= data[tail + 1] << 8;
  if (rem >= 1) {
    h ^= data[tail];
    h = Math.imul(h, M);
  }
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}

/** Partition of a message keyed `key` on a topic of `partitionCount` partitions. */
export function partitionForKey(key: string, partitionCount: number): number {
  if (!Number.isInteger(partitionCount) || partitionCount <= 0) {
    throw new RangeError(`partition count must be a positive integer, got ${partitionCount}`);
  }
  return (murmur2(Buffer.from(key, 'utf8')) & 0x7fffffff) % partitionCount;
}
