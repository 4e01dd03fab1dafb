/**
 * Cuts a feed's decompressed bytes into chunks of whole lines (~`targetBytes` each) without
 * decoding them, so that parsing can be spread over worker threads while this thread only
 * scans for newlines. Line numbers are 1-based.
 */
import { decompressed } from './lines.js';

export interface FeedChunk {
  /** Whole lines, newline-terminated except possibly the file's last line. */
  readonly bytes: Buffer;
  readonly firstLineNo: number;
  readonly lineCount: number;
  /** Compressed bytes read so far (for progress). */
  readonly bytesRead: number;
}

function countNewlines(buf: Buffer): number {
  let n = 0;
  for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) n++;
  return n;
}

/** Where a buffer may be cut: after its last newline (0: none yet). CSV cuts outside quotes. */
export type CutPoint = (buf: Buffer) => number;

const afterLastNewline: CutPoint = (buf) => buf.lastIndexOf(10) + 1;

export async function* readFeedChunks(path: string, targetBytes = 2 << 20, cutPoint: CutPoint = afterLastNewline): AsyncGenerator<FeedChunk> {
  let parts: Buffer[] = [];
  let size = 0;
  let nextLine = 1;
  let bytesRead = 0;
  const emit = (bytes: Buffer): FeedChunk => {
    const lineCount = countNewlines(bytes) + (bytes.length > 0 && bytes[bytes.length - 1] !== 10 ? 1 : 0);
    const chunk = { bytes, firstLineNo: nextLine, lineCount, bytesRead };
    nextLine += lineCount;
    return chunk;
  };
  for await (const { chunk, bytesRead: read } of decompressed(path)) {
    bytesRead = read;
    parts.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    size += chunk.byteLength;
    if (size < targetBytes) continue;
    const all = parts.length === 1 ? parts[0] : Buffer.concat(parts, size);
    const cut = cutPoint(all);
    if (cut === 0) {
      parts = [all]; // one line longer than a chunk: keep gathering
      continue;
    }
    // Copy so the chunk owns its memory and can be transferred to a worker.
    yield emit(Buffer.from(all.subarray(0, cut)));
    const rest = all.subarray(cut);
    parts = rest.length > 0 ? [rest] : [];
    size = rest.length;
  }
  if (size > 0) yield emit(parts.length === 1 ? Buffer.from(parts[0]) : Buffer.concat(parts, size));
}
