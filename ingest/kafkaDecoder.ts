import { Worker } from 'node:worker_threads';
import type { IHeaders } from 'kafkajs';
import type { Dataset } from '../shared/schema.js';
import type { DecodeReply, DecodeRequest } from './kafkaDecodeWorker.js';
import { rejectHeaderOf } from './kafkaMessages.js';

/**
 * The main thread's side of the decode worker (kafkaDecodeWorker.ts): packs a run of Kafka
 * messages into one transferable request and resolves with the reply. Requests are answered in
 * the order they are sent. A worker that dies fails every pending and later request, which
 * stops the ingestor (a restart brings a fresh worker).
 */
export interface RawMessage {
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers?: IHeaders;
}

export class DecoderError extends Error {
  override name = 'DecoderError';
}

export class DecodeWorker {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (r: DecodeReply) => void; reject: (e: Error) => void }>();
  private dead: Error | null = null;
  private closing = false;

  constructor() {
    this.worker = new Worker(new URL('./kafkaDecodeWorker.js', import.meta.url));
    this.worker.on('message', (reply: DecodeReply) => {
      const w = this.waiting.get(reply.id);
      if (!w) return;
      this.waiting.delete(reply.id);
      if (reply.error !== undefined) w.reject(new DecoderError(`decode worker: ${reply.error}`));
      else w.resolve(reply);
    });
    this.worker.on('error', (e) => this.die(new DecoderError(`decode worker failed: ${e.message}`)));
    this.worker.on('exit', (code) => {
      if (!this.closing) this.die(new DecoderError(`decode worker exited (${code})`));
    });
  }

  private die(e: Error): void {
    this.dead ??= e;
    for (const w of this.waiting.values()) w.reject(this.dead);
    this.waiting.clear();
  }

  decode(dataset: Dataset, messages: readonly RawMessage[]): Promise<DecodeReply> {
    if (this.dead) return Promise.reject(this.dead);
    let total = 0;
    for (const m of messages) total += m.value?.length ?? 0;
    // A buffer of its own (never Node's shared pool), so that it can be transferred.
    const values = new Uint8Array(total);
    const ends = new Int32Array(messages.length);
    const keys: (string | null)[] = new Array(messages.length);
    const flagged: (string | null)[] = new Array(messages.length);
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
    }
    const id = this.nextId++;
    const req: DecodeRequest = { id, dataset, values, ends, keys, flagged };
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage(req, [values.buffer, ends.buffer]);
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    this.die(new DecoderError('decode worker closed'));
    await this.worker.terminate();
  }
}
