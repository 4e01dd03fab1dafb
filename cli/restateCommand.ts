import { barsLogger } from './barsLog.js';
import { sealBars } from '../ingest/seal/bars.js';
import { ROW_TEXT_HELP, ROW_TEXT_OPTIONS, rowTextDaysOf, rowTextStep } from './rowTextStep.js';
import { isValidDate } from '../calendar/tradingCalendar.js';
import { oneOf, parseSymbolList } from '../shared/config.js';
import { DATASETS, SCHEMAS, type Dataset } from '../shared/schema.js';
import { openIngestStores } from '../ingest/staging/stores.js';
import { atStage } from '../ingest/diskFault.js';
import { correctionsFromFiles, correctionsFromQuarantine, type CorrectionScope } from '../ingest/restate/corrections.js';
import { restateDay, type RestateResult } from '../ingest/restate/restateDay.js';
import { UsageError, type Command } from './command.js';

const datasetFlag = oneOf(DATASETS);
const USAGE =
  'tickvault restate --dataset D --date YYYYMMDD (--from-quarantine | FILE|FOLDER…) [--mapping MAP] [--symbols LIST] [--replace] [--row-text-days 10] [--data-dir DIR]';

export const restateCommand: Command = {
  name: 'restate',
  summary: 'correct a sealed day: each symbol-day touched gets a new version (the current rows merged with the corrections), made current at once',
  usage: USAGE,
  options: {
    dataset: { type: 'string' },
    date: { type: 'string' },
    'from-quarantine': { type: 'boolean' },
    mapping: { type: 'string' },
    symbols: { type: 'string' },
    replace: { type: 'boolean' },
    ...ROW_TEXT_OPTIONS,
  },
  help: [
    { flag: 'dataset', value: 'D', help: 'the dataset corrected: level2, index, trade or order' },
    { flag: 'date', value: 'YYYYMMDD', help: 'the sealed day corrected' },
    { flag: 'from-quarantine', help: "the corrections are the day's late messages waiting in quarantine (instead of FILEs)" },
    {
      flag: 'mapping',
      value: 'MAP',
      help: 'mapping of correction files in CSV or another Parquet layout, as for import (feed files .jsonl[.gz|.zst] and Parquet in the lake columns need none)',
    },
    { flag: 'symbols', value: 'LIST', help: 'restate only these symbols (comma-separated); rows of others are left alone' },
    { flag: 'replace', help: "each touched symbol-day's new version is the correction rows alone, not merged with the current rows" },
    ROW_TEXT_HELP,
  ],
  positionals: 'any',
  async run(ctx) {
    if (typeof ctx.flags.dataset !== 'string') throw new UsageError(`--dataset is required: ${USAGE}`);
    const dataset = datasetFlag(ctx.flags.dataset, '--dataset') as Dataset;
    const tradedate = ctx.flags.date;
    if (typeof tradedate !== 'string' || !isValidDate(tradedate)) throw new UsageError('--date YYYYMMDD is required and must be a real date');
    const fromQuarantine = ctx.flags['from-quarantine'] === true;
    if (fromQuarantine === ctx.positionals.length > 0) throw new UsageError(`give correction FILEs or --from-quarantine, one of the two: ${USAGE}`);
    const mapping = typeof ctx.flags.mapping === 'string' ? ctx.flags.mapping : null;
    if (fromQuarantine && mapping !== null) throw new UsageError('--mapping applies to correction FILEs, not --from-quarantine');
    const symbols = typeof ctx.flags.symbols === 'string' ? new Set(parseSymbolList(ctx.flags.symbols, '--symbols', SCHEMAS[dataset].symbols)) : null;
    const scope: CorrectionScope = { dataset, tradedate, symbols };
    const rowTextDays = rowTextDaysOf(ctx);
    const clock = ctx.config.clock;
    const stores = openIngestStores(ctx.config.dataDir, () => clock.nowMs());
    try {
      const corrections = fromQuarantine
        ? correctionsFromQuarantine(stores.staging, scope)
        : await correctionsFromFiles(
            { catalogDb: stores.layout.catalogDb, dataDir: stores.layout.dataDir, nowMs: clock.nowMs() },
            ctx.positionals,
            mapping,
            scope,
          );
      const quarantined = stores.staging.quarantineOnce(corrections.rejects);
      const result = await atStage('restate', stores.layout.dataDir, () =>
        restateDay(
          { dataDir: stores.layout.dataDir, catalog: stores.catalog, staging: stores.staging, nowMs: () => clock.nowMs() },
          dataset,
          tradedate,
          corrections,
          ctx.flags.replace === true,
        ),
      );
      for (const r of result.restated) ctx.log.info({ dataset, tradedate, ...r }, 'symbol-day restated');
      // The new versions are listed: the bars of the day follow them (ingest/seal/bars.ts).
      const barsStarted = Date.now();
      barsLogger(ctx)(await sealBars(stores.layout.dataDir, stores.catalog, () => clock.nowMs()), Date.now() - barsStarted);
      await rowTextStep(ctx, stores.catalog, rowTextDays);
      ctx.out(summaryLine(dataset, tradedate, corrections.rows, corrections.elsewhere, quarantined, result));
      return 0;
    } finally {
      stores.close();
    }
  },
};

const fmt = (n: number) => n.toLocaleString('en-US');

/** One line: what was read, what each restated symbol-day became, what was left as it was. */
export function summaryLine(dataset: Dataset, tradedate: string, rows: number, elsewhere: number, quarantined: number, r: RestateResult): string {
  const read =
    `read ${fmt(rows)} correction rows of ${dataset} ${tradedate}` +
    (elsewhere > 0 ? ` (${fmt(elsewhere)} rows of other days, datasets or symbols left alone)` : '') +
    (quarantined > 0 ? `, ${fmt(quarantined)} quarantined` : '');
  if (r.restated.length === 0) {
    return `${read}; nothing to change: ${r.unchanged.length > 0 ? 'the corrections equal the current rows' : 'no correction rows'}; nothing written`;
  }
  const each = r.restated.map(
    (s) =>
      `${s.symbol} v${s.version} (${fmt(s.rows)} rows: ${fmt(s.changed)} changed, ${fmt(s.added)} added${s.removed > 0 ? `, ${fmt(s.removed)} removed` : ''})`,
  );
  const same = r.unchanged.length > 0 ? `; ${r.unchanged.length} symbol-day${r.unchanged.length === 1 ? '' : 's'} unchanged` : '';
  const parts = r.partsRebuilt > 0 ? `; boundary part rebuilt` : '';
  return `${read}; restated ${r.restated.length} symbol-day${r.restated.length === 1 ? '' : 's'}: ${each.join(', ')}${same}${parts}`;
}
