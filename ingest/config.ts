/**
 * Configuration of the Kafka commands (`ingest`, `produce`): CLI flags over TICKVAULT_* env
 * over defaults, resolved with the shared `resolveOption` so that precedence and error
 * wording match every other option of the program.
 */
import { DATASETS, type Dataset } from '../shared/schema.js';
import {
  STATE_URL_OPTION,
  ROW_TEXT_DAYS_OPTION,
  loadStoreConfig,
  type StoreConfig,
  ConfigError,
  parseClockTime,
  parsePort,
  parsePositiveInt,
  resolveOption,
  type Env,
  type Flags,
  type OptionSpec,
} from '../shared/config.js';

/**
 * The topic of each dataset: stock (Level-2) snapshots, index snapshots, tick-by-tick trades
 * and orders (api-contract: The feed, Trades and orders).
 */
export type KafkaTopics = Readonly<Record<Dataset, string>>;

export const DEFAULT_TOPICS: KafkaTopics = { level2: 'md.level2', index: 'md.index', trade: 'md.trade', order: 'md.order' };
export const DEFAULT_GROUP = 'tickvault-ingest';
/** 16:00 Beijing: the close (15:00) plus an hour's grace for stragglers and corrections. */
export const DEFAULT_SEAL_AFTER_MS = 16 * 3_600_000;

// Kafka's legal topic characters; the length cap is the broker's.
const TOPIC_RE = /^[A-Za-z0-9._-]{1,249}$/;
const BROKER_RE = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/;

export function parseBrokers(text: string, source: string): string[] {
  const list = text
    .split(',')
    .map((b) => b.trim())
    .filter((b) => b !== '');
  if (list.length === 0) throw new ConfigError(`${source} must list at least one HOST:PORT`);
  for (const b of list) {
    const m = BROKER_RE.exec(b);
    if (!m || Number(m[2]) < 1 || Number(m[2]) > 65535) {
      throw new ConfigError(`${source} must be HOST:PORT[,HOST:PORT…], got "${b}"`);
    }
  }
  return list;
}

/**
 * `LEVEL2,INDEX,TRADE,ORDER`; the older two-topic form `LEVEL2,INDEX` keeps the default trade
 * and order topics, so a deployment configured before trades and orders existed still starts.
 */
export function parseTopics(text: string, source: string): KafkaTopics {
  const parts = text.split(',').map((t) => t.trim());
  if ((parts.length !== 2 && parts.length !== 4) || parts.some((t) => !TOPIC_RE.test(t))) {
    throw new ConfigError(`${source} must be four topic names LEVEL2,INDEX,TRADE,ORDER (or two, LEVEL2,INDEX; letters, digits, . _ -), got "${text}"`);
  }
  const topics: KafkaTopics = {
    level2: parts[0],
    index: parts[1],
    trade: parts[2] ?? DEFAULT_TOPICS.trade,
    order: parts[3] ?? DEFAULT_TOPICS.order,
  };
  if (new Set(Object.values(topics)).size !== DATASETS.length) {
    throw new ConfigError(`${source} must name a different topic for each of level2, index, trade and order, got "${text}"`);
  }
  return topics;
}

function parseGroup(text: string, source: string): string {
  if (text.trim() === '' || text.length > 255) throw new ConfigError(`${source} must be a consumer group name of 1-255 characters`);
  return text;
}

function parseSessionTimeout(text: string, source: string): number {
  const ms = parsePositiveInt(text, source);
  if (ms < 1000 || ms > 3_600_000) throw new ConfigError(`${source} must be between 1000 and 3600000 milliseconds, got ${ms}`);
  return ms;
}

const noBrokers: string[] = [];

