/**
 * A damaged or missing boundary part, written again here from its symbols' files by the
 * seal's own part writer (derived data is never fetched). A part is named by its content's
 * hash, so the rebuilt part lands on the catalog's path only when it is byte for byte the
 * catalog's; anything else is removed again and reported. Its files must be sound first: a
 * part is never made from bytes that are not the catalog's.
 */
import { createHash } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { currentColumns } from '../restate/restateDay.js';
import { DATASETS, type Dataset } from '../../shared/schema.js';
import type { FileCandidates } from '../../storage/boundary/candidates.js';
import { writeBoundaryPart } from '../../storage/boundary/partFile.js';
import type { CatalogReader } from '../../storage/catalog.js';
import type { DoctorPartEntry } from '../../storage/doctorCheck.js';
import { symbolDayCandidates } from '../../storage/symbolDayFile.js';

export type PartOutcome = { readonly kind: 'rebuilt' } | { readonly kind: 'not-rebuilt'; readonly reason: string };

const PART_PATH = /^_boundary\/([^/]+)\/date=(\d{8})\/[^/]+\.tvb$/;

/** Rebuilds one part; `damaged` are the file paths still not the catalog's after the fetches. */
export async function rebuildPart(dataDir: string, reader: CatalogReader, part: DoctorPartEntry, damaged: ReadonlySet<string>): Promise<PartOutcome> {
  const m = PART_PATH.exec(part.path);
  const dataset = m?.[1] as Dataset | undefined;
  if (m === null || dataset === undefined || !DATASETS.includes(dataset))
    return { kind: 'not-rebuilt', reason: "its path is not a boundary part's (_boundary/DATASET/date=YYYYMMDD/NAME.tvb)" };
  const tradedate = m[2]!;
  const listed = reader.boundaryParts(dataset, tradedate).find((p) => p.path === part.path);
  if (listed === undefined) return { kind: 'not-rebuilt', reason: 'the catalog lists no symbols for it' };
  const candidates: FileCandidates[] = [];
  for (const symbol of listed.symbols) {
    const file = reader.file(dataset, tradedate, symbol);
    if (file === null) return { kind: 'not-rebuilt', reason: `the catalog lists no file of ${symbol}, one of its symbols` };
    if (damaged.has(file.path) || !(await isCatalogs(dataDir, file.path, file.sha256))) {
      return { kind: 'not-rebuilt', reason: `its file ${file.path} is not the catalog's; repair that first, then run repair again` };
    }
    const cols = await currentColumns(dataDir, reader, dataset, tradedate, symbol);
    const c = cols === null ? null : symbolDayCandidates(cols);
    if (c !== null) candidates.push(c);
  }
  const written = await writeBoundaryPart(dataDir, dataset, tradedate, candidates);
  if (written.relPath === part.path && written.sha256 === part.sha256) return { kind: 'rebuilt' };
  if (written.relPath !== part.path) await rm(join(dataDir, written.relPath), { force: true });
  return {
    kind: 'not-rebuilt',
    reason: `the part rebuilt from its files has SHA-256 ${written.sha256}, not the catalog's ${part.sha256} (left as it was; the server answers that day's boundaries from the files meanwhile)`,
  };
}

async function isCatalogs(dataDir: string, relPath: string, sha256: string): Promise<boolean> {
  try {
    return (
      createHash('sha256')
        .update(await readFile(join(dataDir, relPath)))
        .digest('hex') === sha256
    );
  } catch {
    return false;
  }
}
