/**
 * `tickvault repair --from URL|DIR|s3://…`: the files `doctor` finds damaged or missing, fetched from a
 * peer (a tickvault server through its API, a peer's data directory or a backup, or the store) and
 * installed only when their bytes are this catalog's; row text and boundary parts are written
 * again here from sound files. One line per file on stdout and a summary; exit 0 when every
 * finding was repaired (or there was none), 1 otherwise, 2 for bad arguments.
 */
import { loadRepairFrom, REPAIR_OPTIONS } from '../ingest/repair/repairConfig.js';
import { dirPeer } from '../ingest/repair/dirPeer.js';
import { runRepair, type RepairOutcome } from '../ingest/repair/repairRun.js';
import { urlPeer } from '../ingest/repair/urlPeer.js';
import { storePeer } from '../ingest/repair/storePeer.js';
import type { Command } from './command.js';
import { resolveOption, ROW_TEXT_DAYS_OPTION } from '../shared/config.js';
import { docOf } from './helpText.js';
import { requireDataDir } from './dataDirCheck.js';

export const repairCommand: Command = {
  name: 'repair',
  summary:
    "fetch the files doctor finds damaged or missing from a peer (server or data directory/backup), installed only when they match this catalog's SHA-256; row text, boundary parts and bars rebuilt here",
  usage: 'tickvault repair --from URL|DIR|s3://BUCKET/PREFIX [--key KEY] [--rate N] [--row-text-days 10] [--data-dir DIR]',
  options: { from: { type: 'string' }, key: { type: 'string' }, rate: { type: 'string' }, [ROW_TEXT_DAYS_OPTION.flag]: { type: 'string' } },
  help: [
    { flag: REPAIR_OPTIONS.from.flag, value: 'URL|DIR|s3://…', env: REPAIR_OPTIONS.from.env, help: REPAIR_OPTIONS.from.help },
    { flag: REPAIR_OPTIONS.key.flag, value: 'KEY', env: REPAIR_OPTIONS.key.env, help: `with --from URL: ${REPAIR_OPTIONS.key.help}` },
    {
      flag: REPAIR_OPTIONS.rate.flag,
      value: 'N',
      env: REPAIR_OPTIONS.rate.env,
      default: String(REPAIR_OPTIONS.rate.defaultValue),
      help: 'with --from URL: requests per second to the peer, all interfaces together',
    },
    docOf(ROW_TEXT_DAYS_OPTION, 'N'),
  ],
  positionals: 'none',
  async run(ctx) {
    const { dataDir, clock } = ctx.config;
    requireDataDir(dataDir);
    const from = loadRepairFrom(ctx.flags, ctx.env, dataDir);
    const started = Date.now();
    // The AWS SDK is loaded only for a store.
    const store = from.kind === 'store' ? new (await import('../storage/store/objectStore.js')).ObjectStore(from.store) : null;
    const source =
      from.kind === 'dir'
        ? dirPeer(from.dir, dataDir)
        : from.kind === 'url'
          ? urlPeer({ url: from.url, apikey: from.apikey, rate: from.rate, dataDir, nowMs: () => clock.nowMs(), log: ctx.log })
          : storePeer(store!, dataDir);
    const outcome = await runRepair(dataDir, source, resolveOption(ROW_TEXT_DAYS_OPTION, ctx.flags, ctx.env)).finally(() => store?.close());
    for (const line of outcome.lines) ctx.out(line.text);
    ctx.out(summaryLine(outcome, source.label, (Date.now() - started) / 1000));
    return outcome.lines.every((l) => l.ok) ? 0 : 1;
  },
};

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function summaryLine(o: RepairOutcome, source: string, secs: number): string {
  if (o.nothingToDo)
    return `nothing to repair: doctor finds no damaged or missing file among ${plural(o.catalogFiles, 'catalogued file')} (${secs.toFixed(1)} s)`;
  const c = o.counts;
  const failed = o.lines.filter((l) => !l.ok).length;
  return (
    `repair from ${source}: ${plural(c.files, 'damaged or missing file')}: ${c.repaired} repaired, ${c.refused} refused, ${c.notFound} not found, ${c.notRepaired} not repaired; ` +
    (c.parts === 0 ? '' : `${c.partsRebuilt} of ${plural(c.parts, 'boundary part')} rebuilt; `) +
    (c.barDays === 0 ? '' : `bars of ${c.barDaysRebuilt} of ${plural(c.barDays, 'day')} rebuilt; `) +
    `${plural(c.rowTexts, 'row text')} rebuilt; ` +
    `${failed === 0 ? 'all repaired' : `${plural(failed, 'finding')} left`} in ${secs.toFixed(1)} s`
  );
}
