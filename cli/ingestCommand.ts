import { loadIngestConfig } from '../ingest/config.js';
import { IngestMetrics, startMetricsServer, type MetricsServer } from '../ingest/kafka/metrics.js';
import { KafkaIngestor } from '../ingest/kafka/consumer.js';
import { encodeParquet } from '../storage/parquet/writer.js';
import { createProgress, type Progress } from './progress.js';
import type { Command } from './command.js';
import { docOf } from './helpText.js';
import { warnNearKnownRangeEnd } from './calendarWarning.js';
import { INGEST_OPTIONS } from '../ingest/config.js';
import { ROW_TEXT_DAYS_OPTION, STATE_URL_OPTION, STORE_OPTION } from '../shared/config.js';

/** Exit promptly even if some library left a handle open: never linger after stopping. */
const EXIT_GRACE_MS = 5000;

export const ingestCommand: Command = {
  name: 'ingest',
  summary: 'consume the Kafka snapshot topics into staging and seal days as they fall due, until SIGTERM/SIGINT',
  usage:
    'tickvault ingest --brokers HOST:PORT[,…] [--topics md.level2,md.index,md.trade,md.order] [--group tickvault-ingest]\n' +
    '                 [--seal-after 16:00] [--metrics-port N] [--metrics-host 127.0.0.1] [--session-timeout MS]\n' +
    '                 [--state-url URL] [--row-text-days 10] [--store s3://BUCKET/PREFIX]',
  options: {
    brokers: { type: 'string' },
    topics: { type: 'string' },
    group: { type: 'string' },
    'seal-after': { type: 'string' },
    'metrics-port': { type: 'string' },
    'metrics-host': { type: 'string' },
    'session-timeout': { type: 'string' },
    [STATE_URL_OPTION.flag]: { type: 'string' },
    [ROW_TEXT_DAYS_OPTION.flag]: { type: 'string' },
    [STORE_OPTION.flag]: { type: 'string' },
  },
  help: [
    docOf(INGEST_OPTIONS.brokers, 'HOST:PORT[,…]'),
    docOf(INGEST_OPTIONS.topics, 'L2,INDEX,TRADE,ORDER', 'md.level2,md.index,md.trade,md.order'),
    docOf(INGEST_OPTIONS.group, 'NAME'),
    docOf(INGEST_OPTIONS.sealAfter, 'HH:MM', '16:00'),
    docOf(INGEST_OPTIONS.metricsPort, 'N', 'off'),
    docOf(INGEST_OPTIONS.metricsHost, 'ADDR'),
    docOf(INGEST_OPTIONS.sessionTimeout, 'MS'),
    {
      ...docOf(STATE_URL_OPTION, 'URL', 'none'),
      help: 'PostgreSQL database the sites of one service share: their ingestors agree there on one seal cut per partition and day, so every site writes the same files (unset: this site cuts alone)',
    },
    { ...docOf(ROW_TEXT_DAYS_OPTION, 'N'), help: `${ROW_TEXT_DAYS_OPTION.help}; made in the background after each seal and at start` },
    {
      ...docOf(STORE_OPTION, STORE_OPTION.value, 'none'),
      help: `${STORE_OPTION.help}; sealed days uploaded in the background, never delaying staging or sealing`,
    },
  ],
  positionals: 'none',
  async run(ctx) {
    const config = loadIngestConfig(ctx.flags, ctx.env);
    const clock = ctx.config.clock;
    warnNearKnownRangeEnd(ctx);
    const metrics = new IngestMetrics();
    let server: MetricsServer | null = null;
    if (config.metricsPort !== null) {
      server = await startMetricsServer(metrics, config.metricsHost, config.metricsPort);
      ctx.log.info({ host: config.metricsHost, port: server.port }, 'metrics listening');
    }
    let bar: Progress | null = null;
    let barTotal = 0;
    const ingestor = await KafkaIngestor.start({
      config,
      dataDir: ctx.config.dataDir,
      nowMs: () => clock.nowMs(),
      log: ctx.log,
      encode: encodeParquet,
      metrics,
      onProgress: ({ lag }) => {
        if (!ctx.config.progress || lag === null) return;
        if (lag > 0 && bar === null) {
          barTotal = lag;
          bar = createProgress(true, 'catch-up', barTotal, 'msgs');
        }
        if (bar === null) return;
        barTotal = Math.max(barTotal, lag);
        bar.update(barTotal - lag, barTotal);
        if (lag === 0) {
          bar.stop();
          bar = null;
        }
      },
    }).catch(async (e: unknown) => {
      await server?.close();
      throw e;
    });

    let signals = 0;
    const onSignal = (sig: NodeJS.Signals) => {
      signals++;
      if (signals > 1) {
        // Everything acknowledged is durable; a second signal means "now".
        ctx.log.warn({ signal: sig }, 'second signal: exiting at once');
        process.exit(1);
      }
      ctx.log.info({ signal: sig }, 'stopping: finishing the current chunk and seal');
      void ingestor.stop(0);
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    const code = await ingestor.done;
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    (bar as Progress | null)?.stop();
    await server?.close();
    ctx.out(
      `ingest stopped: ${ingestor.counts.consumed} messages consumed, ${ingestor.counts.staged} staged, ` +
        `${ingestor.counts.quarantined} quarantined (${ingestor.counts.late} late), ${ingestor.counts.skipped} re-deliveries skipped`,
    );
    setTimeout(() => process.exit(code), EXIT_GRACE_MS).unref();
    return code;
  },
};
