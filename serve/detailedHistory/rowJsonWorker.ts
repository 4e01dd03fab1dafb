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

export interface RowJsonWorkerInput {
  readonly dataDir: string;
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

/** Footers of files recently read (files are immutable); a few hundred bytes to a few KB each. */
const MAX_FOOTERS = 512;

if (workerData) {
  const { dataDir } = workerData as RowJsonWorkerInput;
  const footers = new Map<string, Promise<ParquetFooter>>();

  const footerOf = (file: FileFacts): Promise<ParquetFooter> => {
    let f = footers.get(file.path);
    if (!f) {
      f = withSyncFile(join(dataDir, file.path), (source, bytes) => readFooter(source, bytes)).then((footer) => {
        checkFooter(file, footer);
        return footer;
      });
      f.catch(() => footers.delete(file.path));
      footers.set(file.path, f);
      if (footers.size > MAX_FOOTERS) footers.delete(footers.keys().next().value!);
    }
    return f;
  };

  serveWorker<RowJsonRequest, RowJsonRows>(
    async ({ file, group, sizeHint }) => {
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
