import { barsLogger } from './barsLog.js';
import { ROW_TEXT_HELP, ROW_TEXT_OPTIONS, rowTextDaysOf, rowTextStep } from './rowTextStep.js';
import { encodeParquet } from '../storage/parquet/writer.js';
import { sealDays } from '../ingest/seal/days.js';
import { openIngestStores } from '../ingest/staging/stores.js';
import { DATASETS } from '../shared/schema.js';
import { isValidDateText } from '../shared/timeFormat.js';
import { createProgress } from './progress.js';
import { sealRefusal } from '../calendar/sealRefusal.js';
import { UsageError, type Command } from './command.js';

export const sealCommand: Command = {
  name: 'seal',
  summary: 'seal one day now: write its staged rows to Parquet; later messages for it are late',
  usage: 'tickvault seal --date YYYYMMDD [--force] [--row-text-days 10] [--data-dir DIR]',
  options: { date: { type: 'string' }, force: { type: 'boolean' }, ...ROW_TEXT_OPTIONS },
  help: [
    { flag: 'date', value: 'YYYYMMDD', help: 'the trading day to seal (required)' },
    { flag: 'force', help: "seal even a day that is not a trading day, is after the latest trading day or is past the calendar's known range" },
    ROW_TEXT_HELP,
  ],
  positionals: 'none',
  async run(ctx) {
    const date = ctx.flags.date;
    if (!isValidDateText(date)) throw new UsageError('--date YYYYMMDD is required and must be a real date');
    const rowTextDays = rowTextDaysOf(ctx);
    const clock = ctx.config.clock;
    const refusal = sealRefusal(date, clock.nowMs());
    if (refusal !== null) {
      if (ctx.flags.force !== true) throw new UsageError(`refusing to seal: ${refusal} (sealing is irreversible; --force if you mean it)`);
      ctx.log.warn({ tradedate: date, reason: refusal }, 'sealing anyway (--force)');
    }
    const stores = openIngestStores(ctx.config.dataDir, () => clock.nowMs());
    try {
      const bar = createProgress(ctx.config.progress, 'seal', 0, 'rows');
      let rows = 0;
      const results = await sealDays(
        stores,
        encodeParquet,
        DATASETS.map((d) => `${d}|${date}`),
        () => clock.nowMs(),
        (n) => bar.update((rows += n)),
        barsLogger(ctx),
      );
      bar.stop();
      // The day is listed (and served); its row text follows, before the summary lines.
      await rowTextStep(ctx, stores.catalog, rowTextDays);
      for (const r of results) {
        ctx.log.info(r, 'day sealed');
        ctx.out(`sealed ${r.dataset} ${r.tradedate}: ${r.files} files, ${r.rows} rows, ${r.bytes} bytes`);
      }
      return 0;
    } finally {
      stores.close();
    }
  },
};
