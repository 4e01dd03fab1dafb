/**
 * Boundary part files (`DATA_DIR/_boundary/<dataset>/date=YYYYMMDD/<hash>.tvb`): written at
 * seal beside the day's Parquet files, listed in the catalog (which keeps the symbols and the
 * block directory, so a server reads a block with one pread and no footer). The file repeats
 * both in its footer, so it describes itself:
 *   `TVB1`, zstd blocks, directory, footer JSON, u32 directory bytes, u32 JSON bytes, `TVB1`.
 * Named by its content's hash: two processes sealing different symbols of a day never collide,
 * and one written again after a crash is the same file.
 */
import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { LakeFiles } from '../lakeFiles.js';
import type { Dataset } from '../../shared/schema.js';
import { fsyncDir, writeDurably } from '../../shared/durableFile.js';
import { boundaryPartRelPath } from '../layout.js';
import { zstdCompress, zstdDecompress } from '../parquet/zstd.js';
import type { FileCandidates } from './candidates.js';
import { BoundaryBlock, encodeDirectory, partBlocks, type BlockEntry } from './partCodec.js';

const MAGIC = Buffer.from('TVB1', 'latin1');
const ZSTD_LEVEL = 3;
/** Blocks being compressed at once while a part is written. */
const COMPRESS_AHEAD = 4;

export interface NewBoundaryPart {
  readonly relPath: string;
  readonly symbols: readonly string[];
  readonly directory: Buffer;
  readonly bytes: number;
  readonly sha256: string;
}

/** Writes the part of `files` durably (file and directory fsynced); the caller lists it. */
export async function writeBoundaryPart(dataDir: string, dataset: Dataset, tradedate: string, files: readonly FileCandidates[]): Promise<NewBoundaryPart> {
  const { symbols, blocks } = partBlocks(files);
  const minutes: number[] = [];
  const compressing: Promise<Buffer>[] = [];
  // A few blocks compress at once (the thread pool stays busy) and each raw block is dropped
  // once compressed: a whole part's raw blocks at once were ~130 MB of a big seal's peak.
  for (const b of blocks) {
    minutes.push(b.minute);
    const c = zstdCompress(b.raw, ZSTD_LEVEL);
    c.catch(() => undefined); // awaited below; a failure surfaces there
    compressing.push(c);
    if (compressing.length > COMPRESS_AHEAD) await compressing[compressing.length - 1 - COMPRESS_AHEAD];
  }
  const compressed = await Promise.all(compressing);
  let offset = MAGIC.length;
  const entries = minutes.map((minute, i): BlockEntry => {
    const entry = { minute, offset, length: compressed[i].length };
    offset += compressed[i].length;
    return entry;
  });
  const directory = encodeDirectory(entries);
  const footer = Buffer.from(JSON.stringify({ format: 1, dataset, tradedate, symbols }), 'utf8');
  const lengths = Buffer.alloc(8);
  lengths.writeUInt32LE(directory.length, 0);
  lengths.writeUInt32LE(footer.length, 4);
  const data = Buffer.concat([MAGIC, ...compressed, directory, footer, lengths, MAGIC]);
  const sha256 = createHash('sha256').update(data).digest('hex');
  const relPath = boundaryPartRelPath(dataset, tradedate, sha256.slice(0, 16));
  const path = join(dataDir, relPath);
  await mkdir(dirname(path), { recursive: true });
  await writeDurably(path, data);
  await fsyncDir(dirname(path));
  return { relPath, symbols, directory, bytes: data.length, sha256 };
}

/** Reads and decodes one block of a part, from the data directory or the store (lakeFiles.ts). */
export async function readBoundaryBlock(lake: LakeFiles, relPath: string, entry: BlockEntry): Promise<BoundaryBlock> {
  return lake.with(relPath, async (f) => {
    const buf = Buffer.allocUnsafe(entry.length);
    const { bytesRead } = await f.read(buf, 0, entry.length, entry.offset);
    if (bytesRead !== entry.length) throw new Error(`${relPath}: block of minute ${entry.minute} is cut short (${bytesRead} of ${entry.length} bytes)`);
    return new BoundaryBlock(await zstdDecompress(buf));
  });
}
