/**
 * A sealed file's row text (`_rowtext/…/SYMBOL[.vN].tvr`): every row group's every-field rows
 * as the JSON text a page splices (rowJson.ts), written after the day is listed, for the
 * level-2 files of the row text window (rowTextKeeper.ts), so that a page's first touch is a
 * read and a decompression, not 250,000 number conversions. Derived data: the
 * Parquet file stays the truth; the row text names the file's SHA-256 it was made from, and a
 * reader that finds it missing, stale or damaged makes the rows from the Parquet file instead
 * (`doctor` reports it, `doctor --rebuild` writes it again). `doctor --digests` leaves it out.
 *
 * Layout (little-endian):
 *   frame 0 … frame G-1   one raw DEFLATE chunk per row group (its rows' text `[…],[…]`),
 *                         ended by a sync flush and not final
 *   index frame           raw DEFLATE of: u32 groups | ROW_LENGTHS, 32 bytes parquet SHA-256,
 *                         then per group {u32 frameOffset, u32 frameBytes, u32 frameCrc32,
 *                         u32 textBytes, u32 rows, u32 textCrc32}, then per group its rows'
 *                         lengths, each with its comma (offsets[r+1] - offsets[r]), as LEB128
 *                         varints. Without the ROW_LENGTHS bit (row text written before it),
 *                         per group rows+1 u32 row offsets instead.
 *   trailer               u32 indexFrameBytes, u32 indexFrameCrc32, "TVRT"
 * Why DEFLATE and not zstd: gzip is what every HTTP client accepts (Python's requests and httpx
 * send `gzip, deflate` by default), and chunks that each start afresh and end byte-aligned by a
 * sync flush concatenate into one valid DEFLATE stream (as pigz does). So a page that covers
 * row groups whole goes out in gzip as their stored chunks, spliced (serve/http/gzipSplice.ts),
 * with no compression at request time. The frame CRC-32s are of the stored (compressed) bytes: what a bad sector changes.
 */
import { promisify } from 'node:util';
import { constants, crc32, createInflateRaw, deflateRaw as deflateRawCb, inflateRaw as inflateRawCb } from 'node:zlib';
import type { Dataset } from '../../shared/schema.js';
import type { SerializedRows } from './rowJson.js';

const deflateRaw = promisify(deflateRawCb);
const inflateRaw = promisify(inflateRawCb);

export const ROW_TEXT_MAGIC = 'TVRT';
export const ROW_TEXT_TRAILER_BYTES = 12;
const GROUP_ENTRY_U32 = 6;
/**
 * Set in the index's group count: rows are stored as their lengths, varint-coded, not as u32
 * offsets, which were most of a tick-by-tick row text's index and a sixth of its bytes. A
 * liquid stock-day (bench of issue 52): trade index 99,239 → 10,144 bytes, its row text
 * 580.4 → 493.4 KiB; orders 136,563 → 12,007 bytes, 754.4 → 632.8 KiB; level 2 14,786 →
 * 3,636 bytes, 329.6 → 318.8 KiB.
 */
const ROW_LENGTHS = 0x8000_0000;

/**
 * DEFLATE level of the chunks. Measured on a level-2 stock-day (1.58 MB of text): level 1
 * 334 KB in 12 ms, 3 309 KB in 16 ms, 6 276 KB in 61 ms; inflating takes 3–5 ms at any level.
 * Level 1 keeps the seal's added time smallest for about the size of brotli 1 (323 KB).
 * Measured again with the rest of level 1's knobs (bench/rowText.bench.ts, a level-2 stock-day,
 * 1,422 KiB of text in 5 chunks, sync CPU, min of 21): level 1 315.1 KiB in 6.6 ms, level 2
 * 304.6 KiB in 7.8 ms; memLevel 9 no faster; Z_HUFFMAN_ONLY 6.0 ms and Z_RLE 7.4 ms but twice
 * the bytes (628–630 KiB). The chunks deflated at once in libuv's threads or one after another
 * cost the same CPU. Nothing here is cheaper without bytes a gzip answer then sends.
 */
export const ROW_TEXT_DEFLATE_LEVEL = 1;

