/**
 * `doctor --rebuild`: writes again the row text of the files a doctor report warned about
 * (missing, stale or damaged row text), each from its Parquet file, and only from bytes whose
 * SHA-256 is the catalog's: row text is never made from a damaged file. Safe beside a running
 * server: the new row text replaces the old by rename, and a server that had found the old one
 * unusable keeps making that file's pages from the Parquet file until its cache lets go.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DoctorCatalogEntry, DoctorReport } from '../doctorCheck.js';
import { rowTextOf, writeRowText } from './rowTextBuild.js';

/** The paths (the files', as in the report) whose row text was written again, of the catalog's `entries`. */
export async function rebuildRowTexts(dataDir: string, report: DoctorReport, entries: readonly DoctorCatalogEntry[]): Promise<string[]> {
  const wanted = new Set(report.warnings.filter((w) => w.kind === 'row-text').map((w) => w.path));
  const damaged = new Set(report.problems.map((p) => p.path));
  const rebuilt: string[] = [];
  for (const f of entries) {
    if (!wanted.has(f.path) || damaged.has(f.path)) continue;
    const bytes = await readFile(join(dataDir, f.path));
    if (createHash('sha256').update(bytes).digest('hex') !== f.sha256) continue;
    await writeRowText(dataDir, f.path, await rowTextOf(bytes, f.dataset, f.sha256, f.path));
    rebuilt.push(f.path);
  }
  return rebuilt;
}
