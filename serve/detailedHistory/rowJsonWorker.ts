/**
 * A row-JSON worker (rowJsonPool.ts): reads, decodes and serialises one row group of a sealed
 * file with every field — the first touch of a detailed-history page, most of its time — off
 * the main thread, so a page's row groups are made on every core at once and the main thread
 * keeps answering. The bytes are transferred back, not copied.
 */
import { join } from 'node:path';
import { workerData } from 'node:worker_threads';
import { serveWorker } from '../../shared/workerPool.js';
import { readFooter, type ParquetFooter } from '../../storage/parquet/metadata.js';
import { readRowGroups } from '../../storage/parquet/reader.js';
import { withSyncFile } from '../../storage/parquet/byteSource.js';
import { checkFooter, type FileFacts } from '../reading/fileColumns.js';
import { ALL_FIELDS, serializeRows } from '../../storage/rowText/rowJson.js';
import { groupRowCount } from '../reading/rowSearch.js';
import { ByteLru } from '../reading/byteLru.js';
import { footerHeapBytes } from '../reading/memoryBudget.js';
import { SCHEMAS } from '../../shared/schema.js';
import { warmUpRowGroups } from '../../storage/parquet/warmUp.js';

/**
 * Row groups of a made-up day this worker decodes and serialises when it starts, before its
 * first answer (storage/parquet/warmUp.ts): a new worker's first pages otherwise cost 2-5× a
 * warm one's, so the first request waits for the warm-up instead of the next dozen paying it.
 */
const WARM_UP_ROUNDS = 12;
/**
 * The longest a request waits for the warm-up: it takes 270-280 ms of CPU (this 2-core machine
 * at load 6; encoding the made-up day and the first rounds run before anything is optimised).
 */
const WARM_UP_WAIT_MS = 1000;

export interface RowJsonWorkerInput {
  readonly dataDir: string;
  /** This worker's bound on its footers' heap (its share of --cache-mb: memoryBudget.ts). */
  readonly footerBytes: number;
}

export interface RowJsonRequest {
  readonly file: FileFacts;
  readonly group: number;
  /** Expected JSON bytes (a buffer size hint). */
  readonly sizeHint: number;
}

/**
 * The row group's rows (rows.ts SerializedRows, its Buffer arriving as a Uint8Array). A file
 * outside the dedicated reader's subset fails with UnsupportedParquetError, which reaches the
 * pool as itself: the caller then decodes the file with the general reader.
 */
export interface RowJsonRows {
  readonly bytes: Uint8Array;
  readonly offsets: Uint32Array;
}

if (workerData) {
  const { dataDir, footerBytes } = workerData as RowJsonWorkerInput;
  // Footers of files recently read (files are immutable), in bytes of this worker's own heap.
  const footers = new ByteLru(footerBytes);

  const footerOf = (file: FileFacts): Promise<ParquetFooter> =>
    footers.get<ParquetFooter>(file.path) ??
    footers.set(
      file.path,
      footerHeapBytes(SCHEMAS[file.dataset].fields.length, Math.ceil(file.rows / file.rowGroupSize)),
      withSyncFile(join(dataDir, file.path), (source, bytes) => readFooter(source, bytes)).then((footer) => {
        checkFooter(file, footer);
        return footer;
      }),
    );

  let warm = false;
  const warmed = warmUp(WARM_UP_ROUNDS).finally(() => (warm = true));
  serveWorker<RowJsonRequest, RowJsonRows>(
    async ({ file, group, sizeHint }) => {
      // Bounded: a warm-up that never ended would otherwise hold every answer of this worker.
      if (!warm) await Promise.race([warmed, new Promise((resolve) => setTimeout(resolve, WARM_UP_WAIT_MS))]);
      const all = ALL_FIELDS[file.dataset];
      const footer = await footerOf(file);
      const [m] = await withSyncFile(join(dataDir, file.path), (source) => readRowGroups(source, footer, [group], all, file.path));
      const s = serializeRows(
        all.map((c) => m.get(c)!),
        0,
        groupRowCount(file, group),
        sizeHint,
      );
      return { bytes: s.bytes, offsets: s.offsets };
    },
    // serializeRows copies its output into a buffer of its own: safe to transfer.
    (r) => [r.bytes.buffer as ArrayBuffer, r.offsets.buffer as ArrayBuffer],
  );
}

/** Decodes and serialises `rounds` made-up row groups; never fails (a failure only leaves the JIT cold). */
async function warmUp(rounds: number): Promise<void> {
  try {
    const all = ALL_FIELDS.level2;
    let round = 0;
    for await (const g of warmUpRowGroups(rounds)) {
      // Every other round from a small buffer, so growing it is compiled too: a real group
      // longer than its estimate sent the serialiser back to the interpreter mid-page.
      serializeRows(
        all.map((c) => g.columns.get(c)!),
        0,
        g.rows,
        round++ % 2 === 0 ? g.rows * 340 : 1024,
      );
    }
  } catch {
    // Only ever a slower first page: the requests themselves decode as they always do.
  }
}
