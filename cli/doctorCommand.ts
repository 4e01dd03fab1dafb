import { markBarsDue } from '../storage/bars/barCatalog.js';
import { sealBars } from '../ingest/seal/bars.js';
import { openCatalog } from '../storage/catalog.js';
import { layoutFor } from '../storage/layout.js';
/**
 * `tickvault doctor`: checks the catalog against the files and prints a report on stdout.
 * Exit 0 when there is no problem (stale temp files are warnings), 1 when there is any.
 * With --digests the same check runs, but stdout carries the per-file digest list instead of
 * the report (so that two sites' outputs `diff` cleanly) and findings go to stderr.
 */
import { checkDataDir, openDoctorIo, removeStaleTempFiles, summarizeKinds, type DoctorReport } from '../storage/doctorCheck.js';
import { rebuildRowTexts, rowTextsToRebuild } from '../storage/rowText/rowTextRebuild.js';
import { removeRowTextOutside } from '../storage/rowText/rowTextKeeper.js';
import { rowTextWindow } from '../storage/rowText/rowTextWindow.js';
import { resolveOption, ROW_TEXT_DAYS_OPTION } from '../shared/config.js';
import { docOf } from './helpText.js';
import { digestList, digestListJson, type FileDigest } from '../storage/fileDigests.js';
import { knownRange, knownRangeWarning, type KnownRange } from '../calendar/tradingCalendar.js';
import { requireDataDir } from './dataDirCheck.js';
import { asOpenFault } from '../ingest/diskFault.js';
import { createProgress } from './progress.js';
import { UsageError, type Command, type CommandContext } from './command.js';

export const DOCTOR_EXIT_PROBLEMS = 1;

/** Why doctor cannot read a full or read-only data directory, and what helps. */
const DOCTOR_OPEN_ADVICE = 'SQLite writes an index beside each database even to read it; free some space (or make it writable) and run doctor again';

export const doctorCommand: Command = {
  name: 'doctor',
  summary: 'check catalog against files (missing, extra, size, sha256, footer, rows); non-zero exit on any problem',
  usage: 'tickvault doctor [--data-dir DIR] [--quick] [--deep] [--digests] [--json] [--remove-temps] [--rebuild] [--row-text-days 10]',
  options: {
    quick: { type: 'boolean' },
    deep: { type: 'boolean' },
    json: { type: 'boolean' },
    digests: { type: 'boolean' },
    'remove-temps': { type: 'boolean' },
    rebuild: { type: 'boolean' },
    [ROW_TEXT_DAYS_OPTION.flag]: { type: 'string' },
  },
  help: [
    { flag: 'quick', help: 'skip the SHA-256 check (sizes, footers, row counts still checked)' },
    { flag: 'deep', help: 'also decode every page of every file (slow)' },
    {
      flag: 'digests',
      help:
        'instead of the report, print "SHA256  ROWS  BYTES  PATH" per sealed file (hashed from disk, sorted by path) ' +
        'and a last line "# N files, sha256 of this list: HEX"; equal last lines on two sites mean identical files. ' +
        'All checks still run: problems go to stderr and exit 1. Not with --quick',
    },
    { flag: 'json', help: 'print the report (with --digests: {"files":[{path,sha256,rows,bytes}],"listDigest"}) as one JSON object' },
    { flag: 'remove-temps', help: 'delete leftover *.tmp-PID files whose process is gone' },
    {
      flag: 'rebuild',
      help:
        'write again the row text (derived, under _rowtext/) of the files of the row text window whose row text is missing, stale or damaged, ' +
        "from each file once its bytes match the catalog's SHA-256, and remove the row text of days outside the window",
    },
    docOf(ROW_TEXT_DAYS_OPTION, 'N'),
  ],
  positionals: 'none',
  async run(ctx) {
    const { dataDir } = ctx.config;
    requireDataDir(dataDir);
    const quick = ctx.flags.quick === true;
    const deep = ctx.flags.deep === true;
    if (quick && deep) throw new UsageError('--quick and --deep exclude each other');
    const digests = ctx.flags.digests === true;
    const rowTextDays = resolveOption(ROW_TEXT_DAYS_OPTION, ctx.flags, ctx.env);
    // Digests are the hashes --quick skips: a list without them would compare nothing.
    if (quick && digests) throw new UsageError('--quick and --digests exclude each other (--quick skips the SHA-256 of each file)');

    const io = (() => {
      try {
        return openDoctorIo(dataDir);
      } catch (e) {
        throw asOpenFault(dataDir, e, DOCTOR_OPEN_ADVICE);
      }
    })();
    let report: DoctorReport;
    const found: FileDigest[] = [];
    // The catalog's files, read once: for the progress bar and for --rebuild.
    const entries = [...io.catalogFiles()];
    const window = rowTextWindow(io.storedTradingDays(), rowTextDays);
    try {
      const total = entries.reduce((a, e) => a + e.bytes, 0);
      const bar = createProgress(ctx.config.progress, 'doctor', total, 'bytes');
      let done = 0;
      const onDigest = digests ? (d: FileDigest) => found.push(d) : undefined;
      report = await checkDataDir(io, { quick, deep, onFile: (b) => bar.update((done += b)), onDigest, rowTextDays: window });
      bar.stop();
    } finally {
      io.close();
    }

    const removed = ctx.flags['remove-temps'] === true ? await removeStaleTempFiles(dataDir, report) : [];
    const rebuild = ctx.flags.rebuild === true;
    const rebuilt = rebuild ? await rebuildRowTexts(dataDir, rowTextsToRebuild(report), entries) : [];
    if (rebuild) await removeRowTextOutside(dataDir, window);
    const barsMade = rebuild ? await makeMissingBars(dataDir, report, ctx.config.clock.nowMs) : [];
    const acted: Acted = { removed, rebuilt: [...rebuilt, ...barsMade] };
    ctx.log.debug(
      {
        dataDir,
        files: report.catalogFiles,
        problems: report.problems.length,
        warnings: report.warnings.length,
        removed: removed.length,
        rebuilt: rebuilt.length,
      },
      'doctor finished',
    );
    if (digests) {
      printDigests(ctx, found, report, acted);
      return report.ok ? 0 : DOCTOR_EXIT_PROBLEMS;
    }
    // The calendar's known range (shipped plus this directory's imports), with a warning near its end.
    const calendar = { ...knownRange(), warning: knownRangeWarning(ctx.config.clock.nowMs()) };
    if (ctx.flags.json === true) ctx.out(JSON.stringify({ dataDir, ...report, calendar, removedTemps: removed, rebuiltRowText: rebuilt }));
    else printReport(ctx, dataDir, report, acted, calendar);
    return report.ok ? 0 : DOCTOR_EXIT_PROBLEMS;
  },
};

