import { barsLogger } from './barsLog.js';
/**
 * `tickvault demo` (what `npm start` runs): a working service from an empty directory in one
 * command. When the data directory has no sealed files it generates a small synthetic market
 * (orders and trades on its latest day only) straight into staging and seals it (no broker
 * needed); it creates a flagship account once and keeps its key in DATA_DIR/demo.key (0600);
 * then it serves, printing the key and the curl commands. A second run reuses the data and
 * the key.
 *
 * The market is the one `generate` writes and `replay` would seal (the same files, byte for
 * byte; tested), without the JSON text in between: writing and parsing it was most of a first
 * start. Sealing and serving are the seal and serve commands' own code, in process.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CatalogReader, openCatalog } from '../storage/catalog.js';
import { parsePositiveInt, resolveOption, STATE_URL_OPTION, type Flags } from '../shared/config.js';
import { layoutFor } from '../storage/layout.js';
import { createLogger } from '../shared/logger.js';
import { validKeyText } from '../serve/access/accounts.js';
import { SERVE_OPTIONS } from '../serve/http/serveConfig.js';
import { openStateStore } from '../serve/access/openState.js';
import type { StateStore } from '../serve/access/stateStore.js';
import { generationDays } from './generateCommand.js';
import { generateIntoStaging } from '../ingest/feed/generateIntoStaging.js';
import { DEFAULT_SEED, expectedRows } from '../ingest/feed/generate.js';
import { sealDays } from '../ingest/seal/days.js';
import { openIngestStores } from '../ingest/staging/stores.js';
import { encodeParquet } from '../storage/parquet/writer.js';
import { warnPastKnownRange } from './calendarWarning.js';
import { createProgress } from './progress.js';
import { serveCommand } from './serveCommand.js';
import { commandLogger, type Command, type CommandContext } from './command.js';
import { docOf } from './helpText.js';
import { ROW_TEXT_HELP, ROW_TEXT_OPTIONS, rowTextDaysOf } from './rowTextStep.js';
import { BackgroundRowText } from '../storage/rowText/backgroundRowText.js';

export const DEMO_KEY_FILE = 'demo.key';
export const READY_PREFIX = 'tickvault demo ready:';

interface Sample {
  readonly level2Date: string;
  readonly symbol: string;
  readonly indexDate: string | null;
  /** The latest day with a trade file of `symbol`, or null (a data directory without trades). */
  readonly tradeDate: string | null;
  readonly files: number;
}

