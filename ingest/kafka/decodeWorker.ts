/**
 * The decode worker of the Kafka ingestor: JSON parsing and validation of message values,
 * most of the ingestor's CPU, run beside the main thread (which fetches with kafkajs and
 * appends to staging). Pure: no database, no state beyond a cache of canonical keys.
 *
 * Request: the values of a run of messages concatenated in one buffer (with end offsets, -1
 * for a message without value), their keys, reject headers and offsets. Reply: per message ok
 * or the reason; the good ones already as staging records (recordCodec.ts) with their offset
 * as the record's order, each naming its symbol-day, in a buffer that is transferred, not
 * copied. The main thread then only checks lateness per symbol-day and copies records into
 * segments: no per-row objects there (they cost it more than the fetch itself, mostly in GC).
 */
import { serveWorker } from '../../shared/workerPool.js';
import { DATASETS, type Dataset } from '../../shared/schema.js';
import { recordBytes, writeRecord } from '../../storage/staging/recordCodec.js';
import { decodeSnapshotText, KeyCanon } from './messages.js';

export interface DecodeRequest {
  readonly dataset: Dataset;
  readonly values: Uint8Array;
  /** End offset of each message's value in `values`; -1: the message has no value. */
  readonly ends: Int32Array;
  readonly keys: readonly (string | null)[];
  readonly flagged: readonly (string | null)[];
  /** Each message's Kafka offset. */
  readonly offsets: Float64Array;
}

export interface DecodeReply {
  /** 1 = a row, 0 = rejected (see `reasons`). */
  readonly ok: Uint8Array;
  /** The reject reason of each rejected message, null for the others. */
  readonly reasons: readonly (string | null)[];
  /** One record per good message, in order; order field = the message's offset. */
  readonly records: Uint8Array;
  /** Per good message, its symbol-day: an index into `symbols` and `tradedates`. */
  readonly symbolDayOf: Int32Array;
  /** The distinct symbol-days of the good messages, in order of first appearance. */
  readonly symbols: readonly string[];
  readonly tradedates: readonly string[];
}

const canons = Object.fromEntries(DATASETS.map((d) => [d, new KeyCanon(d)])) as Record<Dataset, KeyCanon>;
const utf8 = new TextDecoder('utf-8');

export function decodeRequest(req: DecodeRequest): DecodeReply {
  const n = req.ends.length;
  const size = recordBytes(req.dataset);
  const ok = new Uint8Array(n);
  const reasons: (string | null)[] = new Array(n).fill(null);
  // Sized for every message good; the reply views only the used part (no copy to trim it).
  const buffer = new ArrayBuffer(n * size);
  const view = new DataView(buffer);
  const symbolDayOf = new Int32Array(n);
  const symbols: string[] = [];
  const tradedates: string[] = [];
  // Symbol-day indexes by day, then symbol: a run is nearly always one day, so no key is built.
  const byDay = new Map<string, Map<string, number>>();
  let lastDay: string | null = null;
  let daySymbols: Map<string, number> | null = null;
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
    if (r.tradedate !== lastDay || daySymbols === null) {
      lastDay = r.tradedate;
      daySymbols = byDay.get(r.tradedate) ?? null;
      if (daySymbols === null) byDay.set(r.tradedate, (daySymbols = new Map()));
    }
    let sd = daySymbols.get(r.symbol);
    if (sd === undefined) {
      sd = symbols.length;
      symbols.push(r.symbol);
      tradedates.push(r.tradedate);
      daySymbols.set(r.symbol, sd);
    }
    symbolDayOf[good] = sd;
    writeRecord(view, good * size, r.symbol, r.timeMs, r.values, req.offsets[i]);
    good++;
  }
  return {
    ok,
    reasons,
    records: new Uint8Array(buffer, 0, good * size),
    symbolDayOf: symbolDayOf.subarray(0, good),
    symbols,
    tradedates,
  };
}

// Freshly allocated typed arrays: their buffers are plain ArrayBuffers, safe to transfer.
serveWorker<DecodeRequest, DecodeReply>(decodeRequest, (r) => [
  r.ok.buffer as ArrayBuffer,
  r.records.buffer as ArrayBuffer,
  r.symbolDayOf.buffer as ArrayBuffer,
]);
