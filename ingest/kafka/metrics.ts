/**
 * Prometheus metrics of the Kafka ingestor, in a registry of its own (never the global one,
 * so tests and several ingestors in one process do not collide), and the optional plain
 * node:http endpoint serving them at GET /metrics.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { IngestError } from '../errors.js';

export class IngestMetrics {
  readonly registry = new Registry();
  readonly consumed = new Counter({
    name: 'tickvault_ingest_consumed_total', help: 'Kafka messages processed (staged, quarantined or skipped as already staged)',
    labelNames: ['topic'] as const, registers: [this.registry],
  });
  readonly staged = new Counter({
    name: 'tickvault_ingest_staged_total', help: 'Snapshots durably staged', labelNames: ['dataset'] as const, registers: [this.registry],
  });
  readonly quarantined = new Counter({
    name: 'tickvault_ingest_quarantined_total', help: 'Messages quarantined (bad or late)', labelNames: ['dataset'] as const,
    registers: [this.registry],
  });
  readonly late = new Counter({
    name: 'tickvault_ingest_late_total', help: 'Messages quarantined because their day or symbol-day was already sealed',
    labelNames: ['dataset'] as const, registers: [this.registry],
  });
  readonly skipped = new Counter({
    name: 'tickvault_ingest_redelivered_total', help: 'Re-delivered messages skipped because they were already staged',
    labelNames: ['topic'] as const, registers: [this.registry],
  });
  readonly gap = new Counter({
    name: 'tickvault_ingest_offset_gap_total', help: 'Offsets skipped between the stored position and the next message (e.g. lost to retention)',
    labelNames: ['topic'] as const, registers: [this.registry],
  });
  readonly lag = new Gauge({
    name: 'tickvault_ingest_lag_messages', help: 'Messages left to read on an owned partition', labelNames: ['topic', 'partition'] as const,
    registers: [this.registry],
  });
  readonly sealDuration = new Histogram({
    name: 'tickvault_ingest_seal_duration_seconds', help: "Time to seal one partition's symbols of a day",
    labelNames: ['dataset'] as const, buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300], registers: [this.registry],
  });
  readonly sealedFiles = new Counter({
    name: 'tickvault_ingest_sealed_files_total', help: 'Parquet files sealed', labelNames: ['dataset'] as const, registers: [this.registry],
  });
  readonly crashes = new Counter({ name: 'tickvault_ingest_consumer_crashes_total', help: 'Kafka consumer crashes', registers: [this.registry] });

  constructor(opts: { defaultMetrics?: boolean } = {}) {
    if (opts.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry, prefix: 'tickvault_ingest_' });
  }

  /** Replaces the lag gauge's series with the current owned partitions. */
  setLag(entries: readonly { topic: string; partition: number; lag: number }[]): void {
    this.lag.reset();
    for (const e of entries) this.lag.set({ topic: e.topic, partition: String(e.partition) }, e.lag);
  }
}

export interface MetricsServer {
  readonly port: number;
  close(): Promise<void>;
}

export function startMetricsServer(metrics: IngestMetrics, host: string, port: number): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found; metrics are at GET /metrics\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      (e: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics failed: ${(e as Error).message}\n`),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', (e) => reject(new IngestError('metrics', `cannot serve metrics on ${host}:${port}: ${e.message}`, { cause: e, context: { host, port } })));
    server.listen(port, host, () => {
      const bound = (server.address() as AddressInfo).port;
      resolve({
        port: bound,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
