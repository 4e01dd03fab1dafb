/**
 * The server's read-through cache of the store (issue 50): the 128 KiB blocks of offloaded
 * files it has read, on local disk, bounded by --store-cache-mb. A read asks for a byte range;
 * the blocks it covers come from the cache or, for each run of blocks not there, from one
 * ranged GET of exactly that run, issued at once for every run. So a Parquet page's first
 * touch costs the footer's block (one round trip) and its column chunks' blocks (a second,
 * the chunks fetched concurrently), and a warm one no round trip.
 *
 * Every block is checked against its SHA-256 recorded at upload (made from the local bytes
 * once their SHA-256 was the catalog's) when it arrives and again when read back from the
 * cache's disk: a wrong byte in the store or the cache is a DamagedFileError naming the file
 * (503 `damaged`), never a wrong row. A block the cache holds damaged is dropped and fetched
 * again; one the store holds damaged is damage of the file.
 *
 * The cache belongs to one process (`store-cache/p<PID>` under the data directory), so no
 * other process evicts under it; folders of processes no longer running are removed at start.
 */
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isProcessAlive } from '../../shared/processAlive.js';
import { DamagedFileError } from '../damagedFile.js';
import { BLOCK_BYTES, blockMatches } from './objectDigests.js';
import type { ObjectStore } from './objectStore.js';
import type { StoredObject } from './storeCatalog.js';

/** The folder of every server's cache under the data directory. */
export const STORE_CACHE_DIR = 'store-cache';

export interface BlockCacheFigures {
  /** Bytes of blocks on the cache's disk now. */
  readonly bytes: number;
  readonly maxBytes: number;
  /** Blocks read from the cache, and fetched from the store (each verified). */
  readonly hits: number;
  readonly fetched: number;
  /** Ranged GETs sent. */
  readonly gets: number;
}

export class StoreBlockCache {
  /** Cached blocks by key, least recently used first (a Map keeps insertion order). */
  private readonly blocks = new Map<string, number>();
  private readonly inFlight = new Map<string, Promise<Buffer>>();
  private used = 0;
  private hits = 0;
  private fetched = 0;
  private gets = 0;
  readonly dir: string;

  constructor(
    dataDir: string,
    private readonly store: ObjectStore,
    readonly maxBytes: number,
  ) {
    const root = join(dataDir, STORE_CACHE_DIR);
    mkdirSync(root, { recursive: true });
    for (const name of readdirSync(root)) {
      const pid = /^p(\d+)$/.exec(name);
      if (pid && Number(pid[1]) !== process.pid && !isProcessAlive(Number(pid[1]))) rmSync(join(root, name), { recursive: true, force: true });
    }
    this.dir = join(root, `p${process.pid}`);
    rmSync(this.dir, { recursive: true, force: true });
    mkdirSync(this.dir, { recursive: true });
  }

  get figures(): BlockCacheFigures {
    return { bytes: this.used, maxBytes: this.maxBytes, hits: this.hits, fetched: this.fetched, gets: this.gets };
  }

  /** Bytes [position, position + length) of the stored object, verified block by block. */
  async read(obj: StoredObject, position: number, length: number): Promise<Buffer> {
    const end = Math.min(position + length, obj.bytes);
    if (position >= end) return Buffer.alloc(0);
    const first = Math.floor(position / BLOCK_BYTES);
    const last = Math.floor((end - 1) / BLOCK_BYTES);
    const blocks = new Array<Promise<Buffer>>(last - first + 1);
    // Runs of blocks neither cached nor being fetched: one GET each, all at once.
    let run: number[] = [];
    const flush = () => {
      if (run.length > 0) this.fetchRun(obj, run, blocks, first);
      run = [];
    };
    for (let b = first; b <= last; b++) {
      const key = blockKey(obj, b);
      const pending = this.inFlight.get(key);
      if (pending) {
        flush();
        blocks[b - first] = pending;
      } else if (this.blocks.has(key)) {
        flush();
        blocks[b - first] = this.fromDisk(obj, b);
      } else run.push(b);
    }
    flush();
    const got = await Promise.all(blocks);
    const whole = got.length === 1 ? got[0] : Buffer.concat(got);
    const from = position - first * BLOCK_BYTES;
    return whole.subarray(from, from + (end - position));
  }

  /** Starts one GET for the contiguous blocks `run`, filling their places in `into`. */
  private fetchRun(obj: StoredObject, run: readonly number[], into: Promise<Buffer>[], first: number): void {
    const lo = run[0] * BLOCK_BYTES;
    const hi = Math.min((run[run.length - 1] + 1) * BLOCK_BYTES, obj.bytes);
    this.gets++;
    const bytes = this.store.getRange(obj.key, lo, hi);
    for (const b of run) {
      const key = blockKey(obj, b);
      const one = bytes.then(async (all) => {
        const block = all.subarray(b * BLOCK_BYTES - lo, Math.min((b + 1) * BLOCK_BYTES, obj.bytes) - lo);
        if (!blockMatches(obj.blocks, b, block)) {
          throw new DamagedFileError(obj.key, `the store's copy differs from the catalog's in bytes ${b * BLOCK_BYTES}-${b * BLOCK_BYTES + block.length - 1}`);
        }
        this.fetched++;
        const copy = Buffer.from(block);
        await this.keep(key, copy);
        return copy;
      });
      this.inFlight.set(key, one);
      // Settled either way: a later read fetches again (a store back up, a block repaired).
      void one.then(
        () => this.inFlight.delete(key),
        () => this.inFlight.delete(key),
      );
      into[b - first] = one;
    }
  }

  private async fromDisk(obj: StoredObject, b: number): Promise<Buffer> {
    const key = blockKey(obj, b);
    let block: Buffer | null = null;
    try {
      block = await readFile(join(this.dir, key));
    } catch {
      block = null;
    }
    if (block !== null && blockMatches(obj.blocks, b, block)) {
      this.hits++;
      // Most recently used now.
      const size = this.blocks.get(key);
      if (size !== undefined) {
        this.blocks.delete(key);
        this.blocks.set(key, size);
      }
      return block;
    }
    // Gone or damaged on the cache's disk: forget it and fetch it again.
    this.forget(key);
    const into: Promise<Buffer>[] = [];
    this.fetchRun(obj, [b], into, b);
    return into[0];
  }

  private async keep(key: string, block: Buffer): Promise<void> {
    if (this.blocks.has(key) || block.length > this.maxBytes) return;
    const path = join(this.dir, key);
    const tmp = `${path}.tmp`;
    try {
      await writeFile(tmp, block);
      await rename(tmp, path);
    } catch {
      // A cache that cannot write (a full disk) only serves slower: the block was verified and is returned.
      await unlink(tmp).catch(() => {});
      return;
    }
    this.blocks.set(key, block.length);
    this.used += block.length;
    for (const [old, size] of this.blocks) {
      if (this.used <= this.maxBytes) break;
      this.blocks.delete(old);
      this.used -= size;
      void unlink(join(this.dir, old)).catch(() => {});
    }
  }

  private forget(key: string): void {
    const size = this.blocks.get(key);
    if (size === undefined) return;
    this.blocks.delete(key);
    this.used -= size;
    void unlink(join(this.dir, key)).catch(() => {});
  }

  /** Removes this process's cache folder (at exit). */
  close(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A block by its file's content (the SHA-256: a restated file is another) and number. */
function blockKey(obj: StoredObject, b: number): string {
  return `${obj.sha256}.${b}`;
}
