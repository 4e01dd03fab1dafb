/**
 * Every-field rows of a row group from its file's row text (storage/rowText/, written at seal
 * time): a first touch reads a few hundred KB and inflates them in libuv's threads instead of
 * decoding the Parquet file and writing its numbers as text; a gzip answer takes them as
 * stored. Null when the file has no row text, when it was made from other bytes than the
 * catalog's (SHA-256), or when it is damaged (CRC-32, length): the caller then makes the rows
 * from the Parquet file, so row text can only make a page faster, never different. A damaged
 * one is logged once per file.
 */
import type { CatalogFile } from '../../storage/catalog.js';
import { rowTextRelPath } from '../../storage/layout.js';
import type { ByteSource } from '../../storage/parquet/byteSource.js';
import { DamagedFileError } from '../../storage/damagedFile.js';
import type { LakeFile } from '../../storage/lakeFiles.js';
import type { SerializedRows, StoredRowText } from '../../storage/rowText/rowJson.js';
import { hasRowText } from '../../storage/rowText/rowTextBuild.js';
import {
  checkRowTextFrame,
  decodeRowTextGroup,
  decodeRowTextIndex,
  decodeWholeRowTextIndex,
  indexFrameRange,
  rowTextShapeFault,
  RowTextDamagedError,
  ROW_TEXT_TRAILER_BYTES,
  type RowTextGroup,
  type RowTextIndex,
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

/** A row group's place in its file's row text. */
interface Located {
  readonly path: string;
  readonly group: RowTextGroup;
}

export class RowTextSource {
  /** Whole row texts just read for an index, kept until the event loop turns (see index()). */
  private readonly justRead = new Map<string, Buffer>();

  constructor(
    /** Row texts are read through its lake (the data directory, or the store for offloaded days). */
    private readonly cache: FileColumnCache,
    private readonly onDamaged: RowTextDamageReport,
  ) {}

  /**
   * Rows of row group `g`, or null when the row text cannot give them (see above). `frame`: the
   * group's stored frame when the caller holds it already (a stored piece's chunk), not read again.
   */
  async rows(file: CatalogFile, g: number, frame?: Buffer): Promise<SerializedRows | null> {
    const at = await this.locate(file, g);
    return at && this.unlessDamaged(at.path, async () => decodeRowTextGroup(at.group, frame ?? (await this.frame(at))));
  }

  /**
   * Row group `g` as stored, not inflated: its chunk, checked by CRC-32, with the text's length
   * and CRC-32; `text(chunk)` makes the rows from that chunk when an answer needs them. Null as
   * for `rows`.
   */
  async stored(file: CatalogFile, g: number, text: (chunk: Buffer) => Promise<Buffer>): Promise<StoredRowText | null> {
    const at = await this.locate(file, g);
    return (
      at &&
      this.unlessDamaged(at.path, async () => {
        const chunk = checkRowTextFrame(at.group, await this.frame(at));
        return { chunk, textBytes: at.group.textBytes, textCrc32: at.group.textCrc32, text: () => text(chunk) };
      })
    );
  }

  private async locate(file: CatalogFile, g: number): Promise<Located | null> {
    if (!hasRowText(file.dataset)) return null;
    const group = (await this.index(file))?.groups[g];
    return group ? { path: rowTextRelPath(file.path), group } : null;
  }

  /** `work`'s value, or null when it found the row text damaged (reported once per file) or gone. */
  private async unlessDamaged<T>(path: string, work: () => Promise<T | null>): Promise<T | null> {
    try {
      return await work();
    } catch (e) {
      if (e instanceof RowTextGoneError) return null;
      if (!(e instanceof RowTextDamagedError)) throw e;
      if (this.cache.damage.firstReport('rowtext', path)) this.onDamaged(path, e.message);
      return null;
    }
  }

  private frame({ path, group }: Located): Promise<Buffer> {
    const whole = this.justRead.get(path);
    if (whole) return Promise.resolve(whole.subarray(group.frameOffset, group.frameOffset + group.frameBytes));
    return this.cache.lake
      .with(path, (f) => readAt(f, group.frameOffset, group.frameBytes))
      .catch((e: unknown) => {
        // Removed since its index was read: its day left the row text window (rowTextKeeper.ts).
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new RowTextGoneError();
        throw asRowTextDamage(e);
      });
  }

  /** The file's row text index, checked against the catalog's file; null when unusable. Cached. */
  private index(file: CatalogFile): Promise<RowTextIndex | null> {
    const path = rowTextRelPath(file.path);
    // Offsets are 4 bytes a row; the entry is small next to the rows it gives.
    return this.cache.memo(`${file.path}#rowtext-index`, 1024 + (file.rows + 16) * 4, () =>
      this.unlessDamaged(path, async () => {
        let read: IndexRead;
        try {
          read = await this.cache.lake.with(path, (f) => readIndex(f));
        } catch (e) {
          // Not made yet (it follows the listing), or its day is outside the row text window.
          if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
          throw asRowTextDamage(e);
        }
        const { index, whole } = read;
        if (whole) {
          // The frames the page asks next are taken from these bytes in the microtasks that follow
          // (not cached: the rows are). Kept from here, after the file is closed: closing is a turn
          // of the event loop, which used to drop them first, so every frame was read again.
          this.justRead.set(path, whole);
          setImmediate(() => this.justRead.delete(path));
        }
        if (index.parquetSha256 !== file.sha256) return null; // made from other bytes: not this file's rows
        const fault = rowTextShapeFault(index, file);
        if (fault !== null) throw new RowTextDamagedError(fault);
        return index;
      }),
    );
  }
}

/**
 * The store's copy of a row text failing its block digests is damage of the row text (it costs
 * speed, the rows come from the Parquet file), not of the symbol-day.
 */
function asRowTextDamage(e: unknown): unknown {
  return e instanceof DamagedFileError ? new RowTextDamagedError(e.message) : e;
}

/** The row text was removed after its index was read: the rows come from the Parquet file. */
class RowTextGoneError extends Error {
  override readonly name = 'RowTextGoneError';
}

/** A row text's index, and the whole file when it was small enough to read at once. */
interface IndexRead {
  readonly index: RowTextIndex;
  readonly whole: Buffer | null;
}

async function readIndex(fh: LakeFile): Promise<IndexRead> {
  const size = fh.size;
  if (size <= WHOLE_BYTES) {
    const whole = await readAt(fh, 0, size);
    return { index: await decodeWholeRowTextIndex(whole), whole };
  }
  const tail = await readAt(fh, size - TAIL_BYTES, TAIL_BYTES);
  const range = indexFrameRange(tail.subarray(TAIL_BYTES - ROW_TEXT_TRAILER_BYTES), size);
  const inTail = range.offset - (size - TAIL_BYTES);
  const frame = inTail >= 0 ? tail.subarray(inTail, inTail + range.bytes) : await readAt(fh, range.offset, range.bytes);
  return { index: await decodeRowTextIndex(frame, range.crc32, range.offset), whole: null };
}

async function readAt(fh: ByteSource, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await fh.read(buf, done, length - done, position + done);
    if (bytesRead === 0) throw new RowTextDamagedError(`ends before byte ${position + length}`);
    done += bytesRead;
  }
  return buf;
}
