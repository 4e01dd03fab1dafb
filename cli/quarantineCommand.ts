/**
 * `tickvault quarantine`: the rows that import, replay, ingest and seal set aside, each with
 * its source (`file:line`, `file#row`, `topic/partition@offset`), the reason and its raw text;
 * or, with `--count`, how many by reason. Reads ingest.db read only (a running ingestor or
 * import goes on); a data directory without it has nothing quarantined.
 */
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { quarantineCounts, quarantinedRows, type QuarantineFilter } from '../storage/staging/quarantineList.js';
import { openDb } from '../shared/sqlite.js';
import { layoutFor } from '../storage/layout.js';
import { requireDataDir } from './dataDirCheck.js';
import { dateRangeFlags } from './dateFlags.js';
import { UsageError, type Command } from './command.js';

const USAGE = 'tickvault quarantine [--source GLOB] [--reason TEXT] [--from YYYYMMDD] [--to YYYYMMDD] [--count] [--json] [--data-dir DIR]';

function textFlag(value: unknown, flag: string, what: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${flag} needs ${what}`);
  return value;
}

/** Raw text on one line of the listing: control characters shown escaped (--json has it exact). */
function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex -- the control characters are what it escapes
  return text.replace(/[\u0000-\u001f\u007f\\]/g, (c) =>
    c === '\t' ? '\\t' : c === '\n' ? '\\n' : c === '\r' ? '\\r' : c === '\\' ? '\\\\' : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
}

export const quarantineCommand: Command = {
  name: 'quarantine',
  summary: 'list quarantined rows (source, reason, raw text) or count them by reason',
  usage: USAGE,
  options: {
    source: { type: 'string' },
    reason: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    count: { type: 'boolean' },
    json: { type: 'boolean' },
  },
  help: [
    {
      flag: 'source',
      value: 'GLOB',
      help: "rows from these files: * is any run of characters, ? one; matched against the whole path or its end after a /, so a file's name alone will do (quote it for the shell)",
    },
    { flag: 'reason', value: 'TEXT', help: 'rows whose reason contains TEXT (in any case)' },
    { flag: 'from', value: 'YYYYMMDD', help: 'rows quarantined on this day (Beijing) or later' },
    { flag: 'to', value: 'YYYYMMDD', help: 'rows quarantined on this day (Beijing) or earlier' },
    { flag: 'count', help: 'counts by reason instead of the rows, the most frequent first' },
    { flag: 'json', help: 'one JSON object per line (JSON Lines): the raw text exact' },
  ],
  positionals: 'none',
  async run(ctx) {
    const { from, to } = dateRangeFlags(ctx.flags);
    const filter: QuarantineFilter = {
      source: textFlag(ctx.flags.source, 'source', 'a file name or glob'),
      reason: textFlag(ctx.flags.reason, 'reason', 'the text to look for'),
      from,
      to,
    };
    const json = ctx.flags.json === true;
    const { dataDir } = ctx.config;
    requireDataDir(dataDir);
    const path = layoutFor(dataDir).ingestDb;
    if (!existsSync(path)) {
      if (!json) ctx.out(ctx.flags.count === true ? '0 rows in quarantine' : 'no quarantined rows');
      return 0;
    }
    const db = openDb(path, { readonly: true });
    try {
      if (ctx.flags.count === true) {
        const counts = quarantineCounts(db, filter);
        const total = counts.reduce((a, c) => a + c.rows, 0);
        if (json) {
          for (const c of counts) ctx.out(JSON.stringify(c));
          return 0;
        }
        const width = String(counts[0]?.rows ?? 0).length;
        for (const c of counts) ctx.out(`${String(c.rows).padStart(width)}  ${c.reason}`);
        ctx.out(`${total} row${total === 1 ? '' : 's'} in quarantine`);
        return 0;
      }
      let n = 0;
      for (const r of quarantinedRows(db, filter)) {
        n++;
        ctx.out(
          json
            ? JSON.stringify({ source: r.source, reason: r.reason, raw: r.raw, quarantined_at: new Date(r.atMs).toISOString() })
            : `${r.source}\t${r.reason}\t${oneLine(r.raw)}`,
        );
        // Millions of rows into a slow reader: wait for it rather than hold them all in memory.
        if (process.stdout.writableNeedDrain) await once(process.stdout, 'drain');
      }
      if (n === 0 && !json) ctx.out('no quarantined rows');
      return 0;
    } finally {
      db.close();
    }
  },
};
