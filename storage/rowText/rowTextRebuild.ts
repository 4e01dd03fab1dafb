/**
 * `doctor --rebuild` and `repair`: write again the row text of the files a doctor report warned
 * about (missing, stale or damaged row text), each from its Parquet file, and only from bytes whose
 * SHA-256 is the catalog's: row text is never made from a damaged file. Safe beside a running
 * server: the new row text replaces the old by rename, and a server that had found the old one
 * unusable keeps making that file's pages from the Parquet file until its cache lets go.
 */
import type { DoctorCatalogEntry, DoctorReport } from '../doctorCheck.js';
import { makeRowText } from './rowTextKeeper.js';

/** The files whose row text doctor warned about and whose own bytes it found no problem with. */
export function rowTextsToRebuild(report: DoctorReport): Set<string> {
  const damaged = new Set(report.problems.map((p) => p.path));
  return new Set(report.warnings.filter((w) => w.kind === 'row-text' && !damaged.has(w.path)).map((w) => w.path));
}

/** Of the catalog's `entries` named in `paths`, the paths whose row text was written again (rowTextKeeper.ts makeRowText: only from the catalog's bytes). */
export async function rebuildRowTexts(dataDir: string, paths: ReadonlySet<string>, entries: readonly DoctorCatalogEntry[]): Promise<string[]> {
  const rebuilt: string[] = [];
  for (const f of entries) {
    if (!paths.has(f.path)) continue;
    const outcome = await makeRowText({ dataDir, path: f.path, dataset: f.dataset, sha256: f.sha256 });
    if (outcome.kind === 'made') rebuilt.push(f.path);
  }
  return rebuilt;
}
