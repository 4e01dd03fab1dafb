import { statSync } from 'node:fs';
import { checkDataDir, openDoctorIo, removeStaleTempFiles, summarizeKinds, type DoctorReport } from '../ingest/doctorCheck.js';
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
  positionals: 'none',
  async run(ctx) {
    const { dataDir } = ctx.config;
    let isDir = false;
    try {
      isDir = statSync(dataDir).isDirectory();
    } catch {
      isDir = false;
    }
    if (!isDir) throw new UsageError(`data directory not found: ${dataDir}`);
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
    ctx.log.info(
      { dataDir, files: report.catalogFiles, problems: report.problems.length, warnings: report.warnings.length, removed: removed.length },
      'doctor finished',
    );
    if (ctx.flags.json === true) ctx.out(JSON.stringify({ dataDir, ...report, removedTemps: removed }));
    else printReport(ctx, dataDir, report, removed);
    return report.ok ? 0 : DOCTOR_EXIT_PROBLEMS;
  },
};

/**
 * The text report: a header, one line per finding (`PROBLEM kind path: detail`, then
 * `WARNING …`), a summary line starting `ok:` or `FAILED:`. Stable, so scripts may grep it.
 */
function printReport(ctx: CommandContext, dataDir: string, r: DoctorReport, removed: readonly string[]): void {
  const mib = (r.catalogBytes / 1048576).toFixed(1);
  ctx.out(`data directory ${dataDir}`);
  ctx.out(`catalog: ${r.catalogFiles} files, ${mib} MiB; on disk: ${r.diskFiles} files; checked: ${r.checks.join(', ')}`);
  for (const p of r.problems) ctx.out(`PROBLEM ${p.kind.padEnd(18)} ${p.path}: ${p.detail}`);
  for (const w of r.warnings) {
    const gone = removed.includes(w.path) ? ' (removed)' : '';
    ctx.out(`WARNING ${w.kind.padEnd(18)} ${w.path}: ${w.detail}${gone}`);
  }
  const warn = r.warnings.length > 0 ? `; ${r.warnings.length} warning(s): ${summarizeKinds(r.warnings)}` : '';
  if (r.ok) ctx.out(`ok: no problems in ${r.catalogFiles} files${warn}`);
  else ctx.out(`FAILED: ${r.problems.length} problem(s): ${summarizeKinds(r.problems)}${warn}`);
}
