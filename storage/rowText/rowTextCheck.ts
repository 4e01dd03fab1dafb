/**
 * `doctor`'s look at a sealed file's row text (rowTextFile.ts). Row text is derived: when it is
 * missing, made from other bytes or damaged the server makes pages from the Parquet file, so
 * answers stay right and only first touches are slower. Findings are therefore warnings, and
 * `doctor --rebuild` writes the row text again from the file (once the file itself checks out).
 */
import { rowTextRelPath } from '../layout.js';
import { decodeWholeRowTextIndex, frameIntact, rowTextShapeFault, RowTextDamagedError } from './rowTextFile.js';

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
    const index = await decodeWholeRowTextIndex(bytes);
    if (index.parquetSha256 !== file.sha256) return `row text at ${rel} was made from other bytes (sha256 ${index.parquetSha256.slice(0, 16)}…)`;
    const shape = rowTextShapeFault(index, file);
    if (shape !== null) throw new RowTextDamagedError(shape);
    const bad = index.groups.findIndex((g) => !frameIntact(g, bytes.subarray(g.frameOffset, g.frameOffset + g.frameBytes)));
    if (bad >= 0) throw new RowTextDamagedError(`row group ${bad} fails its CRC-32`);
    return null;
  } catch (e) {
    if (e instanceof RowTextDamagedError) return `row text at ${rel} is damaged: ${e.message}`;
    throw e;
  }
}
