import { statSync } from 'node:fs';
import { DATASETS } from '../shared/schema.js';
import { loadProduceConfig } from '../ingest/config.js';
import { produceFeedFiles } from '../ingest/kafka/producer.js';
import { createProgress } from './progress.js';
import { UsageError, type Command } from './command.js';
import { docOf } from './helpText.js';
import { INGEST_OPTIONS } from '../ingest/config.js';

export const produceCommand: Command = {
  name: 'produce',
  summary: 'publish feed files to the Kafka snapshot topics (key = symbol, gzip batches)',
  usage:
    'tickvault produce --brokers HOST:PORT[,…] [--topics md.level2,md.index,md.trade,md.order] FILE…\n' +
    'Lines with kind level2/index/trade/order go to their topic without `kind`; any other line is published\n' +
    'unchanged to the level2 topic with header tickvault-reject: REASON, so the ingestor quarantines it.',
  options: { brokers: { type: 'string' }, topics: { type: 'string' } },
  help: [docOf(INGEST_OPTIONS.brokers, 'HOST:PORT[,…]'), docOf(INGEST_OPTIONS.topics, 'L2,INDEX,TRADE,ORDER', 'md.level2,md.index,md.trade,md.order')],
  positionals: 'some',
  async run(ctx) {
    const config = loadProduceConfig(ctx.flags, ctx.env);
    let totalBytes = 0;
    for (const f of ctx.positionals) {
      let size: number | null = null;
      try {
        const st = statSync(f);
        size = st.isFile() ? st.size : null;
      } catch {
        size = null;
      }
      if (size === null) throw new UsageError(`feed file not found: ${f}`);
      totalBytes += size;
    }
    const bar = createProgress(ctx.config.progress, 'produce', totalBytes, 'bytes');
    let doneBytes = 0;
    let lastFile = '';
    let fileBase = 0;
    let lastRead = 0;
    const stats = await produceFeedFiles({
      brokers: config.brokers,
      topics: config.topics,
      files: ctx.positionals,
      log: ctx.log,
      onProgress: ({ file, bytesRead }) => {
        if (file !== lastFile) {
          fileBase += lastRead;
          lastFile = file;
        }
        lastRead = bytesRead;
        doneBytes = fileBase + bytesRead;
        bar.update(doneBytes);
      },
    });
    bar.stop();
    const secs = stats.ms / 1000;
    ctx.log.debug({ ...stats, topics: config.topics }, 'feed published');
    ctx.out(
      `produced ${stats.messages} messages from ${stats.files} file(s): ` +
        DATASETS.map((d) => `${stats.published[d]} to ${config.topics[d]}, `).join('') +
        `${stats.flagged} bad lines flagged to ${config.topics.level2} ` +
        `in ${secs.toFixed(1)} s (${Math.round(stats.messages / Math.max(secs, 0.001))} msg/s)`,
    );
    return 0;
  },
};
