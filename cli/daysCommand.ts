/**
 * `tickvault days`: the status of every dataset-day of a range (api-contract: Corrections):
 * live / not sealed / empty / sealed / restated, where its files are (local; both: here and in the store; stored: offloaded, the store only), files, rows, records staged, late messages waiting in
 * quarantine, and symbols missing against the previous trading day. Reads catalog.db and
 * ingest.db read only; a data directory without them is simply empty.
 */
import { existsSync } from 'node:fs';
import { latestTradingDay } from '../calendar/tradingCalendar.js';
import { collectDayFacts, dayStatus, reportDays, statusJson, statusTable, type StagedDay } from '../ingest/status/dayStatus.js';
import { StagingReader } from '../storage/staging/stagingReader.js';
import { DATASETS, type Dataset } from '../shared/schema.js';
import { openDb } from '../shared/sqlite.js';
import { CatalogReader, openCatalog } from '../storage/catalog.js';
import { layoutFor } from '../storage/layout.js';
import { daysInStore, offloadedDays } from '../storage/store/storeCatalog.js';
import { requireDataDir } from './dataDirCheck.js';
import { dateRangeFlags } from './dateFlags.js';
import { UsageError, type Command } from './command.js';

const USAGE = 'tickvault days [--from YYYYMMDD] [--to YYYYMMDD] [--dataset level2|index|trade|order] [--json] [--data-dir DIR]';

/** Late counts and staged days from ingest.db, or none when it does not exist. */
function readIngestDb(path: string): { late: Map<string, number>; staged: StagedDay[] } {
  if (!existsSync(path)) return { late: new Map(), staged: [] };
  const db = openDb(path, { readonly: true });
  try {
    return { late: StagingReader.lateCounts(db), staged: StagingReader.stagedDays(db) };
  } finally {
    db.close();
  }
}

export const daysCommand: Command = {
  name: 'days',
  summary: 'list each dataset-day: live, not sealed/empty, sealed or restated, files, rows, late messages, symbols missing',
  usage: USAGE,
  options: { from: { type: 'string' }, to: { type: 'string' }, dataset: { type: 'string' }, json: { type: 'boolean' } },
  help: [
    { flag: 'from', value: 'YYYYMMDD', help: 'first day listed (default: the earliest sealed or staged day)' },
    { flag: 'to', value: 'YYYYMMDD', help: 'last day listed (default: the latest trading day by the clock, or a later stored day)' },
    { flag: 'dataset', value: 'D', help: 'only this dataset: level2, index, trade or order (default: every dataset with a stored day)' },
    { flag: 'json', help: 'one JSON object per line (JSON Lines) instead of the table' },
  ],
  positionals: 'none',
  async run(ctx) {
    const { from, to } = dateRangeFlags(ctx.flags);
    const only = ctx.flags.dataset;
    if (only !== undefined && (typeof only !== 'string' || !(DATASETS as readonly string[]).includes(only))) {
      throw new UsageError(`--dataset must be one of ${DATASETS.join(', ')}, got "${String(only)}"`);
    }
    const { dataDir } = ctx.config;
    requireDataDir(dataDir);
    const layout = layoutFor(dataDir);

    const { late, staged } = readIngestDb(layout.ingestDb);
    const catalogDb = existsSync(layout.catalogDb) ? openCatalog(layout.catalogDb, true) : null;
    try {
      const catalog = catalogDb === null ? null : new CatalogReader(catalogDb);
      const stored: { dataset: Dataset; tradedate: string }[] = [...(catalog?.sealedDays() ?? []), ...staged];
      for (const key of late.keys()) {
        const [dataset, tradedate] = key.split('|') as [Dataset, string];
        stored.push({ dataset, tradedate });
      }
      const storedSets = DATASETS.filter((d) => stored.some((s) => s.dataset === d));
      // Nothing stored: a range asked for lists every dataset's days as empty; no range, nothing.
      let datasets: Dataset[];
      if (only !== undefined) datasets = [only as Dataset];
      else if (storedSets.length > 0) datasets = storedSets;
      else datasets = from !== undefined || to !== undefined ? [...DATASETS] : [];
      const storedDays = stored
        .filter((s) => datasets.includes(s.dataset))
        .map((s) => s.tradedate)
        .sort();
      const latest = latestTradingDay(ctx.config.clock.nowMs());
      const earliest = storedDays[0];
      const lastStored = storedDays[storedDays.length - 1];
      const first = from ?? (earliest !== undefined && (to === undefined || earliest <= to) ? earliest : (to ?? latest));
      const last = to ?? [latest, lastStored ?? latest, first].sort().at(-1)!;
      const days = datasets.length === 0 ? [] : reportDays(first, last, storedDays);
      const inStore = catalogDb === null ? new Set<string>() : new Set(daysInStore(catalogDb).keys());
      const offloaded = catalogDb === null ? new Set<string>() : offloadedDays(catalogDb);
      const rows = collectDayFacts(catalog, datasets, days, late, staged, inStore, offloaded).map(dayStatus);
      ctx.log.debug({ dataDir, datasets, from: first, to: last, days: rows.length }, 'days listed');
      if (ctx.flags.json === true) {
        for (const r of rows) ctx.out(statusJson(r));
      } else if (rows.length === 0) {
        ctx.out(`no days: nothing sealed or staged in ${dataDir}`);
      } else {
        for (const line of statusTable(rows)) ctx.out(line);
      }
      return 0;
    } finally {
      catalogDb?.close();
    }
  },
};