/**
 * DEFLATE window of a dataset's chunks (windowBits). A tick-by-tick row text is smaller with a
 * 4 KiB window than with 32 KiB at about the same time (level 1, a liquid stock-day of
 * generated data, bench/rowText.bench.ts, min of 25): trades 2,509 KiB of text → 532.9 KiB in
 * 12.0 ms with 32 KiB, 483.3 KiB in 12.0 ms with 4 KiB; orders 3,314 KiB → 673.9 KiB in 14.0 ms,
 * 620.8 KiB in 14.6 ms. Level 2 gains 1 % (315.1 → 311.9 KiB) for 6.6 → 8.4 ms and keeps
 * 32 KiB. Any inflater (and any gzip client) reads a stream made with a smaller window.
 */
export function rowTextWindowBits(dataset: Dataset): number {
  return dataset === 'level2' ? 15 : 12;
}

/**
 * zlib's one-shot calls work in output blocks of `chunkSize` (16 KiB by default), each a round
 * trip to libuv's threads and back to this thread: 100 of them to inflate a level-2 stock-day's
 * text, a third of its first touch (profiled). One block of the size the output will have.
 */
const outputBlock = (bytes: number) => Math.max(16 * 1024, bytes);

/** A row group's chunk: raw DEFLATE, sync-flushed, not final; it starts with no dictionary. */
export function deflateChunk(text: Buffer, level = ROW_TEXT_DEFLATE_LEVEL, windowBits = 15): Promise<Buffer> {
  return deflateRaw(text, { level, windowBits, finishFlush: constants.Z_SYNC_FLUSH, chunkSize: outputBlock(text.length >> 2) });
}

/**
 * The text of a chunk (or of several spliced), which has no final block; `textBytes` its
 * expected size. A stream with one output block a little larger than the text: its one `data`
 * is the text, where the one-shot call would copy it once more into a buffer of its own (a
 * first touch's largest allocation, and garbage to collect).
 */
export function inflateChunk(chunk: Buffer, textBytes = chunk.length * 5): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const z = createInflateRaw({ finishFlush: constants.Z_SYNC_FLUSH, chunkSize: outputBlock(textBytes + 1024) });
    const out: Buffer[] = [];
    z.on('data', (b: Buffer) => out.push(b));
    z.on('end', () => resolve(out.length === 1 ? out[0]! : Buffer.concat(out)));
    z.on('error', reject);
    z.end(chunk);
  });
}

export interface RowTextGroup {
  readonly frameOffset: number;
  readonly frameBytes: number;
  readonly frameCrc32: number;
  readonly textBytes: number;
  readonly rows: number;
  /** CRC-32 of the text: what a gzip answer's trailer combines (the stored frame has its own). */
  readonly textCrc32: number;
  /** As SerializedRows.offsets: offsets[r] = first byte of row r; offsets[rows] = textBytes + 1. */
  readonly offsets: Uint32Array;
}

export interface RowTextIndex {
  /** Hex SHA-256 of the Parquet file these rows were made from. */
  readonly parquetSha256: string;
  readonly groups: readonly RowTextGroup[];
}

/** The row text is not what it says it is: the reader uses the Parquet file instead. */
export class RowTextDamagedError extends Error {
  override readonly name = 'RowTextDamagedError';
}

/**
 * The row text file of every row group's rows, bound to the Parquet file of `parquetSha256`;
 * `windowBits` that of the chunks (rowTextWindowBits).
 */
export async function encodeRowText(
  groups: readonly SerializedRows[],
  parquetSha256: string,
  level = ROW_TEXT_DEFLATE_LEVEL,
  windowBits = 15,
): Promise<Buffer> {
  const frames = await Promise.all(groups.map((g) => deflateChunk(g.bytes, level, windowBits)));
  const rows = groups.reduce((a, g) => a + g.offsets.length - 1, 0);
  const head = 36 + groups.length * GROUP_ENTRY_U32 * 4;
  // A varint takes at most 5 bytes; rows are far shorter than 2^21 bytes, so 3 in practice.
  const index = Buffer.alloc(head + rows * 5);
  index.writeUInt32LE((groups.length | ROW_LENGTHS) >>> 0, 0);
  Buffer.from(parquetSha256, 'hex').copy(index, 4);
  let o = 36;
  let frameOffset = 0;
  groups.forEach((g, i) => {
    const f = frames[i]!;
    for (const v of [frameOffset, f.length, crc32(f), g.bytes.length, g.offsets.length - 1, crc32(g.bytes)]) {
      index.writeUInt32LE(v, o);
      o += 4;
    }
    frameOffset += f.length;
  });
  for (const g of groups) {
    if (g.offsets[0] !== 0) throw new RangeError('serialised rows must start at their first byte');
    for (let r = 1; r < g.offsets.length; r++) o = writeVarint(index, o, g.offsets[r]! - g.offsets[r - 1]!);
  }
  // Huffman codes only: LZ77 finds little to match among row lengths, so matching costs time
  // for nothing (a liquid stock-day's trades: an index of 34,159 bytes → 10,547 in 0.42 ms at
  // level 1, 10,144 in 0.24 ms with Huffman codes only; min of 31).
  const indexFrame = await deflateRaw(index.subarray(0, o), { level, strategy: constants.Z_HUFFMAN_ONLY, chunkSize: outputBlock(o) });
  const trailer = Buffer.alloc(ROW_TEXT_TRAILER_BYTES);
  trailer.writeUInt32LE(indexFrame.length, 0);
  trailer.writeUInt32LE(crc32(indexFrame), 4);
  trailer.write(ROW_TEXT_MAGIC, 8, 'latin1');
  return Buffer.concat([...frames, indexFrame, trailer]);
}

