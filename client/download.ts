/**
 * Writing a `format: 'parquet'` answer to a file or a stream. The request itself (with its
 * retries of 429/503, which come before any file byte) is the caller's; from the first
 * byte on nothing is retried: the server deducted a quota unit when streaming began, and
 * a repeat would cost another, so a broken download is an error for the caller to weigh.
 */
import { createWriteStream, rmSync } from 'node:fs';
import { Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { TickvaultDownloadError } from './errors.js';
import { successOf } from './transport.js';

export const PARQUET_MEDIA_TYPE = 'application/vnd.apache.parquet';

export type DownloadResult =
  | { readonly written: true; readonly bytes: number; readonly filename: string | null }
  /** No stored file for that stock and day: the JSON no-data envelope (costs nothing). */
  | { readonly written: false; readonly message: string };

/**
 * A file path (created only once the answer is known to be the file, removed if the download
 * breaks) or a stream (ended when the file is complete, destroyed if it breaks).
 */
export type DownloadTarget = string | Writable;

export async function writeParquet(res: Response, target: DownloadTarget): Promise<DownloadResult> {
  const mediaType = (res.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (mediaType === 'application/json') {
    const { message } = await successOf<unknown>(res);
    return { written: false, message };
  }
  if (mediaType !== PARQUET_MEDIA_TYPE) {
    await res.body?.cancel();
    throw new TickvaultDownloadError('media-type', `expected ${PARQUET_MEDIA_TYPE}, the server answered ${mediaType || 'no Content-Type'}`);
  }
  if (res.body === null) throw new TickvaultDownloadError('interrupted', 'the Parquet answer has no body');

  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  const out = typeof target === 'string' ? createWriteStream(target) : target;
  try {
    await pipeline(Readable.fromWeb(res.body as WebReadableStream<Uint8Array>), counter, out);
  } catch (cause) {
    if (typeof target === 'string') rmSync(target, { force: true });
    throw new TickvaultDownloadError('interrupted', `the Parquet download broke off after ${bytes} bytes; not retried (it cost a quota unit)`, { cause });
  }
  const expected = res.headers.get('content-length');
  if (expected !== null && Number(expected) !== bytes) {
    if (typeof target === 'string') rmSync(target, { force: true });
    throw new TickvaultDownloadError('interrupted', `the Parquet download holds ${bytes} bytes of the ${expected} announced`);
  }
  return { written: true, bytes, filename: attachmentName(res.headers.get('content-disposition')) };
}

/** The `filename="…"` of a Content-Disposition, if any. */
function attachmentName(header: string | null): string | null {
  const m = header?.match(/filename="([^"]*)"/);
  return m ? m[1] : null;
}
