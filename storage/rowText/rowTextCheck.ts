/**
 * `doctor`'s look at a sealed file's row text (rowTextFile.ts). Row text is derived: when it is
 * missing, made from other bytes or damaged the server makes pages from the Parquet file, so
 * answers stay right and only first touches are slower. Findings are therefore warnings, and
 * `doctor --rebuild` writes the row text again from the file (once the file itself checks out).
 */
import { crc32 } from 'node:zlib';
import { rowTextRelPath } from '../layout.js';
import { decodeRowTextIndex, indexFrameRange, RowTextDamagedError, ROW_TEXT_TRAILER_BYTES } from './rowTextFile.js';

/** What the check reads: sizes and bytes of files under the data directory. */
export interface RowTextCheckIo {
  fileSize(relPath: string): Promise<number | null>;
  readFile(relPath: string): Promise<Uint8Array>;
}

/** The catalog's facts the row text must agree with. */
export interface RowTextSubject {
  readonly path: string;
  readonly rows: number;
  readonly sha256: string;
  readonly rowGroupSize: number;
}

/** Why a file's row text cannot serve its pages; null when it can. */
export async function rowTextFault(io: RowTextCheckIo, file: RowTextSubject, quick: boolean): Promise<string | null> {
  const rel = rowTextRelPath(file.path);
  const size = await io.fileSize(rel);
  if (size === null) return `no row text at ${rel}: first touches of this file decode it`;
  if (quick) return null;
  const bytes = Buffer.from(await io.readFile(rel));
  try {
    if (bytes.length < ROW_TEXT_TRAILER_BYTES) throw new RowTextDamagedError(`${bytes.length} bytes: no trailer`);
    const range = indexFrameRange(bytes.subarray(bytes.length - ROW_TEXT_TRAILER_BYTES), bytes.length);
    const index = await decodeRowTextIndex(bytes.subarray(range.offset, range.offset + range.bytes), range.crc32, range.offset);
    if (index.parquetSha256 !== file.sha256) return `row text at ${rel} was made from other bytes (sha256 ${index.parquetSha256.slice(0, 16)}…)`;
    const rows = index.groups.reduce((a, g) => a + g.rows, 0);
    if (rows !== file.rows || index.groups.some((g, i) => i < index.groups.length - 1 && g.rows !== file.rowGroupSize)) {
      throw new RowTextDamagedError(`holds ${rows} rows in ${index.groups.length} groups, the catalog says ${file.rows} in groups of ${file.rowGroupSize}`);
    }
    for (const [i, g] of index.groups.entries()) {
      if (crc32(bytes.subarray(g.frameOffset, g.frameOffset + g.frameBytes)) !== g.frameCrc32) throw new RowTextDamagedError(`row group ${i} fails its CRC-32`);
    }
    return null;
  } catch (e) {
    if (e instanceof RowTextDamagedError) return `row text at ${rel} is damaged: ${e.message}`;
    throw e;
  }
}
