/**
 * A gzip answer made of a page's pieces without compressing what row text already holds
 * compressed (storage/rowText/): one gzip member whose DEFLATE stream is, in order, each run of
 * other pieces — deflated now when large (rows of a row group a page covers in part), as
 * stored blocks when small (the envelope, commas: a zlib stream's set-up costs more than they
 * could save) — and each stored chunk as it is. Every chunk starts afresh and ends
 * sync-flushed (byte-aligned, not final), so they concatenate; an empty final block ends the stream (as pigz does). One
 * member, not several: Python's httpx decodes only the first member of a gzip body.
 */
import { crc32 } from 'node:zlib';
import { deflateChunk } from '../../storage/rowText/rowTextFile.js';
import { isStoredRows, type JsonPiece } from './jsonPieces.js';

/** ID1 ID2, CM = deflate, no flags, no mtime, XFL 0, OS unknown (RFC 1952). */
const HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff]);
/** BFINAL = 1, fixed Huffman, end of block: an empty last block. */
const LAST_BLOCK = Buffer.from([0x03, 0x00]);
/** Runs shorter than this go as stored blocks. */
const STORED_BELOW = 4096;

/**
 * `text` as DEFLATE stored blocks (RFC 1951 §3.2.4), not final: after a sync-flushed chunk the
 * stream is byte-aligned, so each block is a header byte (BFINAL 0, BTYPE 00), LEN, NLEN, bytes.
 */
function storedBlocks(text: Buffer): Buffer {
  const blocks: Buffer[] = [];
  for (let at = 0; at < text.length; at += 0xffff) {
    const part = text.subarray(at, Math.min(text.length, at + 0xffff));
    const head = Buffer.alloc(5);
    head.writeUInt16LE(part.length, 1);
    head.writeUInt16LE(~part.length & 0xffff, 3);
    blocks.push(head, part);
  }
  return Buffer.concat(blocks);
}

/** Whether any piece has a stored chunk (else plain gzip is as good). */
export function hasStoredChunks(pieces: readonly JsonPiece[]): boolean {
  return pieces.some(isStoredRows);
}

/**
 * The pieces' text, concatenated, as one gzip member; stored chunks spliced in. A stored piece
 * not inflated yet is never inflated: the trailer's CRC-32 takes its text's CRC-32 and length.
 */
export async function gzipSpliced(pieces: readonly JsonPiece[]): Promise<Buffer> {
  const parts: (Buffer | Promise<Buffer>)[] = [HEADER];
  let crc = 0;
  let length = 0;
  let run: Buffer[] = [];
  const endRun = () => {
    if (run.length === 0) return;
    const text = run.length === 1 ? run[0]! : Buffer.concat(run);
    run = [];
    if (text.length === 0) return;
    if (text.length < STORED_BELOW) parts.push(storedBlocks(text));
    else parts.push(deflateChunk(text));
  };
  for (const piece of pieces) {
    if (isStoredRows(piece)) {
      endRun();
      parts.push(piece.chunk);
      crc = crc32Combine(crc, piece.textCrc32, piece.textBytes);
      length += piece.textBytes;
      continue;
    }
    length += piece.length;
    crc = crc32(piece, crc);
    run.push(piece);
  }
  endRun();
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  // ISIZE is the length modulo 2^32 (RFC 1952).
  trailer.writeUInt32LE(length % 0x1_0000_0000, 4);
  return Buffer.concat([...(await Promise.all(parts)), LAST_BLOCK, trailer]);
}

/** The CRC-32 polynomial, reflected. */
const POLY = 0xedb88320;

/** a·b modulo the CRC polynomial, bit-reflected (zlib's multmodp). */
function multModP(a: number, b: number): number {
  let m = 0x80000000;
  let p = 0;
  for (;;) {
    if (a & m) {
      p ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    b = b & 1 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return p >>> 0;
}

/** x^(2^k) modulo the polynomial, k = 0…31 (zlib's x2n_table). */
const X2N = (() => {
  const table = new Uint32Array(32);
  let p = 1 << 30; // x^1
  table[0] = p;
  for (let n = 1; n < 32; n++) table[n] = p = multModP(p, p);
  return table;
})();

/**
 * The CRC-32 of A followed by B from CRC-32(A), CRC-32(B) and B's length (zlib's
 * crc32_combine, which Node does not expose): CRC(A) times x^(8·len B) modulo the polynomial,
 * plus CRC(B); the power comes from the table of x^(2^k), one product per bit of the length.
 */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  let power = 0x80000000; // x^0
  let k = 3; // bytes to bits: x^(8n) = x^(n·2^3)
  for (let n = lengthB; n > 0; n = Math.floor(n / 2), k++) if (n % 2 === 1) power = multModP(X2N[k & 31]!, power);
  return (multModP(power, crcA >>> 0) ^ (crcB >>> 0)) >>> 0;
}
