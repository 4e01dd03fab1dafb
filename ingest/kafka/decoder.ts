import { Worker } from 'node:worker_threads';
import type { IHeaders } from 'kafkajs';
import type { Dataset } from '../../shared/schema.js';
import { IngestError } from '../errors.js';
import type { DecodeReply, DecodeRequest } from './decodeWorker.js';
import { rejectHeaderOf } from './messages.js';

/**
 * The main thread's side of the decode worker (decodeWorker.ts): packs a run of Kafka
 * messages into one transferable request and resolves with the reply. Requests are answered in
 * the order they are sent. A worker that dies fails every pending and later request, which
 * stops the ingestor (a restart brings a fresh worker).
 */
export interface RawMessage {
  readonly offset: string;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers?: IHeaders;
}

/** The worker's failures reject every pending decode; the ingestor stops on them (fatal). */
function decoderFailed(message: string): IngestError {
  return new IngestError('decode', message, { retriable: true });
}

export class DecodeWorker {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (r: DecodeReply) => void; reject: (e: Error) => void }>();
  private dead: Error | null = null;
  private closing = false;

  constructor() {
    this.worker = new Worker(new URL('./decodeWorker.js', import.meta.url));
    this.worker.on('message', (reply: DecodeReply) => {
      const w = this.waiting.get(reply.id);
      if (!w) return;
      this.waiting.delete(reply.id);
      if (this.waiting.size === 0) this.worker.unref();
      if (reply.error !== undefined) w.reject(decoderFailed(`decode worker: ${reply.error}`));
      else w.resolve(reply);
    });
    this.worker.on('error', (e) => this.die(decoderFailed(`decode worker failed: ${e.message}`)));
    this.worker.on('exit', (code) => {
      if (!this.closing) this.die(decoderFailed(`decode worker exited (${code})`));
    });
    // The thread keeps the process alive only while it has work (see decode): an idle or
    // forgotten decoder never holds a process that should exit.
    this.worker.unref();
  }

  private die(e: Error): void {
    this.dead ??= e;
    for (const w of this.waiting.values()) w.reject(this.dead);
    this.waiting.clear();
    this.worker.unref();
  }

  decode(dataset: Dataset, messages: readonly RawMessage[]): Promise<DecodeReply> {
    if (this.dead) return Promise.reject(this.dead);
    const req = packRequest(this.nextId++, dataset, messages);
    return new Promise((resolve, reject) => {
      if (this.waiting.size === 0) this.worker.ref();
      this.waiting.set(req.id, { resolve, reject });
      // Freshly allocated typed arrays: their buffers are plain ArrayBuffers, safe to transfer.
      this.worker.postMessage(req, [req.values.buffer as ArrayBuffer, req.ends.buffer as ArrayBuffer, req.offsets.buffer as ArrayBuffer]);
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    this.die(decoderFailed('decode worker closed'));
    await this.worker.terminate();
  }
}

/** Packs messages into one request: values concatenated in a buffer of its own, offsets as numbers. */
export function packRequest(id: number, dataset: Dataset, messages: readonly RawMessage[]): DecodeRequest {
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
  return { id, dataset, values, ends, keys, flagged, offsets };
}