/**
 * The text report: a header, one line per finding (`PROBLEM kind path: detail`, then
 * `WARNING …`), a summary line starting `ok:` or `FAILED:`. Stable, so scripts may grep it.
 */
function printReport(ctx: CommandContext, dataDir: string, r: DoctorReport, acted: Acted, cal: KnownRange & { warning: string | null }): void {
  const mib = (r.catalogBytes / 1048576).toFixed(1);
  ctx.out(`data directory ${dataDir}`);
  ctx.out(`catalog: ${r.catalogFiles} files, ${mib} MiB; on disk: ${r.diskFiles} files; checked: ${r.checks.join(', ')}`);
  ctx.out(`calendar: known range ${cal.first}..${cal.last}`);
  const off = r.offloaded;
  if (off !== undefined && off.days > 0)
    ctx.out(`store: ${off.days} day${off.days === 1 ? '' : 's'} offloaded to the store (${off.files} files, not checked here)`);
  if (cal.warning !== null) ctx.out(`WARNING ${'calendar'.padEnd(18)} ${cal.warning}`);
  for (const line of findingLines(r, acted)) ctx.out(line);
  const warn = r.warnings.length > 0 ? `; ${r.warnings.length} warning(s): ${summarizeKinds(r.warnings)}` : '';
  if (r.ok) ctx.out(`ok: no problems in ${r.catalogFiles} files${warn}`);
  else ctx.out(`FAILED: ${r.problems.length} problem(s): ${summarizeKinds(r.problems)}${warn}`);
}

/**
 * `--digests`: stdout is only the digest list (text or JSON), so that two sites' outputs
 * compare with `diff` or by their last line; the doctor's findings, which would break that,
 * go to stderr in the report's own line format. A missing or unreadable file has no line
 * (and so changes the list digest); its PROBLEM line on stderr names it.
 */
function printDigests(ctx: CommandContext, found: readonly FileDigest[], r: DoctorReport, acted: Acted): void {
  const list = digestList(found);
  if (ctx.flags.json === true) ctx.out(digestListJson(list));
  else {
    for (const line of list.lines) ctx.out(line);
    ctx.out(list.summary);
  }
  const lines = findingLines(r, acted);
  if (!r.ok) lines.push(`FAILED: ${r.problems.length} problem(s): ${summarizeKinds(r.problems)}`);
  for (const line of lines) process.stderr.write(`${line}\n`);
}

/** `PROBLEM kind path: detail` lines, then `WARNING …` lines: one format on stdout and stderr. */
/** What --remove-temps and --rebuild did, by path: marked on the findings' lines. */
interface Acted {
  readonly removed: readonly string[];
  readonly rebuilt: readonly string[];
}

function findingLines(r: DoctorReport, acted: Acted): string[] {
  return [
    ...r.problems.map((p) => `PROBLEM ${p.kind.padEnd(18)} ${p.path}: ${p.detail}`),
    ...r.warnings.map((w) => `WARNING ${w.kind.padEnd(18)} ${w.path}: ${w.detail}${done(w, acted)}`),
  ];
}

function done(w: { readonly kind: string; readonly path: string }, acted: Acted): string {
  if (w.kind === 'row-text' || w.kind === 'bars') return acted.rebuilt.includes(w.path) ? ' (rebuilt)' : '';
  return acted.removed.includes(w.path) ? ' (removed)' : '';
}

/**
 * `--rebuild` of the days doctor found without bars (sealed before bars existed): each is
 * marked due and made from its files, as a seal would. Returns the warnings' paths made.
 */
async function makeMissingBars(dataDir: string, report: DoctorReport, nowMs: () => number): Promise<string[]> {
  const missing = report.warnings.filter((w) => w.kind === 'bars');
  if (missing.length === 0) return [];
  const db = openCatalog(layoutFor(dataDir).catalogDb);
  try {
    const dayOf = (path: string) => /date=(\d{8})/.exec(path)![1];
    for (const w of missing) markBarsDue(db, dayOf(w.path));
    const kept = await sealBars(dataDir, db, nowMs);
    const failed = new Set(kept.failed.map((f) => f.tradedate));
    return missing.filter((w) => !failed.has(dayOf(w.path))).map((w) => w.path);
  } finally {
    db.close();
  }
}