export const demoCommand: Command = {
  name: 'demo',
  summary: 'embedded demo: generate and replay a small market if the data directory is empty, create a demo key, serve',
  usage: 'tickvault demo [--port 8080] [--host 127.0.0.1] [--stocks 50] [--indexes 20] [--days 5] [--state-url URL] [--row-text-days 10] [--data-dir DIR]',
  options: {
    ...ROW_TEXT_OPTIONS,
    port: { type: 'string' },
    host: { type: 'string' },
    stocks: { type: 'string' },
    indexes: { type: 'string' },
    days: { type: 'string' },
    [STATE_URL_OPTION.flag]: { type: 'string' },
  },
  help: [
    docOf(SERVE_OPTIONS.port, 'N'),
    docOf(SERVE_OPTIONS.host, 'ADDR'),
    { flag: 'stocks', value: 'N', help: 'stocks to generate when the data directory holds no sealed data', default: '50' },
    { flag: 'indexes', value: 'N', help: 'indexes to generate', default: '20' },
    { flag: 'days', value: 'N', help: 'trading days to generate, the latest up to the clock', default: '5' },
    docOf(STATE_URL_OPTION, 'URL', 'service.db in the data directory'),
    ROW_TEXT_HELP,
  ],
  positionals: 'none',
  async run(ctx) {
    const count = (flag: string, defaultValue: number) => resolveOption({ flag, defaultValue, parse: parsePositiveInt, help: '' }, ctx.flags, {});
    const stocks = count('stocks', 50);
    const indexes = count('indexes', 20);
    const days = count('days', 5);
    // Validated now, so that a bad --port fails before minutes of generating.
    const port = resolveOption(SERVE_OPTIONS.port, ctx.flags, ctx.env);
    const host = resolveOption(SERVE_OPTIONS.host, ctx.flags, ctx.env);
    const stateUrl = resolveOption(STATE_URL_OPTION, ctx.flags, ctx.env);
    const rowTextDays = rowTextDaysOf(ctx);
    const dataDir = ctx.config.dataDir;
    mkdirSync(dataDir, { recursive: true });

    // The sub-commands log at warn unless a level was asked for: a demo terminal shows
    // progress bars and the ready banner, not JSON lines.
    const level = ctx.config.logLevelGiven ? ctx.config.logLevel : 'warn';
    const log = createLogger(level, 'demo');

    let sample = storedSample(dataDir);
    if (sample === null) {
      ctx.out(
        `demo: ${dataDir} holds no sealed data; generating ${days} trading days of ${stocks} stocks and ${indexes} indexes, orders and trades on the latest day`,
      );
      await generateAndSeal(ctx, { stocks, indexes, days });
      sample = storedSample(dataDir);
      if (sample === null) throw new Error('the replay sealed no level2 files (try more --stocks)');
    } else {
      ctx.out(`demo: reusing ${sample.files} sealed files in ${dataDir}`);
    }
    const state = await openStateStore({ url: stateUrl, dataDir, durable: true });
    const { key, created } = await demoKey(dataDir, state, ctx.config.clock.nowMs()).finally(() => state.close());
    log.info({ dataDir, created }, created ? 'demo account created' : 'demo account reused');

    // `serve` announces its address with `listening on URL`; the banner follows it, so the
    // printed port is the bound one even with --port 0. It waits one turn of the event loop:
    // serve installs its SIGTERM/SIGINT handlers right after that line, and whoever reads
    // the banner as "ready" may stop the demo at once.
    // Row text (storage/rowText/rowTextKeeper.ts) follows in the background once the server is
    // up: the demo's days are served from their files meanwhile, and a first start is not
    // kept waiting for it.
    const catalog = openCatalog(layoutFor(dataDir).catalogDb, true);
    const rowText = new BackgroundRowText(
      { dataDir, catalog: new CatalogReader(catalog), days: rowTextDays },
      (kept, ms) => log.info({ made: kept.made, removedDays: kept.removedDays, stoppedBy: kept.stoppedBy, ms }, 'row text kept'),
      (e) => log.warn({ err: e }, 'row text not made; `tickvault doctor --rebuild` makes it'),
    );
    const out = (line: string) => {
      ctx.out(line);
      const m = /^listening on (\S+)$/.exec(line);
      if (m) {
        setImmediate(() => banner(m[1], key, dataDir, sample).forEach((l) => ctx.out(l)));
        rowText.poke();
      }
    };
    try {
      // A busy port fails inside serve with one line naming the port and --port.
      return await runSub({ ...ctx, out }, serveCommand, level, { port: String(port), host, ...(stateUrl ? { 'state-url': stateUrl } : {}) });
    } finally {
      await rowText.stop();
      catalog.close();
    }
  },
};

/**
 * The demo's market, generated straight into staging and sealed, each stage timed. Orders and
 * trades for the latest day only: they are ~3× a day's snapshot rows, and one day shows them.
 */
async function generateAndSeal(ctx: CommandContext, size: { stocks: number; indexes: number; days: number }): Promise<void> {
  const clock = ctx.config.clock;
  const days = generationDays(undefined, size.days, clock.nowMs());
  warnPastKnownRange(ctx, days);
  const stores = openIngestStores(ctx.config.dataDir, () => clock.nowMs());
  try {
    const t0 = performance.now();
    const opts = { days, stocks: size.stocks, indexes: size.indexes, seed: DEFAULT_SEED, faults: 0, ticks: 1, tickDays: days.slice(-1) };
    const expected = expectedRows(opts);
    const genBar = createProgress(ctx.config.progress, 'generate', expected, 'rows');
    const g = await generateIntoStaging(opts, stores.staging, (rows) => genBar.update(Math.min(rows, expected)));
    genBar.stop();
    const t1 = performance.now();
    const per = (['level2', 'index', 'trade', 'order'] as const).map((d) => `${d} ${g.perDataset[d]}`).join(', ');
    ctx.out(`generated ${g.rows} rows (${per}) straight into staging in ${((t1 - t0) / 1000).toFixed(1)} s`);
    const sealBar = createProgress(ctx.config.progress, 'seal', g.rows, 'rows');
    let sealed = 0;
    const results = await sealDays(
      stores,
      encodeParquet,
      g.days,
      () => clock.nowMs(),
      (rows) => sealBar.update((sealed += rows)),
      barsLogger(ctx),
    );
    sealBar.stop();
    const files = results.reduce((a, r) => a + r.files, 0);
    ctx.out(`sealed ${results.length} dataset-days, ${files} files in ${((performance.now() - t1) / 1000).toFixed(1)} s`);
  } finally {
    stores.close();
  }
}