/** `v` (0 ≤ v < 2^32) as a LEB128 varint at `o`; the position after it. */
function writeVarint(buf: Buffer, o: number, v: number): number {
  while (v >= 0x80) {
    buf[o++] = (v & 0x7f) | 0x80;
    v = Math.floor(v / 128);
  }
  buf[o++] = v;
  return o;
}

/** Where the index frame lies, from the file's last 12 bytes and its size. */
export function indexFrameRange(trailer: Uint8Array, fileBytes: number): { readonly offset: number; readonly bytes: number; readonly crc32: number } {
  const t = Buffer.from(trailer.buffer, trailer.byteOffset, trailer.byteLength);
  if (t.length !== ROW_TEXT_TRAILER_BYTES || t.toString('latin1', 8, 12) !== ROW_TEXT_MAGIC) throw new RowTextDamagedError('no row text trailer');
  const bytes = t.readUInt32LE(0);
  if (bytes + ROW_TEXT_TRAILER_BYTES > fileBytes) throw new RowTextDamagedError(`index frame of ${bytes} bytes does not fit a file of ${fileBytes}`);
  return { offset: fileBytes - ROW_TEXT_TRAILER_BYTES - bytes, bytes, crc32: t.readUInt32LE(4) };
}

/** The index from its stored frame (checked against the trailer's CRC-32); throws RowTextDamagedError. */
export async function decodeRowTextIndex(frame: Buffer, expectedCrc32: number, framesEnd: number): Promise<RowTextIndex> {
  if (crc32(frame) !== expectedCrc32) throw new RowTextDamagedError('index frame fails its CRC-32');
  const index = await inflateRaw(frame, { chunkSize: outputBlock(frame.length * 4) }).catch((e: unknown) => {
    throw new RowTextDamagedError(`index frame does not decompress: ${(e as Error).message}`);
  });
  if (index.length < 36) throw new RowTextDamagedError('index too short');
  const first = index.readUInt32LE(0);
  const lengths = (first & ROW_LENGTHS) !== 0;
  const n = lengths ? (first & ~ROW_LENGTHS) >>> 0 : first;
  const groups: RowTextGroup[] = [];
  let o = 36;
  let offsetsAt = 36 + n * GROUP_ENTRY_U32 * 4;
  let expectedOffset = 0;
  for (let i = 0; i < n; i++) {
    if (o + GROUP_ENTRY_U32 * 4 > index.length) throw new RowTextDamagedError('index shorter than its group count');
    const [frameOffset, frameBytes, frameCrc32, textBytes, rows, textCrc32] = [0, 1, 2, 3, 4, 5].map((k) => index.readUInt32LE(o + k * 4)) as [
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    o += GROUP_ENTRY_U32 * 4;
    // At least a byte a row either way: a count no index could hold is damage, not an allocation.
    const offsetBytes = lengths ? rows : (rows + 1) * 4;
    if (frameOffset !== expectedOffset || offsetsAt + offsetBytes > index.length) throw new RowTextDamagedError(`group ${i} entry is inconsistent`);
    expectedOffset += frameBytes;
    let offsets: Uint32Array;
    if (lengths) {
      offsets = new Uint32Array(rows + 1);
      offsetsAt = readRowLengths(index, offsetsAt, offsets);
      if (offsetsAt < 0) throw new RowTextDamagedError(`group ${i} row lengths run past the index`);
    } else {
      // Copied out, so the offsets are aligned and do not pin the whole index.
      offsets = new Uint32Array(rows + 1);
      Buffer.from(offsets.buffer).set(index.subarray(offsetsAt, offsetsAt + offsetBytes));
      offsetsAt += offsetBytes;
    }
    if (offsets[rows] !== textBytes + 1) throw new RowTextDamagedError(`group ${i} row offsets do not end at its text's length`);
    groups.push({ frameOffset, frameBytes, frameCrc32, textBytes, rows, textCrc32, offsets });
  }
  if (expectedOffset !== framesEnd) throw new RowTextDamagedError('frames do not end where the index frame begins');
  if (lengths && offsetsAt !== index.length) throw new RowTextDamagedError('index longer than its groups');
  return { parquetSha256: index.subarray(4, 36).toString('hex'), groups };
}

/**
 * Row offsets from row lengths (LEB128 varints at `at`): offsets[0] = 0, offsets[r+1] =
 * offsets[r] + length r, for offsets.length - 1 rows. The position after them, or -1 when they
 * run past the index (or a varint past 32 bits).
 */
function readRowLengths(index: Buffer, at: number, offsets: Uint32Array): number {
  let o = at;
  let offset = 0;
  for (let r = 1; r < offsets.length; r++) {
    let v = 0;
    let scale = 1;
    for (;;) {
      if (o >= index.length || scale > 2 ** 28) return -1;
      const b = index[o++]!;
      v += (b & 0x7f) * scale;
      if (b < 0x80) break;
      scale *= 128;
    }
    offset += v;
    offsets[r] = offset;
  }
  return o;
}

/** The index of a row text read whole (trailer, then index frame); throws RowTextDamagedError. */
export async function decodeWholeRowTextIndex(whole: Buffer): Promise<RowTextIndex> {
  if (whole.length < ROW_TEXT_TRAILER_BYTES) throw new RowTextDamagedError(`${whole.length} bytes: no trailer`);
  const range = indexFrameRange(whole.subarray(whole.length - ROW_TEXT_TRAILER_BYTES), whole.length);
  return decodeRowTextIndex(whole.subarray(range.offset, range.offset + range.bytes), range.crc32, range.offset);
}

/** Why the index cannot be the row text of a file of `rows` rows in groups of `rowGroupSize`; null when it can. */
export function rowTextShapeFault(index: RowTextIndex, file: { readonly rows: number; readonly rowGroupSize: number }): string | null {
  const groups = Math.ceil(file.rows / file.rowGroupSize);
  const fits = index.groups.length === groups && index.groups.every((g, i) => g.rows === Math.min(file.rowGroupSize, file.rows - i * file.rowGroupSize));
  if (fits) return null;
  const rows = index.groups.reduce((a, g) => a + g.rows, 0);
  return `holds ${rows} rows in ${index.groups.length} groups, the catalog says ${file.rows} in groups of ${file.rowGroupSize}`;
}

/** Whether a group's stored frame as read has its length and CRC-32. */
export function frameIntact(group: RowTextGroup, frame: Buffer): boolean {
  return frame.length === group.frameBytes && crc32(frame) === group.frameCrc32;
}

/** A group's stored frame as read, checked by length and CRC-32; throws RowTextDamagedError. */
export function checkRowTextFrame(group: RowTextGroup, frame: Buffer): Buffer {
  if (!frameIntact(group, frame)) throw new RowTextDamagedError('row group frame fails its CRC-32');
  return frame;
}

/**
 * A group's rows from its stored frame, checked by the frame's CRC-32 and the text's length; throws
 * RowTextDamagedError. The rows keep their chunk (gzip answers splice it).
 */
export async function decodeRowTextGroup(group: RowTextGroup, frame: Buffer): Promise<SerializedRows> {
  checkRowTextFrame(group, frame);
  const bytes = await inflateChunk(frame, group.textBytes).catch((e: unknown) => {
    throw new RowTextDamagedError(`row group frame does not inflate: ${(e as Error).message}`);
  });
  // The frame's CRC-32 (checked above) covers what the disk can damage; the text's own CRC-32
  // is not computed again here: over the inflated text it was 9 % of an identity first touch's
  // main thread (profiled), and a gzip answer carries the stored one.
  if (bytes.length !== group.textBytes) {
    throw new RowTextDamagedError(`row group text is not the text the index describes (${bytes.length} bytes, index says ${group.textBytes})`);
  }
  // Not copied: a small row text is read whole, and its frames (nine tenths of it) are all kept.
  return { bytes, offsets: group.offsets, deflated: { chunk: frame, textCrc32: group.textCrc32 } };
}
