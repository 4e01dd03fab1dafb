/**
 * The main thread's side of the decode worker (decodeWorker.ts): packs a run of Kafka
 * messages into one transferable request and resolves with the reply. One worker, and its
 * handler is synchronous, so requests are answered in the order they are sent
 * (shared/workerPool.ts). Any failure — the worker's own, its death, a closed decoder — comes
 * as an IngestError('decode'), on which the ingestor stops (a restart brings a fresh worker).
 */
import type { IHeaders } from 'kafkajs';
import type { Dataset } from '../../shared/schema.js';
import { IngestError } from '../errors.js';
import { WorkerDiedError, WorkerPool, WorkerPoolClosedError } from '../../shared/workerPool.js';
import type { DecodeReply, DecodeRequest } from './decodeWorker.js';
import { rejectHeaderOf } from './messages.js';

export interface RawMessage {
  readonly offset: string;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers?: IHeaders;
}

/** The worker's failures reject the decode; the ingestor stops on them (fatal). */
function decoderFailed(cause: unknown): IngestError {
  if (cause instanceof IngestError) return cause;
  const why =
    cause instanceof WorkerPoolClosedError
      ? 'decode worker closed'
      : cause instanceof WorkerDiedError
        ? cause.message
        : `decode worker: ${(cause as Error).message}`;
  return new IngestError('decode', why, { retriable: true, cause });
}

export class DecodeWorker {
  // Started now: its thread start and module loading overlap the consumer's group join.
  private readonly pool = new WorkerPool<DecodeRequest, DecodeReply>({ name: 'decode worker', url: new URL('./decodeWorker.js', import.meta.url), size: 1 });

  decode(dataset: Dataset, messages: readonly RawMessage[]): Promise<DecodeReply> {
    const req = packRequest(dataset, messages);
    // Freshly allocated typed arrays: their buffers are plain ArrayBuffers, safe to transfer.
    const transfer = [req.values.buffer as ArrayBuffer, req.ends.buffer as ArrayBuffer, req.offsets.buffer as ArrayBuffer];
    return this.pool.run(req, { transfer }).catch((e: unknown) => Promise.reject(decoderFailed(e)));
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/** Packs messages into one request: values concatenated in a buffer of its own, offsets as numbers. */
export function packRequest(dataset: Dataset, messages: readonly RawMessage[]): DecodeRequest {
  let total = 0;
  for (const m of messages) total += m.value?.length ?? 0;
  // Not Buffer.allocUnsafe: small ones come from Node's shared pool, which must not be transferred.
  const values = new Uint8Array(total);
  const ends = new Int32Array(messages.length);
  const keys: (string | null)[] = new Array(messages.length);
  const flagged: (string | null)[] = new Array(messages.length);
  const offsets = new Float64Array(messages.length);
  let at = 0;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (m.value === null) {
      ends[i] = -1;
    } else {
      values.set(m.value, at);
      at += m.value.length;
      ends[i] = at;
    }
    keys[i] = m.key === null ? null : m.key.toString('utf8');
    flagged[i] = rejectHeaderOf(m.headers);
    offsets[i] = Number(m.offset);
  }
  return { dataset, values, ends, keys, flagged, offsets };
}
