import { checkDataDir, openDoctorIo, removeStaleTempFiles, summarizeKinds, type DoctorReport } from '../storage/doctorCheck.js';
import { knownRange, knownRangeWarning, type KnownRange } from '../calendar/tradingCalendar.js';
import { requireDataDir } from './dataDirCheck.js';
import { createProgress } from './progress.js';
import { UsageError, type Command, type CommandContext } from './command.js';

/**
 * `tickvault doctor`: checks the catalog against the files and prints a report on stdout.
 * Exit 0 when there is no problem (stale temp files are warnings), 1 when there is any.
 */
export const DOCTOR_EXIT_PROBLEMS = 1;

export const doctorCommand: Command = {
  name: 'doctor',
  summary: 'check catalog against files (missing, extra, size, sha256, footer, rows); non-zero exit on any problem',
  usage: 'tickvault doctor [--data-dir DIR] [--quick] [--deep] [--json] [--remove-temps]',
  options: {
    quick: { type: 'boolean' },
    deep: { type: 'boolean' },
    json: { type: 'boolean' },
    'remove-temps': { type: 'boolean' },
  },
  help: [
    { flag: 'quick', help: 'skip the SHA-256 check (sizes, footers, row counts still checked)' },
    { flag: 'deep', help: 'also decode every page of every file (slow)' },
    { flag: 'json', help: 'print the report as one JSON object' },
    { flag: 'remove-temps', help: 'delete leftover *.tmp-PID files whose process is gone' },
  ],
  positionals: 'none',
  async run(ctx) {
    const { dataDir } = ctx.config;
    requireDataDir(dataDir);
    const quick = ctx.flags.quick === true;
    const deep = ctx.flags.deep === true;
    if (quick && deep) throw new UsageError('--quick and --deep exclude each other');

    const io = openDoctorIo(dataDir);
    let report: DoctorReport;
    try {
      const total = [...io.catalogFiles()].reduce((a, e) => a + e.bytes, 0);
      const bar = createProgress(ctx.config.progress, 'doctor', total, 'bytes');
      let done = 0;
      report = await checkDataDir(io, { quick, deep, onFile: (b) => bar.update((done += b)) });
      bar.stop();
    } finally {
      io.close();
    }

    const removed = ctx.flags['remove-temps'] === true ? await removeStaleTempFiles(dataDir, report) : [];
    ctx.log.debug(
      { dataDir, files: report.catalogFiles, problems: report.problems.length, warnings: report.warnings.length, removed: removed.length },
      'doctor finished',
    );
    // The calendar's known range (shipped plus this directory's imports), with a warning near its end.
    const calendar = { ...knownRange(), warning: knownRangeWarning(ctx.config.clock.nowMs()) };
    if (ctx.flags.json === true) ctx.out(JSON.stringify({ dataDir, ...report, calendar, removedTemps: removed }));
    else printReport(ctx, dataDir, report, removed, calendar);
    return report.ok ? 0 : DOCTOR_EXIT_PROBLEMS;
  },
};

/**
 * The text report: a header, one line per finding (`PROBLEM kind path: detail`, then
 * `WARNING …`), a summary line starting `ok:` or `FAILED:`. Stable, so scripts may grep it.
 */
function printReport(ctx: CommandContext, dataDir: string, r: DoctorReport, removed: readonly string[], cal: KnownRange & { warning: string | null }): void {
  const mib = (r.catalogBytes / 1048576).toFixed(1);
  ctx.out(`data directory ${dataDir}`);
  ctx.out(`catalog: ${r.catalogFiles} files, ${mib} MiB; on disk: ${r.diskFiles} files; checked: ${r.checks.join(', ')}`);
  ctx.out(`calendar: known range ${cal.first}..${cal.last}`);
  if (cal.warning !== null) ctx.out(`WARNING ${'calendar'.padEnd(18)} ${cal.warning}`);
  for (const p of r.problems) ctx.out(`PROBLEM ${p.kind.padEnd(18)} ${p.path}: ${p.detail}`);
  for (const w of r.warnings) {
    const gone = removed.includes(w.path) ? ' (removed)' : '';
    ctx.out(`WARNING ${w.kind.padEnd(18)} ${w.path}: ${w.detail}${gone}`);
  }
  const warn = r.warnings.length > 0 ? `; ${r.warnings.length} warning(s): ${summarizeKinds(r.warnings)}` : '';
  if (r.ok) ctx.out(`ok: no problems in ${r.catalogFiles} files${warn}`);
  else ctx.out(`FAILED: ${r.problems.length} problem(s): ${summarizeKinds(r.problems)}${warn}`);
}
