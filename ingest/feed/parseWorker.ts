/**
 * A parse worker of a replay: turns chunks of feed lines into encoded record packs plus
 * quarantine entries (bad or late lines, with `file:line` and the reason). Parsing is most of
 * a replay's CPU; a pool of these uses every core while the main thread appends to staging.
 */
import { workerData } from 'node:worker_threads';
import { serveWorker } from '../../shared/workerPool.js';
import { CatalogReader, openCatalog } from '../../storage/catalog.js';
import { LateGuard } from '../seal/lateGuard.js';
import { RecordPacker, type RecordPack } from '../../storage/staging/recordCodec.js';
import { validateFeedLine } from '../staging/validate.js';
import type { QuarantineEntry } from '../staging/segments.js';
import { lateReason } from '../../storage/staging/lateReason.js';

export interface ParseWorkerInput {
  readonly catalogDb: string;
}

export interface ParseRequest {
  readonly source: string;
  readonly firstLineNo: number;
  readonly bytes: Uint8Array;
}

export interface ParsedChunk {
  readonly packs: RecordPack[];
  readonly rejects: QuarantineEntry[];
  readonly lines: number;
  readonly late: number;
  /** `dataset|tradedate` of late lines: a day whose files were all listed before a crash
   *  still needs marking sealed, though nothing of it is staged. */
  readonly lateDays: string[];
}

export function parseChunk(req: ParseRequest, late: LateGuard): ParsedChunk {
  const text = new TextDecoder('utf-8').decode(req.bytes);
  const packer = new RecordPacker();
  const rejects: QuarantineEntry[] = [];
  let lines = 0;
  let lateCount = 0;
  const lateDays = new Set<string>();
  let lineNo = req.firstLineNo;
  for (let start = 0; start < text.length; lineNo++) {
    let nl = text.indexOf('\n', start);
    if (nl === -1) nl = text.length;
    const line = text.charCodeAt(nl - 1) === 13 ? text.slice(start, nl - 1) : text.slice(start, nl);
    start = nl + 1;
    if (line.trim() === '') continue; // blank lines carry nothing; not worth a quarantine row
    lines++;
    const v = validateFeedLine(line);
    if (!v.ok) {
      rejects.push({ source: `${req.source}:${lineNo}`, reason: v.reason, raw: line });
    } else if (late.isLate(v.row.dataset, v.row.tradedate, v.row.symbol)) {
      rejects.push({ source: `${req.source}:${lineNo}`, reason: lateReason(v.row.dataset, v.row.tradedate, v.row.symbol), raw: line });
      lateCount++;
      lateDays.add(`${v.row.dataset}|${v.row.tradedate}`);
    } else {
      packer.add(v.row);
    }
  }
  return { packs: packer.take(), rejects, lines, late: lateCount, lateDays: [...lateDays] };
}

if (workerData) {
  const catalog = openCatalog((workerData as ParseWorkerInput).catalogDb, true);
  const late = new LateGuard(new CatalogReader(catalog));
  serveWorker<ParseRequest, ParsedChunk>(
    (req) => parseChunk(req, late),
    (out) => out.packs.map((p) => p.records.buffer as ArrayBuffer),
  );
}
