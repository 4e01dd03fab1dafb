import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { UnsupportedParquetError } from '../../storage/parquet/format.js';
import { readFooter, type ParquetFooter } from '../../storage/parquet/metadata.js';
import { readRowGroups } from '../../storage/parquet/reader.js';
import { withSyncFile } from '../../storage/parquet/byteSource.js';
import { checkFooter, type FileFacts } from '../reading/fileColumns.js';
import { ALL_FIELDS, serializeRows } from './rows.js';
import { groupRowCount } from '../reading/rowSearch.js';

/**
 * A row-JSON worker (rowJsonPool.ts): reads, decodes and serialises one row group of a sealed
 * file with every field — the first touch of a detailed-history page, most of its time — off
 * the main thread, so a page's row groups are made on every core at once and the main thread
 * keeps answering. The bytes are transferred back, not copied.
 */
export interface RowJsonWorkerInput {
  readonly dataDir: string;
}

export interface RowJsonRequest {
  readonly id: number;
  readonly file: FileFacts;
  readonly group: number;
  /** Expected JSON bytes (a buffer size hint). */
  readonly sizeHint: number;
}

export type RowJsonReply =
  | { readonly type: 'done'; readonly id: number; readonly bytes: Uint8Array; readonly offsets: Uint32Array }
  /** The file is outside the dedicated reader's subset: the caller decodes it itself. */
  | { readonly type: 'unsupported'; readonly id: number }
  | { readonly type: 'error'; readonly id: number; readonly message: string };

/** Footers of files recently read (files are immutable); a few hundred bytes to a few KB each. */
const MAX_FOOTERS = 512;

if (parentPort && workerData) {
  const port = parentPort;
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

  const serve = async (req: RowJsonRequest): Promise<RowJsonReply> => {
    const { file, group } = req;
    const all = ALL_FIELDS[file.dataset];
    try {
      const footer = await footerOf(file);
      const [m] = await withSyncFile(join(dataDir, file.path), (source) => readRowGroups(source, footer, [group], all));
      const s = serializeRows(all.map((c) => m.get(c)!), 0, groupRowCount(file, group), req.sizeHint);
      return { type: 'done', id: req.id, bytes: s.bytes, offsets: s.offsets };
    } catch (e) {
      if (e instanceof UnsupportedParquetError) return { type: 'unsupported', id: req.id };
      return { type: 'error', id: req.id, message: (e as Error).message };
    }
  };

  port.on('message', (req: RowJsonRequest) => {
    void serve(req).then((reply) => {
      // serializeRows copies its output into a buffer of its own: safe to transfer.
      const transfer = reply.type === 'done' ? [reply.bytes.buffer as ArrayBuffer, reply.offsets.buffer as ArrayBuffer] : [];
      try {
        port.postMessage(reply, transfer);
      } catch (e) {
        // Every request gets an answer, or its page would wait forever.
        port.postMessage({ type: 'error', id: req.id, message: `row JSON worker: ${(e as Error).message}` } satisfies RowJsonReply);
      }
    });
  });
}