export const INGEST_OPTIONS = {
  brokers: {
    flag: 'brokers',
    env: 'TICKVAULT_BROKERS',
    defaultValue: noBrokers,
    parse: parseBrokers,
    help: 'Kafka bootstrap brokers HOST:PORT[,HOST:PORT…] (required)',
  } satisfies OptionSpec<string[]>,
  topics: {
    flag: 'topics',
    env: 'TICKVAULT_TOPICS',
    defaultValue: DEFAULT_TOPICS,
    parse: parseTopics,
    help: 'topics LEVEL2,INDEX,TRADE,ORDER (or LEVEL2,INDEX: trade and order keep their defaults)',
  } satisfies OptionSpec<KafkaTopics>,
  group: {
    flag: 'group',
    env: 'TICKVAULT_GROUP',
    defaultValue: DEFAULT_GROUP,
    parse: parseGroup,
    help: 'consumer group',
  } satisfies OptionSpec<string>,
  sealAfter: {
    flag: 'seal-after',
    env: 'TICKVAULT_SEAL_AFTER',
    defaultValue: DEFAULT_SEAL_AFTER_MS,
    parse: parseClockTime,
    help: 'Beijing time HH:MM after which a day may be sealed',
  } satisfies OptionSpec<number>,
  metricsPort: {
    flag: 'metrics-port',
    env: 'TICKVAULT_METRICS_PORT',
    defaultValue: null,
    parse: (t: string, s: string): number | null => parsePort(t, s),
    help: 'serve Prometheus metrics at GET /metrics on this port (0: any free port)',
  } satisfies OptionSpec<number | null>,
  metricsHost: {
    flag: 'metrics-host',
    env: 'TICKVAULT_METRICS_HOST',
    defaultValue: '127.0.0.1',
    parse: (t: string) => t,
    help: 'address the metrics endpoint binds',
  } satisfies OptionSpec<string>,
  sessionTimeout: {
    flag: 'session-timeout',
    env: 'TICKVAULT_SESSION_TIMEOUT',
    defaultValue: 30_000,
    parse: parseSessionTimeout,
    help: 'consumer group session timeout in ms',
  } satisfies OptionSpec<number>,
};

export interface IngestConfig {
  readonly brokers: readonly string[];
  readonly topics: KafkaTopics;
  readonly group: string;
  /** Milliseconds after Beijing midnight of a day from which it may be sealed. */
  readonly sealAfterMs: number;
  readonly metricsPort: number | null;
  readonly metricsHost: string;
  readonly sessionTimeoutMs: number;
  /** The database the sites share (--state-url): where they agree on seal cuts; '' when this site cuts alone. */
  readonly stateUrl: string;
  /** The row text window (--row-text-days): made in the background after each seal. */
  readonly rowTextDays: number;
  /** The store (--store): sealed days' files uploaded in the background; null: local disk only. */
  readonly store: StoreConfig | null;
}

export interface ProduceConfig {
  readonly brokers: readonly string[];
  readonly topics: KafkaTopics;
}

function requireBrokers(flags: Flags, env: Env): string[] {
  const brokers = resolveOption(INGEST_OPTIONS.brokers, flags, env);
  if (brokers.length === 0) throw new ConfigError('--brokers HOST:PORT is required (or set TICKVAULT_BROKERS)');
  return brokers;
}

export function loadIngestConfig(flags: Flags, env: Env): IngestConfig {
  return {
    brokers: requireBrokers(flags, env),
    topics: resolveOption(INGEST_OPTIONS.topics, flags, env),
    group: resolveOption(INGEST_OPTIONS.group, flags, env),
    sealAfterMs: resolveOption(INGEST_OPTIONS.sealAfter, flags, env),
    metricsPort: resolveOption(INGEST_OPTIONS.metricsPort, flags, env),
    metricsHost: resolveOption(INGEST_OPTIONS.metricsHost, flags, env),
    sessionTimeoutMs: resolveOption(INGEST_OPTIONS.sessionTimeout, flags, env),
    stateUrl: resolveOption(STATE_URL_OPTION, flags, env),
    rowTextDays: resolveOption(ROW_TEXT_DAYS_OPTION, flags, env),
    store: loadStoreConfig(flags, env),
  };
}

export function loadProduceConfig(flags: Flags, env: Env): ProduceConfig {
  return { brokers: requireBrokers(flags, env), topics: resolveOption(INGEST_OPTIONS.topics, flags, env) };
}
