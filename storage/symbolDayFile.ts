/**
 * The lake's one writer of a symbol-day file: the seal, a restatement's new version, an import
 * (which seals) and the bench all write through it, so a file, its catalog facts (SHA-256,
 * minute index) and its boundary candidates are made one way wherever they come from.
 *
 * Order, for crash safety: the Parquet file durably under its name (writeDurably), and only
 * then does the caller list it (the returned entry) in the catalog. The caller fsyncs the
 * day's directories (once for many files) before listing. Row text is not made here: it
 * follows the listing, for the days of its window only (storage/rowText/rowTextKeeper.ts).
 */
import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeDurably } from '../shared/durableFile.js';
import { SCHEMAS } from '../shared/schema.js';
import { fileCandidates, type FileCandidates } from './boundary/candidates.js';
import type { NewCatalogFile } from './catalog.js';
import { versionedFileRelPath } from './layout.js';
import { buildMinuteIndex, encodeMinuteCounts, type MinuteIndex } from './minuteIndex.js';
import { encodeParquet, type EncodeOptions, type SymbolDayColumns } from './parquet/writer.js';

/** Encodes a symbol-day's columns as Parquet (encodeParquet; a test may hand in a failing one). */
export type Encoder = (cols: SymbolDayColumns, opts: EncodeOptions) => Promise<Uint8Array>;

/** The key-value metadata naming a restated file's version (version 1 files carry none). */
export const VERSION_KEY = 'tickvault.version';

export interface SymbolDayWriteEnv {
  readonly dataDir: string;
  /** Default encodeParquet. */
  readonly encode?: Encoder;
  /**
   * Runs each of the writer's disk writes with the path it writes: the seal names its stage
   * and the file in a disk fault through it (ingest/diskFault.ts atStage), restate maps its
   * faults once for the whole command.
   */
  readonly guard?: (path: string, write: () => Promise<void>) => Promise<void>;
}

/** A written file: what the catalog lists of it, and its day's boundary candidates (null: none). */
export interface WrittenSymbolDay {
  readonly file: NewCatalogFile & { readonly version: number };
  readonly candidates: FileCandidates | null;
}

const unguarded = (_path: string, write: () => Promise<void>): Promise<void> => write();

/**
 * Writes `cols` as the symbol-day's file in `version` (1: the sealed file's own name; N: a
 * restatement beside it, carrying VERSION_KEY).
 */
export async function writeSymbolDay(env: SymbolDayWriteEnv, cols: SymbolDayColumns, version = 1): Promise<WrittenSymbolDay> {
  const { dataset, tradedate, symbol } = cols;
  const { rowGroupSize } = SCHEMAS[dataset];
  const guard = env.guard ?? unguarded;
  const encode = env.encode ?? encodeParquet;
  const data = await encode(cols, { rowGroupSize, ...(version === 1 ? {} : { keyValues: [[VERSION_KEY, String(version)]] }) });
  const relPath = versionedFileRelPath(dataset, tradedate, symbol, version);
  const path = join(env.dataDir, relPath);
  await guard(path, async () => {
    await mkdir(dirname(path), { recursive: true });
    await writeDurably(path, data);
  });
  const sha256 = createHash('sha256').update(data).digest('hex');
  const idx = buildMinuteIndex(cols.timesMs);
  return {
    file: {
      symbol,
      relPath,
      version,
      rows: cols.rows,
      firstTimeMs: cols.timesMs[0]!,
      lastTimeMs: cols.timesMs[cols.rows - 1]!,
      bytes: data.length,
      sha256,
      minuteBase: idx.base,
      minuteCounts: encodeMinuteCounts(idx.counts),
    },
    candidates: fileCandidates(cols, idx),
  };
}

/**
 * The boundary candidates of a symbol-day already written (a part rebuilt over files a
 * restatement did not touch, or by repair): the same rule as a new file's.
 */
export function symbolDayCandidates(cols: SymbolDayColumns, idx: MinuteIndex = buildMinuteIndex(cols.timesMs)): FileCandidates | null {
  return fileCandidates(cols, idx);
}
