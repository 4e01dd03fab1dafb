/**
 * Writes a JSON Lines feed, compressed by extension (`.zst`, `.gz`, else plain). zstd output
 * is a sequence of independent frames of a few MiB each, which every zstd reader accepts and
 * which keeps memory flat for a feed of any size. A frame is compressed in the thread pool
 * while the caller makes the next one's lines (one in flight, written in order): the
 * generator and the compressor use both cores instead of taking turns.
 */
import { createWriteStream, openSync, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { createGzip, type Gzip } from 'node:zlib';
import { zstdCompress } from '../../storage/parquet/zstd.js';
import { compressionOf } from './lines.js';

const CHUNK_BYTES = 4 << 20;

export class FeedWriter {
  private readonly out: WriteStream;
  private readonly gzip: Gzip | null;
  private readonly zstd: boolean;
  private pending: string[] = [];
  private pendingBytes = 0;
  /** The previous chunk: compressed and written in the background while the next one fills. */
  private inFlight: Promise<void> = Promise.resolve();
  /** The first stream error; every later call rethrows it (never an unhandled 'error' event). */
  private failure: Error | null = null;
  private readonly failed: Promise<never>;

  constructor(path: string) {
    // Opened synchronously so that a bad path throws here, as one clear error to the caller.
    this.out = createWriteStream(path, { fd: openSync(path, 'w') });
    const kind = compressionOf(path);
    this.zstd = kind === 'zstd';
    this.gzip = kind === 'gzip' ? createGzip({ level: 6 }) : null;
    this.failed = new Promise<never>((_, reject) => {
      const fail = (e: Error) => {
        this.failure ??= e;
        reject(this.failure);
      };
      this.out.on('error', fail);
      this.gzip?.on('error', fail);
    });
    this.failed.catch(() => undefined); // observed through check()/race(), not here
    if (this.gzip) this.gzip.pipe(this.out);
  }

  private check(): void {
    if (this.failure) throw this.failure;
  }

  /** Waits for `event` on `emitter`, or rejects as soon as any stream of the writer fails. */
  private race(emitter: WriteStream | Gzip, event: string): Promise<unknown> {
    return Promise.race([once(emitter, event), this.failed]);
  }

  async writeLine(line: string): Promise<void> {
    if (this.push(line)) await this.flush();
  }

  /**
   * Adds a line without a promise (for many small lines); true when a chunk is full and the
   * caller must `await flush()` before the next line.
   */
  push(line: string): boolean {
    this.check();
    this.pending.push(line);
    this.pendingBytes += line.length + 1;
    return this.pendingBytes >= CHUNK_BYTES;
  }

  /** Hands the full chunk on: waits for the previous one, then compresses this one in the background. */
  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const text = this.pending.join('\n') + '\n';
    this.pending = [];
    this.pendingBytes = 0;
    await this.writeBytes(Buffer.from(text));
  }

  /**
   * Whole lines already as bytes (each ending in a newline), after any lines pushed before:
   * waits for the previous chunk, then compresses and writes this one in the background. The
   * buffer is the writer's from here on.
   */
  async writeBytes(buf: Buffer): Promise<void> {
    if (this.pending.length > 0) await this.flush();
    await this.inFlight;
    this.check();
    this.inFlight = (async () => {
      const data = this.zstd ? await zstdCompress(buf, 3) : buf;
      this.check();
      const sink = this.gzip ?? this.out;
      if (!sink.write(data)) await this.race(sink, 'drain');
    })();
    // Failures surface on the next flush or at close (check() and the awaited chain).
    this.inFlight.catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.flush();
    await this.inFlight;
    this.check();
    const finished = this.race(this.out, 'finish');
    if (this.gzip) this.gzip.end();
    else this.out.end();
    await finished;
  }
}
