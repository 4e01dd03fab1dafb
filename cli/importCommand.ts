import { barsLogger } from './barsLog.js';
import { ROW_TEXT_HELP, ROW_TEXT_OPTIONS, rowTextDaysOf, rowTextStep } from './rowTextStep.js';
import { resolve } from 'node:path';
import { peakRssBytes } from '../shared/peakRss.js';
import { DATASETS, type Dataset } from '../shared/schema.js';
import { oneOf } from '../shared/config.js';
import { openIngestStores } from '../ingest/staging/stores.js';
import type { ImportStats } from '../ingest/import/importFiles.js';
import { importAndSeal } from '../ingest/import/importAndSeal.js';
import { planImport } from '../ingest/import/importPlan.js';
import { createProgress, type Progress } from './progress.js';
import type { Command } from './command.js';

const datasetFlag = oneOf(DATASETS);

export const importCommand: Command = {
  name: 'import',
  summary: 'bring history in: seal past days from Parquet (lake columns, or any layout through a mapping) and CSV archives',
  usage: 'tickvault import FILE|FOLDER… [--mapping MAP] [--dataset level2|index|trade|order] [--row-text-days 10] [--data-dir DIR]',
  options: { mapping: { type: 'string' }, dataset: { type: 'string' }, ...ROW_TEXT_OPTIONS },
  help: [
    {
      flag: 'mapping',
      value: 'MAP',
      help: 'mapping file: which column is which field, time form, price scale, volume unit, symbol form, date source (needed for CSV and for Parquet in other layouts; see mappings/ and docs/import-mappings.md)',
    },
    { flag: 'dataset', value: 'D', help: "the files' dataset when neither their columns nor the mapping say: level2, index, trade or order" },
    ROW_TEXT_HELP,
  ],
  positionals: 'some',
  async run(ctx) {
    const dataset = typeof ctx.flags.dataset === 'string' ? (datasetFlag(ctx.flags.dataset, '--dataset') as Dataset) : null;
    const mapping = typeof ctx.flags.mapping === 'string' ? ctx.flags.mapping : null;
    const rowTextDays = rowTextDaysOf(ctx);
    const clock = ctx.config.clock;
    const started = Date.now();
    // Every file is read far enough to check its columns before anything is staged.
    const files = await planImport(ctx.positionals, { mapping, dataset });
    const stores = openIngestStores(ctx.config.dataDir, () => clock.nowMs());
    try {
      const totalBytes = files.reduce((a, f) => a + f.bytes, 0);
      const bar = createProgress(ctx.config.progress, 'import', totalBytes, 'bytes', { rows: true });
      const sealBars: Progress[] = [];
      const {
        stats,
        sealed: results,
        sealingMs,
      } = await importAndSeal(
        {
          stores,
          nowMs: () => clock.nowMs(),
          onProgress: (bytes, rows) => bar.update(bytes, undefined, rows),
          onFile: (file, staged, refusal) => ctx.log.debug({ file, staged, ...(refusal === null ? {} : { refusal }) }, 'file imported'),
          onDaySealed: (r) => ctx.log.info(r, 'day sealed'),
          onBars: barsLogger(ctx),
          onSealing: (rowsToSeal) => {
            bar.stop();
            const b = createProgress(ctx.config.progress, 'seal', rowsToSeal, 'rows');
            sealBars.push(b);
            return (n) => b.update(n);
          },
        },
        files,
      );
      bar.stop();
      for (const b of sealBars) b.stop();
      // The days are listed (and served); their row text follows, before the summary.
      const textStarted = Date.now();
      await rowTextStep(ctx, stores.catalog, rowTextDays);
      const rowTextMs = Date.now() - textStarted;
      const secs = (Date.now() - started) / 1000;
      const filesOut = results.reduce((a, r) => a + r.files, 0);
      const rowsOut = results.reduce((a, r) => a + r.rows, 0);
      ctx.log.debug(
        {
          files: files.length,
          rows: stats.rows,
          staged: stats.staged,
          alreadyThere: stats.alreadyThere,
          quarantined: stats.quarantined,
          refused: stats.refused.length,
          daysSealed: results.length,
          filesWritten: filesOut,
          rowsSealed: rowsOut,
          stagingMs: Date.now() - started - sealingMs - rowTextMs,
          sealingMs,
          rowTextMs,
          peakRssBytes: peakRssBytes(),
        },
        'import finished',
      );
      ctx.out(summaryLine(files.length, stats, results.length, filesOut, rowsOut, secs));
      for (const r of stats.refused) {
        const why = r.sealedDay ? `${r.reason}; a sealed day changes only through \`tickvault restate\`` : r.reason;
        process.stderr.write(`tickvault import: ${r.file} refused, nothing of it staged: ${why}\n`);
      }
      if (stats.quarantined > 0) process.stderr.write(`tickvault import: ${quarantineNote(stats, ctx.config.dataDir)}\n`);
      if (stats.refused.length > 0) return 2;
      // A bulk load of years of archives must notice a quarantined row: it is not in the lake.
      return stats.quarantined > 0 ? 1 : 0;
    } finally {
      stores.close();
    }
  },
};

