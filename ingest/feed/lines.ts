/**
 * Streams the lines of a JSON Lines feed (`.jsonl`, `.jsonl.gz`, `.jsonl.zst`) in batches,
 * never holding the file in memory. Line numbers are 1-based, for quarantine sources.
 */
import { createReadStream } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { decodeZstdStream } from '../../storage/parquet/zstdFrames.js';
import type { Readable } from 'node:stream';

export interface LineBatch {
  readonly lines: string[];
  /** Line number of `lines[0]`. */
  readonly firstLineNo: number;
  /** Compressed bytes read so far (for progress). */
  readonly bytesRead: number;
}

export type FeedCompression = 'none' | 'gzip' | 'zstd';

export function compressionOf(path: string): FeedCompression {
  if (path.endsWith('.gz')) return 'gzip';
  if (path.endsWith('.zst')) return 'zstd';
  return 'none';
}

export async function* decompressed(path: string): AsyncGenerator<{ chunk: Uint8Array; bytesRead: number }> {
  const file = createReadStream(path, { highWaterMark: 1 << 20 });
  const kind = compressionOf(path);
  if (kind === 'zstd') {
    for await (const chunk of decodeZstdStream(file as AsyncIterable<Buffer>)) yield { chunk, bytesRead: file.bytesRead };
    return;
  }
  const stream: Readable = kind === 'gzip' ? file.pipe(createGunzip({ chunkSize: 1 << 20 })) : file;
  file.on('error', (e) => stream.destroy(e));
  for await (const chunk of stream as AsyncIterable<Buffer>) yield { chunk, bytesRead: file.bytesRead };
}

export async function* readFeedLines(path: string, batchLines = 4096): AsyncGenerator<LineBatch> {
  const decoder = new TextDecoder('utf-8');
  let carry = '';
  let lines: string[] = [];
  let first = 1;
  let bytesRead = 0;
  for await (const { chunk, bytesRead: read } of decompressed(path)) {
    bytesRead = read;
    const text = carry + decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let nl = text.indexOf('\n', start); nl !== -1; nl = text.indexOf('\n', start)) {
      lines.push(text.charCodeAt(nl - 1) === 13 ? text.slice(start, nl - 1) : text.slice(start, nl));
      start = nl + 1;
      if (lines.length >= batchLines) {
        yield { lines, firstLineNo: first, bytesRead };
        first += lines.length;
        lines = [];
      }
    }
    carry = text.slice(start);
  }
  carry += decoder.decode();
  if (carry.length > 0) lines.push(carry);
  if (lines.length > 0) yield { lines, firstLineNo: first, bytesRead };
}
