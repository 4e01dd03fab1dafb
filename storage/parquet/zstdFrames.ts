/**
 * Streaming zstd decoding that puts the native decoder to work where it can. A zstd stream is
 * a sequence of frames whose compressed length can be found by walking block headers without
 * decoding; each complete frame is decoded by the native library in libuv's threadpool (off
 * this thread, several times faster than pure JS). A frame too large to hold (a whole file
 * compressed by the `zstd` CLI is one frame) switches the rest of the stream to fzstd's
 * streaming decoder, so memory stays bounded either way.
 */
import { zstdDecompress as nativeDecompress } from './zstd.js';
import { Decompress } from 'fzstd';

const FRAME_MAGIC = 0xfd2fb528;
const MAX_FRAME_BYTES = 32 << 20;

/** Length of the frame starting at `buf[0]`, or null when `buf` does not hold all of it yet. */
export function frameLength(buf: Uint8Array): number | null {
  if (buf.length < 8) return null;
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const magic = view.getUint32(0, true);
  if ((magic & 0xfffffff0) === 0x184d2a50) {
    const total = 8 + view.getUint32(4, true); // skippable frame
    return buf.length >= total ? total : null;
  }
  if (magic !== FRAME_MAGIC) throw new Error('not a zstd stream (bad frame magic)');
  const fhd = buf[4];
  const singleSegment = (fhd >> 5) & 1;
  const checksum = (fhd >> 2) & 1;
  const didSize = [0, 1, 2, 4][fhd & 3];
  const fcsSize = [singleSegment ? 1 : 0, 2, 4, 8][fhd >> 6];
  let o = 5 + (singleSegment ? 0 : 1) + didSize + fcsSize;
  for (;;) {
    if (o + 3 > buf.length) return null;
    const h = buf[o] | (buf[o + 1] << 8) | (buf[o + 2] << 16);
    const last = h & 1;
    const type = (h >> 1) & 3;
    const size = h >>> 3;
    if (type === 3) throw new Error('corrupt zstd stream (reserved block type)');
    o += 3 + (type === 1 ? 1 : size);
    if (last) {
      o += checksum ? 4 : 0;
      return o <= buf.length ? o : null;
    }
    if (o > buf.length) return null;
  }
}

/** Decodes a zstd byte stream, yielding decompressed chunks in order. */
export async function* decodeZstdStream(source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  let pending = Buffer.alloc(0);
  let fallback: Decompress | null = null;
  const fallbackOut: Uint8Array[] = [];
  // One frame decoding ahead while the consumer works on the previous one.
  let inFlight: Promise<Buffer> | null = null;
  for await (const chunk of source) {
    if (fallback) {
      fallback.push(chunk);
      yield* fallbackOut.splice(0);
      continue;
    }
    pending = pending.length === 0 ? Buffer.from(chunk) : Buffer.concat([pending, chunk]);
    for (;;) {
      const len = frameLength(pending);
      if (len === null) {
        if (pending.length > MAX_FRAME_BYTES) {
          if (inFlight) yield await inFlight;
          inFlight = null;
          fallback = new Decompress((c) => fallbackOut.push(c));
          fallback.push(pending);
          pending = Buffer.alloc(0);
          yield* fallbackOut.splice(0);
        }
        break;
      }
      const frame = pending.subarray(0, len);
      pending = pending.subarray(len);
      const next = nativeDecompress(Buffer.from(frame));
      if (inFlight) yield await inFlight;
      inFlight = next;
    }
  }
  if (inFlight) yield await inFlight;
  if (fallback) {
    fallback.push(new Uint8Array(0), true);
    yield* fallbackOut.splice(0);
  } else if (pending.length > 0) {
    throw new Error('truncated zstd stream (incomplete last frame)');
  }
}