const fmt = (n: number) => n.toLocaleString('en-US');

/**
 * How many rows were quarantined and the command that lists them: of one file, its rows;
 * of several, those under their common folder.
 */
export function quarantineNote(s: ImportStats, dataDir: string): string {
  const files = [...s.quarantinedFiles.keys()];
  const n = s.quarantined;
  const what = `${fmt(n)} row${n === 1 ? '' : 's'} quarantined${files.length > 1 ? ` in ${files.length} files` : ''}`;
  const folder = files.length === 1 ? files[0] : commonFolder(files);
  const source = folder === null ? '' : ` --source ${shellWord(files.length === 1 ? folder : `${folder}/*`)}`;
  const dir = dataDir === resolve('data') ? '' : ` --data-dir ${shellWord(dataDir)}`;
  return `${what}, not imported; list them with: tickvault quarantine${source}${dir} (counts by reason: --count)`;
}

function commonFolder(files: readonly string[]): string | null {
  const parts = files.map((f) => f.split('/').slice(0, -1));
  const common: string[] = [];
  for (let i = 0; parts.every((p) => i < p.length && p[i] === parts[0][i]); i++) common.push(parts[0][i]);
  const folder = common.join('/');
  return folder === '' ? null : folder;
}

/** A word as a POSIX shell reads it back: quoted unless it is plain. */
function shellWord(w: string): string {
  return /^[\w./@%+=:,-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}

/** One line a desk reads after each run: files, rows, what became of them, days sealed. */
export function summaryLine(files: number, s: ImportStats, days: number, filesOut: number, rowsOut: number, secs: number): string {
  const reasons = [...s.reasons.entries()].sort((a, b) => b[1] - a[1]);
  const shown = reasons.slice(0, 3).map(([r, n]) => `${fmt(n)} ${r}`);
  if (reasons.length > 3) shown.push(`${fmt(reasons.slice(3).reduce((a, [, n]) => a + n, 0))} for ${reasons.length - 3} other reasons`);
  const quarantined = s.quarantined === 0 ? '0 quarantined' : `${fmt(s.quarantined)} quarantined (${shown.join('; ')})`;
  const refused = s.refused.length === 0 ? '' : `, ${fmt(s.refusedRows)} refused (${s.refused.length} file${s.refused.length > 1 ? 's' : ''})`;
  const nothingNew = s.staged === 0 && s.alreadyThere > 0 && days === 0 ? ' — nothing new' : '';
  return (
    `read ${fmt(files)} file${files === 1 ? '' : 's'}: ${fmt(s.rows)} rows, ${fmt(s.staged)} staged, ${fmt(s.alreadyThere)} already there, ${quarantined}${refused}; ` +
    `sealed ${fmt(days)} dataset-day${days === 1 ? '' : 's'}, ${fmt(filesOut)} files, ${fmt(rowsOut)} rows in ${secs.toFixed(1)} s${nothingNew}`
  );
}
