/**
 * `tickvault repair`, start to end: doctor's own check finds what is damaged or missing, the
 * plan says what to do with each finding, the peer source installs the catalogued files whose
 * bytes match, and what is derived — row text, boundary parts, bars — is written again here from
 * sound files. One line per file for the caller to print, in path order within each step.
 */
import { CatalogReader, openCatalog } from '../../storage/catalog.js';
import { checkDataDir, openDoctorIo, type DoctorCatalogEntry, type DoctorPartEntry, type DoctorReport } from '../../storage/doctorCheck.js';
import { layoutFor } from '../../storage/layout.js';
import { rebuildRowTexts } from '../../storage/rowText/rowTextRebuild.js';
import { rowTextWindow } from '../../storage/rowText/rowTextWindow.js';
import { rebuildPart } from './boundaryRebuild.js';
import { markBarsDue } from '../../storage/bars/barCatalog.js';
import { sealBars } from '../seal/bars.js';
import type { FetchOutcome, PeerSource } from './peerSource.js';
import { isEmptyPlan, planRepair } from './repairPlan.js';

export interface RepairLine {
  readonly path: string;
  /** True when the path is sound now (repaired or rebuilt). */
  readonly ok: boolean;
  readonly text: string;
}

export interface RepairOutcome {
  /** Catalogued files doctor found. */
  readonly catalogFiles: number;
  readonly lines: readonly RepairLine[];
  /** Damaged or missing files, then parts, then row-text-only files, then findings left alone. */
  readonly counts: {
    files: number;
    repaired: number;
    refused: number;
    notFound: number;
    notRepaired: number;
    parts: number;
    partsRebuilt: number;
    rowTexts: number;
    /** Days whose bar files were damaged or missing, and those made again. */
    barDays: number;
    barDaysRebuilt: number;
  };
  readonly nothingToDo: boolean;
}

/** `rowTextDays`: the row text window (--row-text-days); only its days' files get row text. */
export async function runRepair(dataDir: string, source: PeerSource, rowTextDays: number): Promise<RepairOutcome> {
  const io = openDoctorIo(dataDir);
  let report: DoctorReport;
  let entries: DoctorCatalogEntry[];
  let parts: DoctorPartEntry[];
  let bars: DoctorPartEntry[];
  try {
    entries = [...io.catalogFiles()];
    parts = [...io.boundaryParts()];
    bars = [...(io.barFiles?.() ?? [])];
    report = await checkDataDir(io, { rowTextDays: rowTextWindow(io.storedTradingDays(), rowTextDays) });
  } finally {
    io.close();
  }
  const plan = planRepair(report, entries, parts, bars);
  const counts = {
    files: plan.files.length,
    repaired: 0,
    refused: 0,
    notFound: 0,
    notRepaired: 0,
    parts: plan.parts.length,
    partsRebuilt: 0,
    rowTexts: 0,
    barDays: plan.barDays.length,
    barDaysRebuilt: 0,
  };
  if (isEmptyPlan(plan)) return { catalogFiles: entries.length, lines: [], counts, nothingToDo: true };

  const fileLines = new Map<string, RepairLine>();
  await source.installAll(
    plan.files.map((f) => f.entry),
    (e, outcome) => {
      fileLines.set(e.path, lineOf(e, outcome, source.label));
      if (outcome.kind === 'repaired') counts.repaired++;
      else if (outcome.kind === 'refused') counts.refused++;
      else if (outcome.kind === 'not-found') counts.notFound++;
      else counts.notRepaired++;
    },
  );
  const stillDamaged = new Set(plan.files.filter((f) => fileLines.get(f.entry.path)?.ok !== true).map((f) => f.entry.path));

  // Row text doctor found unusable, of the repaired files and of sound ones, by doctor
  // --rebuild's own step, which writes only from bytes that hash to the catalog's SHA-256.
  const repaired = plan.files.filter((f) => f.rowText && !stillDamaged.has(f.entry.path)).map((f) => f.entry.path);
  const rebuiltText = new Set(await rebuildRowTexts(dataDir, new Set([...repaired, ...plan.rowTextOnly]), entries));
  counts.rowTexts = rebuiltText.size;

  const lines: RepairLine[] = [];
  for (const f of plan.files) {
    const line = fileLines.get(f.entry.path) ?? { path: f.entry.path, ok: false, text: `not repaired ${f.entry.path}: the source gave no answer for it` };
    lines.push(line.ok && rebuiltText.has(line.path) ? { ...line, text: `${line.text}; row text rebuilt` } : line);
  }

  if (plan.parts.length > 0) {
    const db = openCatalog(layoutFor(dataDir).catalogDb, true);
    try {
      const reader = new CatalogReader(db);
      for (const p of plan.parts) {
        const r = await rebuildPart(dataDir, reader, p.part, stillDamaged);
        if (r.kind === 'rebuilt') counts.partsRebuilt++;
        lines.push(
          r.kind === 'rebuilt'
            ? { path: p.part.path, ok: true, text: `rebuilt ${p.part.path} (boundary part, from its files here)` }
            : { path: p.part.path, ok: false, text: `not repaired ${p.part.path}: ${r.reason}` },
        );
      }
    } finally {
      db.close();
    }
  }
  if (plan.barDays.length > 0) {
    // Derived like the parts: made again from the day's files (repaired above when they needed it).
    const db = openCatalog(layoutFor(dataDir).catalogDb);
    try {
      for (const d of plan.barDays) markBarsDue(db, d.tradedate);
      const kept = await sealBars(dataDir, db, () => Date.now());
      const failed = new Map(kept.failed.map((f) => [f.tradedate, f.reason]));
      for (const d of plan.barDays) {
        const why = failed.get(d.tradedate);
        if (why === undefined) counts.barDaysRebuilt++;
        for (const path of d.paths) {
          lines.push(
            why === undefined
              ? { path, ok: true, text: `rebuilt ${path} (bars of ${d.tradedate}, from its files here)` }
              : { path, ok: false, text: `not repaired ${path}: the bars of ${d.tradedate} could not be made: ${why}` },
          );
        }
      }
    } finally {
      db.close();
    }
  }
  for (const path of plan.rowTextOnly) {
    lines.push(
      rebuiltText.has(path)
        ? { path, ok: true, text: `row text rebuilt ${path}` }
        : { path, ok: false, text: `not repaired ${path}: its row text could not be rebuilt (its bytes are not the catalog's)` },
    );
  }
  for (const p of plan.leftAlone) {
    lines.push({
      path: p.path,
      ok: false,
      text: `not repaired ${p.path}: ${p.kind}, ${p.detail} (repair fetches only catalogued files; settle this one by hand)`,
    });
  }
  return { catalogFiles: entries.length, lines, counts, nothingToDo: false };
}

function lineOf(e: DoctorCatalogEntry, o: FetchOutcome, source: string): RepairLine {
  const path = e.path;
  switch (o.kind) {
    case 'repaired':
      return { path, ok: true, text: `repaired ${path} (from ${source})` };
    case 'refused':
      return {
        path,
        ok: false,
        text: `refused ${path}: peer's SHA-256 ${o.peerSha256} differs from the catalog's ${e.sha256} (${o.peerBytes} bytes, catalog ${e.bytes}; the local file is left as it was)`,
      };
    case 'not-found':
      return { path, ok: false, text: `not found ${path} at ${source}` };
    case 'not-repaired':
      return { path, ok: false, text: `not repaired ${path}: ${o.reason}` };
  }
}
