import { ROW_TEXT_HELP, ROW_TEXT_OPTIONS, rowTextDaysOf, rowTextStep } from './rowTextStep.js';
import { TickvaultError } from '../client/index.js';
import { ConfigError } from '../shared/config.js';
import { openIngestStores } from '../ingest/staging/stores.js';
import { loadMirrorPlan, MIRROR_OPTIONS } from '../ingest/mirror/mirrorConfig.js';
import { runMirror, type MirrorOutcome } from '../ingest/mirror/mirrorRun.js';
import { createProgress } from './progress.js';
import type { Command } from './command.js';

export const mirrorCommand: Command = {
  name: 'mirror',
  summary: 'bring history in from a service with this API (the vendor, or another tickvault site) within its rules, sealed here through the import path',
  usage:
    'tickvault mirror --upstream URL --key KEY --from YYYYMMDD --to YYYYMMDD [--datasets level2,trade,order,index] ' +
    '[--symbols LIST | --symbols-file FILE] [--indexes LIST] [--rate N] [--row-text-days 10] [--data-dir DIR]',
  options: {
    upstream: { type: 'string' },
    key: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    datasets: { type: 'string' },
    symbols: { type: 'string' },
    'symbols-file': { type: 'string' },
    indexes: { type: 'string' },
    rate: { type: 'string' },
    ...ROW_TEXT_OPTIONS,
  },
  help: [
    { flag: MIRROR_OPTIONS.upstream.flag, value: 'URL', env: MIRROR_OPTIONS.upstream.env, help: MIRROR_OPTIONS.upstream.help },
    { flag: MIRROR_OPTIONS.key.flag, value: 'KEY', env: MIRROR_OPTIONS.key.env, help: MIRROR_OPTIONS.key.help },
    { flag: 'from', value: 'YYYYMMDD', help: 'first day of the range (trading days by our calendar)' },
    { flag: 'to', value: 'YYYYMMDD', help: 'last day of the range; at most the latest trading day' },
    { flag: MIRROR_OPTIONS.datasets.flag, value: 'LIST', env: MIRROR_OPTIONS.datasets.env, help: MIRROR_OPTIONS.datasets.help },
    {
      flag: 'symbols',
      value: 'LIST',
      help: "stocks, comma-separated, any accepted form (default: each day's stocks as the upstream's tick_history asset=stock lists them)",
    },
    { flag: 'symbols-file', value: 'FILE', help: 'stocks from a file: codes separated by commas, spaces or lines; # starts a comment' },
    { flag: 'indexes', value: 'LIST', help: "index codes, comma-separated (default: each day's indexes as the upstream's tick_history lists them)" },
    { flag: MIRROR_OPTIONS.rate.flag, value: 'N', env: MIRROR_OPTIONS.rate.env, help: MIRROR_OPTIONS.rate.help },
    ROW_TEXT_HELP,
  ],
  positionals: 'none',
  async run(ctx) {
    const clock = ctx.config.clock;
    const started = Date.now();
    const plan = loadMirrorPlan(ctx.flags, ctx.env, clock.nowMs());
    const rowTextDays = rowTextDaysOf(ctx);
    const stores = openIngestStores(ctx.config.dataDir, () => clock.nowMs());
    const bar = createProgress(ctx.config.progress, 'mirror', 0, 'symbol-days', { rows: true, counters: ['requests', 'waits'] });
    let outcome: MirrorOutcome;
    try {
      outcome = await runMirror(
        {
          stores,
          nowMs: () => clock.nowMs(),
          log: ctx.log,
          onProgress: (p) => bar.update(p.symbolDaysDone, p.symbolDaysKnown, p.rows, { requests: p.counts.requests, waits: p.counts.waits }),
        },
        plan,
      );
      bar.stop();
      await rowTextStep(ctx, stores.catalog, rowTextDays);
    } catch (e) {
      if (e instanceof TickvaultError && e.code === 401) throw new ConfigError(`the upstream refused the key (401): ${e.message}`);
      throw e;
    } finally {
      bar.stop();
      stores.close();
    }
    ctx.out(summaryLine(outcome, (Date.now() - started) / 1000));
    for (const line of outcome.stopped) process.stderr.write(`tickvault mirror: ${line}; run the same command again once the account allows it\n`);
    for (const line of outcome.refused) process.stderr.write(`tickvault mirror: ${line}\n`);
    for (const line of outcome.damagedUpstream) {
      process.stderr.write(`tickvault mirror: ${line}; run the same command again once the upstream has repaired it, or mirror that day from another site\n`);
    }
    if (outcome.importStats.quarantined > 0) {
      process.stderr.write(
        `tickvault mirror: ${outcome.importStats.quarantined} rows from the upstream were quarantined; reasons in the quarantine table of ${stores.layout.ingestDb}\n`,
      );
    }
    if (outcome.refused.length > 0) return 2;
    return outcome.stopped.length > 0 || outcome.damagedUpstream.length > 0 ? 1 : 0;
  },
};

const fmt = (n: number) => n.toLocaleString('en-US');

/** One line after each run: symbol-days by how they came, requests by answer, waits, days sealed. */
export function summaryLine(o: MirrorOutcome, secs: number): string {
  const fetched = o.fetched.parquet + o.fetched.json + o.fetched.nodata;
  const statuses = [...o.counts.byStatus.entries()].sort((a, b) => a[0] - b[0]).map(([code, n]) => `${code} ×${fmt(n)}`);
  const files = o.sealed.reduce((a, r) => a + r.files, 0);
  const rows = o.sealed.reduce((a, r) => a + r.rows, 0);
  const before = o.resumed + o.daysAlreadyDone === 0 ? '' : `; ${fmt(o.resumed)} symbol-days and ${fmt(o.daysAlreadyDone)} dataset-days done before`;
  return (
    `mirrored ${fmt(fetched)} symbol-days (${fmt(o.fetched.parquet)} as Parquet, ${fmt(o.fetched.json)} as JSON pages, ${fmt(o.fetched.nodata)} no data${before}): ` +
    `${fmt(o.rows)} rows in ${fmt(o.counts.requests)} requests${statuses.length === 0 ? '' : ` (${statuses.join(', ')})`}, ` +
    `${fmt(o.counts.waits)} waits (${fmt(o.counts.waitedSec)} s asked); sealed ${fmt(o.sealed.length)} dataset-days, ${fmt(files)} files, ${fmt(rows)} rows in ${secs.toFixed(1)} s`
  );
}
