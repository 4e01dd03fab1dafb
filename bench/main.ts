/**
 * `npm run bench`: every benchmark, each figure printed with its ratio to the reference or
 * target it names. `--only storage,encode,…` runs a subset; `--quick` shrinks the data sets
 * (for a smoke run, not for the figures in the README). `--import-stocks N` sizes the import
 * bench's day (default 500; a whole market's day is about 5,000). `--memory-cli PATH` serves the
 * memory bench with another build's cli/main.js (its before/after figure on the same data).
 * `--only live` (the live day, run only when named) takes `--stocks N` (default 5,000),
 * `--live-seconds N` (default 60), `--clients N`, `--page-rate N` (live pages a second over all
 * clients; default: each asks again once answered) and `--cache-mb N`. `--only bars` (ten years
 * of a stock and a market day through generate + replay, run only when named) takes
 * `--bars-dir DIR` (keep its lakes there and reuse them). `--only store` (serving from an S3 store
 * on loopback: Swift, started by the bench) runs only when named.
 */
import { runBarsBench } from './bars.bench.js';
import { runDemoStartBench } from './demoStart.bench.js';
import { runImportBench } from './import.bench.js';
import { runKafkaIngestBench } from './kafkaIngest.bench.js';
import { runLevel2QueryBench } from './level2Query.bench.js';
import { runLiveBench } from './live.bench.js';
import { runMarketBench } from './market.bench.js';
import { runMemoryBench } from './memory.bench.js';
import { runParquetEncodeBench } from './parquetEncode.bench.js';
import { runSharedStateBench } from './sharedState.bench.js';
import { runStorageBench } from './storage.bench.js';
import { runStoreBench } from './store.bench.js';
import { runTickHistoryBench } from './tickHistory.bench.js';
import { runTicksBench } from './ticks.bench.js';
import { runTradeQueryBench } from './tradeQuery.bench.js';
import { runWireBench } from './wire.bench.js';

interface Bench {
  readonly name: string;
  run(quick: boolean): Promise<unknown>;
  /** Runs only when named with --only (a whole market's day takes many minutes). */
  readonly onlyByName?: boolean;
}

const BENCHES: readonly Bench[] = [
  { name: 'start', run: () => runDemoStartBench() },
  { name: 'encode', run: (quick) => runParquetEncodeBench({ symbols: quick ? 20 : 200, rowsPerSymbol: 5000, rowGroupSize: 1200 }) },
  { name: 'storage', run: (quick) => runStorageBench(quick ? { stocks: 20, bigStocks: 80, derivedStocks: 2 } : { stocks: 500, bigStocks: 2000 }) },
  { name: 'import', run: (quick) => runImportBench({ stocks: numberArg('--import-stocks') ?? (quick ? 20 : 500) }) },
  { name: 'ticks', run: (quick) => runTicksBench(quick ? { stocks: 10 } : {}) },
  { name: 'kafka', run: (quick) => runKafkaIngestBench(quick ? { messages: 20_000, stocks: 50, sealStocks: 20 } : {}) },
  { name: 'level2', run: (quick) => runLevel2QueryBench(quick ? { stocks: 5, iterations: 10, seconds: 5 } : {}) },
  { name: 'trades', run: (quick) => runTradeQueryBench(quick ? { stocks: 2 } : {}) },
  { name: 'state', run: (quick) => runSharedStateBench(quick ? { stocks: 5, seconds: 3, slotIterations: 500 } : {}) },
  { name: 'wire', run: (quick) => runWireBench({ runs: quick ? 3 : 15 }) },
  { name: 'market', onlyByName: true, run: (quick) => runMarketBench(quick ? { stocks: 50, indexes: 10 } : {}) },
  {
    name: 'bars',
    onlyByName: true,
    run: (quick) =>
      runBarsBench({
        ...(quick ? { days: 60, stocks: 20, iterations: 30, firstTouchTrials: 3 } : {}),
        ...(stringArg('--bars-dir') === undefined ? {} : { keep: stringArg('--bars-dir') }),
      }),
  },
  { name: 'store', onlyByName: true, run: (quick) => runStoreBench(quick ? { stocks: 10, firstTouch: 6, smallGets: 40, randomPages: 40 } : {}) },
  {
    name: 'live',
    onlyByName: true,
    run: (quick) =>
      runLiveBench({
        stocks: numberArg('--stocks') ?? (quick ? 50 : undefined),
        liveSeconds: numberArg('--live-seconds') ?? (quick ? 10 : undefined),
        clients: numberArg('--clients'),
        pageRate: numberArg('--page-rate'),
        cacheMb: numberArg('--cache-mb'),
        ...(quick ? { deepStocks: 3, kafkaMessages: 20_000, kafkaStocks: 50 } : {}),
      }),
  },
  {
    name: 'memory',
    run: (quick) =>
      runMemoryBench({
        ...(quick ? { stocks: 50, days: 8, seconds: 10 } : {}),
        ...(stringArg('--memory-cli') === undefined ? {} : { cli: stringArg('--memory-cli') }),
      }),
  },
  {
    name: 'tick',
    run: (quick) => runTickHistoryBench(quick ? { wideIndexes: 50, wideDays: 2, deepIndexes: 20, deepDays: 3, iterations: 5, coldTrials: 3 } : {}),
  },
];

/** An option's value (`--memory-cli /other/build/dist/cli/main.js`), or undefined when not given. */
function stringArg(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at < 0 ? undefined : process.argv[at + 1];
}

/** A numeric option's value (`--import-stocks 5000`), or undefined when not given. */
function numberArg(name: string): number | undefined {
  const at = process.argv.indexOf(name);
  return at < 0 ? undefined : Number(process.argv[at + 1]);
}

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const onlyAt = args.indexOf('--only');
const only = onlyAt >= 0 ? new Set(args[onlyAt + 1]?.split(',')) : null;
console.log(`tickvault bench — node ${process.version}, ${(await import('node:os')).cpus().length} cores${quick ? ', quick' : ''}`);
for (const b of BENCHES) {
  if (only ? !only.has(b.name) : b.onlyByName) continue;
  console.log(`\n== ${b.name}`);
  const t0 = performance.now();
  await b.run(quick);
  console.log(`   (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
}
