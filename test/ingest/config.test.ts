import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError } from '../../shared/config.js';
import { DEFAULT_SEAL_AFTER_MS, loadIngestConfig, loadProduceConfig, parseBrokers, parseTopics } from '../../ingest/config.js';

const c = suite('loadIngestConfig');

c('defaults: md.level2,md.index,md.trade,md.order, group tickvault-ingest, seal after 16:00, no metrics', () => {
  const cfg = loadIngestConfig({ brokers: 'localhost:9092' }, {});
  assert.equal(cfg.brokers, ['localhost:9092']);
  assert.equal(cfg.topics, { level2: 'md.level2', index: 'md.index', trade: 'md.trade', order: 'md.order' });
  assert.is(cfg.group, 'tickvault-ingest');
  assert.is(cfg.sealAfterMs, DEFAULT_SEAL_AFTER_MS);
  assert.is(cfg.metricsPort, null);
  assert.is(cfg.sessionTimeoutMs, 30_000);
});

c('flags win over TICKVAULT_* environment, which wins over defaults', () => {
  const env = {
    TICKVAULT_BROKERS: 'a:1,b:2',
    TICKVAULT_TOPICS: 'x.l2,x.ix',
    TICKVAULT_GROUP: 'g-env',
    TICKVAULT_SEAL_AFTER: '17:30',
    TICKVAULT_METRICS_PORT: '9100',
  };
  const fromEnv = loadIngestConfig({}, env);
  assert.equal(fromEnv.brokers, ['a:1', 'b:2']);
  assert.equal(fromEnv.topics, { level2: 'x.l2', index: 'x.ix', trade: 'md.trade', order: 'md.order' });
  assert.is(fromEnv.group, 'g-env');
  assert.is(fromEnv.sealAfterMs, (17 * 60 + 30) * 60_000);
  assert.is(fromEnv.metricsPort, 9100);
  const fromFlags = loadIngestConfig({ brokers: 'c:3', group: 'g-flag', 'seal-after': '16:05', 'metrics-port': '0' }, env);
  assert.equal(fromFlags.brokers, ['c:3']);
  assert.is(fromFlags.group, 'g-flag');
  assert.is(fromFlags.sealAfterMs, (16 * 60 + 5) * 60_000);
  assert.is(fromFlags.metricsPort, 0);
});

c('brokers are required, for ingest and produce alike', () => {
  assert.throws(
    () => loadIngestConfig({}, {}),
    (e: Error) => e instanceof ConfigError && /--brokers HOST:PORT is required/.test(e.message),
  );
  assert.throws(() => loadProduceConfig({}, {}), /--brokers HOST:PORT is required/);
});

c('bad values name the option', () => {
  assert.throws(() => loadIngestConfig({ brokers: 'a:1', 'seal-after': '25:00' }, {}), /--seal-after must be a time HH:MM/);
  assert.throws(() => loadIngestConfig({ brokers: 'a:1', 'metrics-port': 'x' }, {}), /--metrics-port must be a port/);
  assert.throws(() => loadIngestConfig({ brokers: 'a:1' }, { TICKVAULT_GROUP: ' ' }), /TICKVAULT_GROUP must be a consumer group name/);
  assert.throws(() => loadIngestConfig({ brokers: 'a:1', 'session-timeout': '10' }, {}), /--session-timeout must be between/);
});

c.run();

const p = suite('parseBrokers / parseTopics');

p('brokers: HOST:PORT list, IPv6 in brackets', () => {
  assert.equal(parseBrokers('k1:9092, k2:9093', 's'), ['k1:9092', 'k2:9093']);
  assert.equal(parseBrokers('[::1]:9092', 's'), ['[::1]:9092']);
  for (const bad of ['', 'k1', 'k1:0', 'k1:70000', 'k1:9092,:1', 'http://k1:9092']) {
    assert.throws(() => parseBrokers(bad, '--brokers'), /--brokers must/, bad);
  }
});

p('topics: exactly two different legal names, level2 first', () => {
  // The two-topic form keeps the default trade and order topics; four name every dataset's.
  assert.equal(parseTopics('a.l2,b_ix', 's'), { level2: 'a.l2', index: 'b_ix', trade: 'md.trade', order: 'md.order' });
  assert.equal(parseTopics('a,b,c,d', 's'), { level2: 'a', index: 'b', trade: 'c', order: 'd' });
  for (const bad of ['md.level2', 'a,b,c', 'a,a', 'a b,c', 'a,', 'a,b,c,d,e', 'a,b,c,a', 'a,md.trade', 'a,b,c,']) {
    assert.throws(() => parseTopics(bad, '--topics'), /--topics must/, bad);
  }
});

p.run();
