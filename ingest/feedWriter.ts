import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { createGzip, type Gzip } from 'node:zlib';
import { compress } from '@mongodb-js/zstd';
import { compressionOf } from './feedLines.js';

/**
 * Writes a JSON Lines feed, compressed by extension (`.zst`, `.gz`, else plain). zstd output
 * is a sequence of independent frames of a few MiB each, which every zstd reader accepts and
 * which keeps memory flat for a feed of any size.
 */
const CHUNK_BYTES = 4 << 20;

export class FeedWriter {
  private readonly out: WriteStream;
  private readonly gzip: Gzip | null;
  private readonly zstd: boolean;
  private pending: string[] = [];
  private pendingBytes = 0;

  constructor(path: string) {
    this.out = createWriteStream(path);
    const kind = compressionOf(path);
    this.zstd = kind === 'zstd';
    this.gzip = kind === 'gzip' ? createGzip({ level: 6 }) : null;
    if (this.gzip) this.gzip.pipe(this.out);
  }

  async writeLine(line: string): Promise<void> {
    this.pending.push(line);
    this.pendingBytes += line.length + 1;
    if (this.pendingBytes >= CHUNK_BYTES) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const text = this.pending.join('\n') + '\n';
    this.pending = [];
    this.pendingBytes = 0;
    const buf = Buffer.from(text);
    const data = this.zstd ? await compress(buf, 3) : buf;
    const sink = this.gzip ?? this.out;
    if (!sink.write(data)) await once(sink, 'drain');
  }

  async close(): Promise<void> {
    await this.flush();
    if (this.gzip) {
      this.gzip.end();
      await once(this.out, 'finish');
    } else {
      this.out.end();
      await once(this.out, 'finish');
    }
  }
}
