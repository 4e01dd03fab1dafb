import { parentPort } from 'node:worker_threads';
import { DATASETS, SCHEMAS, type Dataset } from '../../shared/schema.js';
import { decodeSnapshotText, KeyCanon } from './messages.js';

/**
 * The decode worker of the Kafka ingestor: JSON parsing and validation of message values,
 * most of the ingestor's CPU, run beside the main thread (which fetches with kafkajs and
 * appends to staging). Pure: no database, no state beyond a cache of canonical keys.
 *
 * Request: the values of a run of messages concatenated in one buffer (with end offsets, -1
 * for a message without value), their keys and reject headers. Reply: per message ok or the
 * reason; for the good ones symbol, tradedate, time and the numeric values (NaN = null), in
 * typed arrays that are transferred, not copied.
 */
export interface DecodeRequest {
  readonly id: number;
  readonly dataset: Dataset;
  readonly values: Uint8Array;
  /** End offset of each message's value in `values`; -1: the message has no value. */
  readonly ends: Int32Array;
  readonly keys: readonly (string | null)[];
  readonly flagged: readonly (string | null)[];
}

export interface DecodeReply {
  readonly id: number;
  /** 1 = a row, 0 = rejected (see `reasons`). */
  readonly ok: Uint8Array;
  /** The reject reason of each rejected message, null for the others. */
  readonly reasons: readonly (string | null)[];
  /** One entry per good message, in order. */
  readonly symbols: readonly string[];
  readonly tradedates: readonly string[];
  readonly timesMs: Int32Array;
  /** Good messages × the dataset's numeric fields; NaN = null. */
  readonly values: Float64Array;
  readonly error?: string;
}

const canons = Object.fromEntries(DATASETS.map((d) => [d, new KeyCanon(d)])) as Record<Dataset, KeyCanon>;
const utf8 = new TextDecoder('utf-8');

export function decodeRequest(req: DecodeRequest): DecodeReply {
  const n = req.ends.length;
  const width = SCHEMAS[req.dataset].valueFields.length;
  const ok = new Uint8Array(n);
  const reasons: (string | null)[] = new Array(n).fill(null);
  const symbols: string[] = [];
  const tradedates: string[] = [];
  const times: number[] = [];
  const values = new Float64Array(n * width);
  // One decode for the whole run; when it is all ASCII (JSON snapshots are), byte offsets are
  // string offsets and each value is a slice. Otherwise each value is decoded on its own.
  const all = utf8.decode(req.values);
  const ascii = all.length === req.values.length;
  let start = 0;
  let good = 0;
  for (let i = 0; i < n; i++) {
    const end = req.ends[i];
    const text = end < 0 ? null : ascii ? all.slice(start, end) : utf8.decode(req.values.subarray(start, end));
    if (end >= 0) start = end;
    const v = decodeSnapshotText(req.keys[i], text, req.flagged[i], req.dataset, canons[req.dataset]);
    if (!v.ok) {
      reasons[i] = v.reason;
      continue;
    }
    ok[i] = 1;
    const r = v.row;
    symbols.push(r.symbol);
    tradedates.push(r.tradedate);
    times.push(r.timeMs);
    const base = good * width;
    for (let j = 0; j < width; j++) {
      const x = r.values[j];
      values[base + j] = x === null ? NaN : x;
    }
    good++;
  }
  return {
    id: req.id, ok, reasons, symbols, tradedates, timesMs: Int32Array.from(times), values: values.slice(0, good * width),
  };
}

parentPort?.on('message', (req: DecodeRequest) => {
  let reply: DecodeReply;
  try {
    reply = decodeRequest(req);
  } catch (e) {
    reply = {
      id: req.id, ok: new Uint8Array(0), reasons: [], symbols: [], tradedates: [], timesMs: new Int32Array(0),
      values: new Float64Array(0), error: (e as Error).message,
    };
  }
  // Freshly allocated typed arrays: their buffers are plain ArrayBuffers, safe to transfer.
  parentPort!.postMessage(reply, [reply.ok.buffer as ArrayBuffer, reply.timesMs.buffer as ArrayBuffer, reply.values.buffer as ArrayBuffer]);
});
