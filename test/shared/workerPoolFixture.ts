/**
 * The worker of test/shared/workerPool.test.ts: answers, fails with each kind of error, sends
 * progress, holds requests until told, and dies in the ways a worker can.
 */
import { threadId, workerData } from 'node:worker_threads';
import { serveWorker } from '../../shared/workerPool.js';
import { DamagedFileError } from '../../storage/damagedFile.js';
import { UnsupportedParquetError } from '../../storage/parquet/format.js';
import { IngestError } from '../../ingest/errors.js';

export type FixtureRequest =
  | { readonly op: 'echo'; readonly value: unknown }
  | { readonly op: 'threadId' }
  /** Each byte doubled, in a buffer moved both ways. */
  | { readonly op: 'double'; readonly bytes: Uint8Array }
  | { readonly op: 'progress'; readonly count: number }
  | { readonly op: 'damaged'; readonly path: string }
  | { readonly op: 'ingest' }
  | { readonly op: 'unsupported' }
  | { readonly op: 'odd' }
  /** Answered only at the next 'release'. */
  | { readonly op: 'hold' }
  | { readonly op: 'release' }
  /** Answered from a timer: nothing but the owed reply keeps the worker busy meanwhile. */
  | { readonly op: 'later' }
  | { readonly op: 'exit'; readonly code: number }
  | { readonly op: 'throwUncaught' };

/** A class the main thread does not know: it arrives as an Error with this name. */
class OddError extends Error {
  override name = 'OddError';
}

const held: (() => void)[] = [];

if (workerData === 'fixture') {
  serveWorker<FixtureRequest, unknown, number>(
    (req, progress) => {
      switch (req.op) {
        case 'echo':
          return req.value;
        case 'threadId':
          return threadId;
        case 'double':
          return Uint8Array.from(req.bytes, (b) => b * 2);
        case 'progress':
          for (let i = 1; i <= req.count; i++) progress(i);
          return 'done';
        case 'damaged':
          throw new DamagedFileError(req.path, 'pages do not decompress', { cause: new RangeError('offset out of range') });
        case 'ingest':
          throw new IngestError('decode', 'bad run', { retriable: true, context: { topic: 't', partition: 3 } });
        case 'unsupported':
          throw new UnsupportedParquetError('snappy pages');
        case 'odd':
          throw Object.assign(new OddError('odd failure'), { code: 'EODD' });
        case 'hold':
          return new Promise<string>((resolve) => held.push(() => resolve('released')));
        case 'release':
          for (const r of held.splice(0)) r();
          return 'release';
        case 'later':
          return new Promise<string>((resolve) => setTimeout(() => resolve('later'), 20));
        case 'exit':
          return process.exit(req.code);
        case 'throwUncaught':
          setImmediate(() => {
            throw new Error('boom');
          });
          return new Promise<never>(() => undefined);
      }
    },
    (res) => (res instanceof Uint8Array ? [res.buffer as ArrayBuffer] : []),
  );
}
