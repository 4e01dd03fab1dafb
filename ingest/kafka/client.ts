/**
 * A kafkajs client whose own log lines go through the process's pino logger (child `kafkajs`),
 * so that every line on stderr is structured JSON. kafkajs is chatty at INFO (joins, commits),
 * which becomes debug here; its ERROR lines are mostly retried protocol errors (rebalancing,
 * reconnecting), reported as warn: the ingestor logs the failures that matter itself.
 */
import { Kafka, logLevel, type LogEntry, type RetryOptions } from 'kafkajs';
import type { Logger } from '../../shared/logger.js';

export interface KafkaClientOptions {
  readonly brokers: readonly string[];
  readonly clientId: string;
  readonly log: Logger;
  readonly retry?: RetryOptions;
}

export function createKafka(opts: KafkaClientOptions): Kafka {
  const kafkaLog = opts.log.child({ ns: 'kafkajs' });
  const logCreator = () => (entry: LogEntry) => {
    const { message, timestamp: _ts, logger: _l, ...extra } = entry.log as { message: string; timestamp: string; logger?: string; [k: string]: unknown };
    const fields = { kafkaNs: entry.namespace, ...extra };
    switch (entry.level) {
      case logLevel.ERROR:
      case logLevel.WARN:
        kafkaLog.warn(fields, message);
        break;
      case logLevel.INFO:
        kafkaLog.debug(fields, message);
        break;
      default:
        kafkaLog.trace(fields, message);
    }
  };
  return new Kafka({
    clientId: opts.clientId,
    brokers: [...opts.brokers],
    logLevel: kafkaLog.isLevelEnabled('trace') ? logLevel.DEBUG : logLevel.INFO,
    logCreator,
    retry: opts.retry,
  });
}