/** Runs another command in this process with the demo's config, clock and output. */
function runSub(ctx: CommandContext, cmd: Command, level: string, flags: Flags, positionals: readonly string[] = []): Promise<number> {
  const sub: CommandContext = {
    flags,
    positionals,
    env: ctx.env,
    config: { ...ctx.config, logLevel: level },
    log: commandLogger(level, cmd.name, ctx.config.progress),
    out: ctx.out,
  };
  return cmd.run(sub).then((code) => {
    if (code !== 0) throw new Error(`${cmd.name} exited with ${code}`);
    return code;
  });
}

/** What the curl examples query: the latest stored level2 day and one of its stocks; null when nothing is sealed. */
function storedSample(dataDir: string): Sample | null {
  const { catalogDb } = layoutFor(dataDir);
  if (!existsSync(catalogDb)) return null;
  const db = openCatalog(catalogDb, true);
  try {
    const catalog = new CatalogReader(db);
    const files = catalog.fileCount();
    const level2Date = catalog.latestDay('level2');
    if (files === 0 || level2Date === null) return null;
    const symbols = catalog.symbolsOfDay('level2', level2Date);
    const symbol = symbols.includes('600000.SH') ? '600000.SH' : symbols[0];
    const indexDate = catalog.latestDay('index');
    const tradeDay = catalog.latestDay('trade');
    const tradeDate = tradeDay !== null && catalog.file('trade', tradeDay, symbol) ? tradeDay : null;
    return { level2Date, symbol, indexDate, tradeDate, files };
  } finally {
    db.close();
  }
}

/**
 * The demo account's key: the one in DATA_DIR/demo.key while it still authenticates, else a
 * new flagship account whose key replaces the file. Only the hash is in the state store, so
 * the file is the one place the key is kept; it is readable by its owner only.
 */
export async function demoKey(dataDir: string, store: StateStore, nowMs: number): Promise<{ key: string; created: boolean }> {
  const file = join(dataDir, DEMO_KEY_FILE);
  const stored = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
  if (validKeyText(stored) && (await store.authenticate(stored))?.plan.name === 'flagship') return { key: stored, created: false };
  const { key } = await store.createAccount('flagship', nowMs);
  writeFileSync(file, key + '\n', { mode: 0o600 });
  chmodSync(file, 0o600); // an existing file keeps its old mode through writeFileSync
  return { key, created: true };
}

/** Shell-quotes a JSON body for `-d '…'` (keys and symbols never hold a quote; this is for safety). */
function sq(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

export function curlCommand(url: string, body: unknown, output?: string): string {
  const o = output ? ` -o ${output}` : '';
  return `curl -sS ${url}/api -H 'Content-Type: application/json' -d ${sq(JSON.stringify(body))}${o}`;
}

function banner(url: string, key: string, dataDir: string, s: Sample): string[] {
  const file = `${s.symbol}_${s.level2Date}.parquet`;
  const indexDate = s.indexDate ?? s.level2Date;
  return [
    '',
    `${READY_PREFIX} ${url}`,
    `data directory: ${dataDir}`,
    `API key (flagship plan, kept in ${join(dataDir, DEMO_KEY_FILE)}): ${key}`,
    `console: ${url}/console — sign in with the key above, see the plan, run queries, chart a day`,
    '',
    `# 1. a level-2 page: the first 3 order-book snapshots of ${s.symbol} on ${s.level2Date}`,
    curlCommand(url, { apiname: 'level2_quote_history', apikey: key, params: { symbol: s.symbol, tradedate: s.level2Date, page_size: 3 } }),
    '',
    `# 2. the whole day of ${s.symbol} as one ZSTD Parquet file`,
    curlCommand(url, { apiname: 'level2_quote_history', apikey: key, params: { symbol: s.symbol, tradedate: s.level2Date, format: 'parquet' } }, file),
    '',
    `# 3. tick_history boundary: every index's last snapshot before 10:00 on ${indexDate}`,
    curlCommand(url, { apiname: 'tick_history', apikey: key, params: { tradedate: indexDate, trademin: '1000', side: 'before' } }),
    '',
    ...(s.tradeDate === null
      ? []
      : [
          `# 4. tick-by-tick trades: the first 5 of ${s.symbol} on ${s.tradeDate} (level2_order_history likewise for its orders)`,
          curlCommand(url, { apiname: 'level2_trade_history', apikey: key, params: { symbol: s.symbol, tradedate: s.tradeDate, page_size: 5 } }),
          '',
        ]),
    `More: ${url}/openapi.json (the API), ${url}/metrics (Prometheus), ${url}/healthz; --log-level info logs every request. Ctrl-C stops; run again to reuse data and key.`,
  ];
}
