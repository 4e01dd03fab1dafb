/**
 * Every-field rows of a row group from its file's row text (storage/rowText/, written at seal
 * time): a first touch reads a few hundred KB and decompresses them in libuv's threads instead
 * of decoding the Parquet file and writing its numbers as text. Null when the file has no row
 * text, when it was made from other bytes than the catalog's (SHA-256), or when it is damaged
 * (CRC-32, length): the caller then makes the rows from the Parquet file, so row text can only
 * make a page faster, never different. A damaged one is logged once per file.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { CatalogFile } from '../../storage/catalog.js';
import { rowTextRelPath } from '../../storage/layout.js';
import { crc32 } from 'node:zlib';
import type { SerializedRows, StoredRowText } from '../../storage/rowText/rowJson.js';
import { hasRowText } from '../../storage/rowText/rowTextBuild.js';
import {
  decodeRowTextGroup, decodeRowTextIndex, indexFrameRange, RowTextDamagedError, ROW_TEXT_TRAILER_BYTES, type RowTextGroup, type RowTextIndex,
} from '../../storage/rowText/rowTextFile.js';
import type { FileColumnCache } from '../reading/fileColumns.js';

/**
 * A row text up to this size (a level-2 stock-day is ~0.3 MB) is read whole on a first touch;
 * a larger one (a liquid stock's trades) has its end read first, then the frames a page needs.
 */
const WHOLE_BYTES = 2 * 1024 * 1024;
/** Bytes read from a large row text's end at first: its trailer and most indexes. */
const TAIL_BYTES = 64 * 1024;

export type RowTextDamageReport = (path: string, reason: string) => void;

export class RowTextSource {
  /** Whole row texts just read for an index, kept until the event loop turns (see WHOLE_BYTES). */
  private readonly justRead = new Map<string, Buffer>();
  /** Row texts found damaged (reported once each). */
  private readonly reported = new Set<string>();

  constructor(
    private readonly dataDir: string,
    private readonly cache: FileColumnCache,
    private readonly onDamaged: RowTextDamageReport,
  ) {}

  /** Once per file and process: the file's pages are right either way, the log says it once. */
  private damaged(path: string, reason: string): void {
    if (this.reported.has(path)) return;
    this.reported.add(path);
    this.onDamaged(path, reason);
  }

  /** Rows of row group `g`, or null when the row text cannot give them (see above). */
  async rows(file: CatalogFile, g: number): Promise<SerializedRows | null> {
    if (!hasRowText(file.dataset)) return null;
    const index = await this.index(file);
    const group = index?.groups[g];
    if (!group) return null;
    const path = rowTextRelPath(file.path);
    try {
      return await decodeRowTextGroup(group, await this.frame(path, group));
    } catch (e) {
      if (e instanceof RowTextDamagedError) {
        this.damaged(path, (e as Error).message);
        return null;
      }
      throw e;
    }
  }

  /**
   * Row group `g` as stored, not inflated: its chunk, checked by CRC-32, with the text's length
   * and CRC-32; `text` makes the rows when an answer needs them. Null as for `rows`.
   */
  async stored(file: CatalogFile, g: number, text: () => Promise<Buffer>): Promise<StoredRowText | null> {
    if (!hasRowText(file.dataset)) return null;
    const index = await this.index(file);
    const group = index?.groups[g];
    if (!group) return null;
    const path = rowTextRelPath(file.path);
    try {
      const frame = await this.frame(path, group);
      if (crc32(frame) !== group.frameCrc32) throw new RowTextDamagedError('row group frame fails its CRC-32');
      return { chunk: frame, textBytes: group.textBytes, textCrc32: group.textCrc32, text };
    } catch (e) {
      if (e instanceof RowTextDamagedError) {
        this.damaged(path, e.message);
        return null;
      }
      throw e;
    }
  }

  private frame(path: string, group: RowTextGroup): Promise<Buffer> {
    const whole = this.justRead.get(path);
    if (whole) return Promise.resolve(whole.subarray(group.frameOffset, group.frameOffset + group.frameBytes));
    return withHandle(join(this.dataDir, path), (fh) => readAt(fh, group.frameOffset, group.frameBytes));
  }

  /** The file's row text index, checked against the catalog's file; null when unusable. Cached. */
  private index(file: CatalogFile): Promise<RowTextIndex | null> {
    // Offsets are 4 bytes a row; the entry is small next to the rows it gives.
    return this.cache.memo(`${file.path}#rowtext-index`, 1024 + (file.rows + 16) * 4, async () => {
      const path = rowTextRelPath(file.path);
      try {
        const index = await withHandle(join(this.dataDir, path), async (fh) => {
          const size = (await fh.stat()).size;
          if (size < ROW_TEXT_TRAILER_BYTES) throw new RowTextDamagedError(`${size} bytes: no trailer`);
          if (size <= WHOLE_BYTES) {
            // One read for the index and the frames the page asks next (in this turn of the
            // event loop); not cached: the decompressed rows are.
            const whole = await readAt(fh, 0, size);
            this.justRead.set(path, whole);
            setImmediate(() => this.justRead.delete(path));
            const range = indexFrameRange(whole.subarray(size - ROW_TEXT_TRAILER_BYTES), size);
            return decodeRowTextIndex(whole.subarray(range.offset, range.offset + range.bytes), range.crc32, range.offset);
          }
          const tailBytes = Math.min(size, TAIL_BYTES);
          const tail = await readAt(fh, size - tailBytes, tailBytes);
          const range = indexFrameRange(tail.subarray(tailBytes - ROW_TEXT_TRAILER_BYTES), size);
          const inTail = range.offset - (size - tailBytes);
          const frame = inTail >= 0 ? tail.subarray(inTail, inTail + range.bytes) : await readAt(fh, range.offset, range.bytes);
          return decodeRowTextIndex(frame, range.crc32, range.offset);
        });
        if (index.parquetSha256 !== file.sha256) return null; // made from other bytes: not this file's rows
        const expectedGroups = Math.ceil(file.rows / file.rowGroupSize);
        if (index.groups.length !== expectedGroups || index.groups.some((gr, i) => gr.rows !== Math.min(file.rowGroupSize, file.rows - i * file.rowGroupSize))) {
          throw new RowTextDamagedError(`row groups do not match the catalog's ${file.rows} rows in groups of ${file.rowGroupSize}`);
        }
        return index;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null; // sealed before row text, or not rebuilt yet
        if (e instanceof RowTextDamagedError) {
          this.damaged(path, (e as Error).message);
          return null;
        }
        throw e;
      }
    });
  }
}

async function withHandle<T>(path: string, fn: (fh: FileHandle) => Promise<T>): Promise<T> {
  const fh = await open(path, 'r');
  try {
    return await fn(fh);
  } finally {
    await fh.close();
  }
}

async function readAt(fh: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await fh.read(buf, done, length - done, position + done);
    if (bytesRead === 0) throw new RowTextDamagedError(`ends before byte ${position + length}`);
    done += bytesRead;
  }
  return buf;
}
