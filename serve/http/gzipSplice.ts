/**
 * A gzip answer made of a page's pieces without compressing what row text already holds
 * compressed (storage/rowText/): one gzip member whose DEFLATE stream is, in order, each run of
 * other pieces deflated now (the envelope, commas, rows of a row group a page covers in part)
 * and each stored chunk as it is. Every chunk starts afresh and ends sync-flushed (byte-aligned,
 * not final), so they concatenate; an empty final block ends the stream (as pigz does). One
 * member, not several: Python's httpx decodes only the first member of a gzip body.
 */
import { promisify } from 'node:util';
import { constants, crc32, deflateRaw as deflateRawCb } from 'node:zlib';
import { deflatedPiece } from '../../storage/rowText/rowJson.js';

const deflateRaw = promisify(deflateRawCb);

/** ID1 ID2, CM = deflate, no flags, no mtime, XFL 0, OS unknown (RFC 1952). */
const HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff]);
/** BFINAL = 1, fixed Huffman, end of block: an empty last block. */
const LAST_BLOCK = Buffer.from([0x03, 0x00]);
/** The level of what is deflated now: gzip 1, as compression.ts's. */
const LEVEL = 1;

/** Whether any piece has a stored chunk (else plain gzip is as good). */
export function hasStoredChunks(pieces: readonly Buffer[]): boolean {
  return pieces.some((p) => deflatedPiece(p) !== undefined);
}

/** The pieces, concatenated, as one gzip member; stored chunks spliced in. */
export async function gzipSpliced(pieces: readonly Buffer[]): Promise<Buffer> {
  const parts: (Buffer | Promise<Buffer>)[] = [HEADER];
  let crc = 0;
  let length = 0;
  let run: Buffer[] = [];
  const endRun = () => {
    if (run.length === 0) return;
    const text = run.length === 1 ? run[0]! : Buffer.concat(run);
    run = [];
    if (text.length > 0) parts.push(deflateRaw(text, { level: LEVEL, finishFlush: constants.Z_SYNC_FLUSH, chunkSize: Math.max(16 * 1024, text.length >> 2) }));
  };
  for (const piece of pieces) {
    // The text's CRC-32 over every piece (0.3 ms for a full-day level-2 page).
    crc = crc32(piece, crc);
    length += piece.length;
    const stored = deflatedPiece(piece);
    if (stored === undefined) {
      run.push(piece);
      continue;
    }
    endRun();
    parts.push(stored);
  }
  endRun();
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  // ISIZE is the length modulo 2^32 (RFC 1952).
  trailer.writeUInt32LE(length % 0x1_0000_0000, 4);
  return Buffer.concat([...(await Promise.all(parts)), LAST_BLOCK, trailer]);
}
