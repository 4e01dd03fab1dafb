/**
 * What `tickvault repair` does with a doctor report, decided without touching a disk: which
 * catalogued files to fetch from a peer (missing, or bytes that are not the catalog's), which
 * boundary parts to rebuild here (derived data is never fetched), which files only want their
 * row text written again, and which findings repair leaves alone (an extra file, a catalog
 * path off the layout: those are the catalog's or an operator's to settle, not a peer's).
 */
import type { DoctorCatalogEntry, DoctorPartEntry, DoctorReport, Problem, ProblemKind } from '../../storage/doctorCheck.js';
import { rowTextsToRebuild } from '../../storage/rowText/rowTextRebuild.js';

/** Problems that say a file's bytes are not the catalog's, or not there at all. */
const DAMAGE: ReadonlySet<ProblemKind> = new Set<ProblemKind>([
  'missing',
  'size-mismatch',
  'checksum-mismatch',
  'unreadable',
  'row-count-mismatch',
  'schema-mismatch',
]);

export interface FileToFetch {
  readonly entry: DoctorCatalogEntry;
  /** What doctor found, e.g. `checksum-mismatch`, `missing`. */
  readonly kinds: readonly ProblemKind[];
  /**
   * Doctor found its row text unusable too (missing, made from other bytes, damaged). Row text
   * is checked against the catalog's SHA-256, not the file, so a sound one serves the repaired
   * file as it is and is not written again.
   */
  readonly rowText: boolean;
}

export interface PartToRebuild {
  readonly part: DoctorPartEntry;
  readonly kinds: readonly ProblemKind[];
}

export interface RepairPlan {
  /** Catalogued Parquet files to fetch, in the report's (path) order. */
  readonly files: readonly FileToFetch[];
  readonly parts: readonly PartToRebuild[];
  /** Sound files (per the report) whose row text is missing, stale or damaged. */
  readonly rowTextOnly: readonly string[];
  /** Days whose bar files are damaged or missing: made again from the day's files (storage/bars/). */
  readonly barDays: readonly { readonly tradedate: string; readonly paths: readonly string[] }[];
  /** Problems repair does not act on: reported as not repaired. */
  readonly leftAlone: readonly Problem[];
}

export function planRepair(
  report: DoctorReport,
  entries: readonly DoctorCatalogEntry[],
  parts: readonly DoctorPartEntry[],
  bars: readonly DoctorPartEntry[] = [],
): RepairPlan {
  const byPath = new Map(entries.map((e) => [e.path, e]));
  const partByPath = new Map(parts.map((p) => [p.path, p]));
  const barPaths = new Set(bars.map((b) => b.path));
  const barDays = new Map<string, string[]>();
  const kindsOf = new Map<string, ProblemKind[]>();
  const leftAlone: Problem[] = [];
  // A catalog row whose path is not the layout's: fetching "its" file would trust the row
  // doctor distrusts, so every problem of that path is left to an operator.
  const offLayout = new Set(report.problems.filter((p) => p.kind === 'path-mismatch').map((p) => p.path));
  for (const p of report.problems) {
    if (DAMAGE.has(p.kind) && barPaths.has(p.path)) {
      const day = /date=(\d{8})\//.exec(p.path)![1];
      barDays.set(day, [...(barDays.get(day) ?? []), p.path]);
      continue;
    }
    const known = byPath.has(p.path) || partByPath.has(p.path);
    if (!DAMAGE.has(p.kind) || !known || offLayout.has(p.path)) {
      leftAlone.push(p);
      continue;
    }
    const kinds = kindsOf.get(p.path) ?? [];
    kinds.push(p.kind);
    kindsOf.set(p.path, kinds);
  }
  const files: FileToFetch[] = [];
  const toRebuild: PartToRebuild[] = [];
  const rowTextWarned = new Set(report.warnings.filter((w) => w.kind === 'row-text').map((w) => w.path));
  for (const [path, kinds] of kindsOf) {
    const entry = byPath.get(path);
    if (entry !== undefined) files.push({ entry, kinds, rowText: rowTextWarned.has(path) });
    else toRebuild.push({ part: partByPath.get(path)!, kinds });
  }
  return {
    files,
    parts: toRebuild,
    rowTextOnly: [...rowTextsToRebuild(report)],
    barDays: [...barDays].sort().map(([tradedate, paths]) => ({ tradedate, paths })),
    leftAlone,
  };
}

/** Nothing to do: no damaged file or part, no row text to write, nothing left alone. */
export function isEmptyPlan(plan: RepairPlan): boolean {
  return plan.files.length === 0 && plan.parts.length === 0 && plan.rowTextOnly.length === 0 && plan.barDays.length === 0 && plan.leftAlone.length === 0;
}
