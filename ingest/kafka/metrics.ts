/**
 * Prometheus metrics of the Kafka ingestor, in a registry of its own (never the global one,
 * so tests and several ingestors in one process do not collide), and the optional plain
 * node:http endpoint serving them at GET /metrics, with GET /healthz: 200 "ok", or 503 with
 * the ongoing disk faults (diskFaults.ts) for a probe or an operator to read.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { IngestError } from '../errors.js';

export class IngestMetrics {
  readonly registry = new Registry();
  readonly consumed = new Counter({
    name: 'tickvault_ingest_consumed_total',
    help: 'Kafka messages processed (staged, quarantined or skipped as already staged)',
    labelNames: ['topic'] as const,
    registers: [this.registry],
  });
  readonly staged = new Counter({
    name: 'tickvault_ingest_staged_total',
    help: 'Snapshots durably staged',
    labelNames: ['dataset'] as const,
    registers: [this.registry],
  });
  readonly quarantined = new Counter({
    name: 'tickvault_ingest_quarantined_total',
    help: 'Messages quarantined (bad or late)',
    labelNames: ['dataset'] as const,
    registers: [this.registry],
  });
  readonly late = new Counter({
    name: 'tickvault_ingest_late_total',
    help: 'Messages quarantined because their day or symbol-day was already sealed',
    labelNames: ['dataset'] as const,
    registers: [this.registry],
  });
  readonly skipped = new Counter({
    name: 'tickvault_ingest_redelivered_total',
    help: 'Re-delivered messages skipped because they were already staged',
    labelNames: ['topic'] as const,
    registers: [this.registry],
  });
  readonly gap = new Counter({
    name: 'tickvault_ingest_offset_gap_total',
    help: 'Offsets skipped between the stored position and the next message (e.g. lost to retention)',
    labelNames: ['topic'] as const,
    registers: [this.registry],
  });
  readonly lag = new Gauge({
    name: 'tickvault_ingest_lag_messages',
    help: 'Messages left to read on an owned partition',
    labelNames: ['topic', 'partition'] as const,
    registers: [this.registry],
  });
  readonly sealDuration = new Histogram({
    name: 'tickvault_ingest_seal_duration_seconds',
    help: "Time to seal one partition's symbols of a day",
    labelNames: ['dataset'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    registers: [this.registry],
  });
  readonly sealedFiles = new Counter({
    name: 'tickvault_ingest_sealed_files_total',
    help: 'Parquet files sealed',
    labelNames: ['dataset'] as const,
    registers: [this.registry],
  });
  readonly crashes = new Counter({ name: 'tickvault_ingest_consumer_crashes_total', help: 'Kafka consumer crashes', registers: [this.registry] });
  readonly diskFault = new Gauge({
    name: 'tickvault_ingest_disk_fault',
    help: 'A full or read-only disk stops this stage now (1; cause in the label), retried until a write succeeds; 0: none',
    labelNames: ['stage', 'cause'] as const,
    registers: [this.registry],
  });
  readonly diskFaults = new Counter({
    name: 'tickvault_ingest_disk_faults_total',
    help: 'Disk faults (full or read-only disk) that began, by stage',
    labelNames: ['stage'] as const,
    registers: [this.registry],
  });
  readonly diskWriteFailures = new Counter({
    name: 'tickvault_ingest_disk_write_failures_total',
    help: 'Writes that failed on a full or read-only disk, retries included, by stage',
    labelNames: ['stage'] as const,
    registers: [this.registry],
  });
  readonly storeUp = new Gauge({
    name: 'tickvault_store_up',
    help: 'The last upload pass reached the store (1), or could not (0: uploads wait and are retried; nothing is lost)',
    registers: [this.registry],
  });
  readonly storeDueDays = new Gauge({
    name: 'tickvault_store_due_days',
    help: 'Sealed days with files not yet uploaded and verified in the store, after the last pass',
    registers: [this.registry],
  });
  readonly storeFiles = new Counter({
    name: 'tickvault_store_uploaded_files_total',
    help: 'Files uploaded to the store and verified',
    registers: [this.registry],
  });
  readonly storeBytes = new Counter({
    name: 'tickvault_store_uploaded_bytes_total',
    help: 'Bytes uploaded to the store and verified',
    registers: [this.registry],
  });
  readonly storeFailures = new Counter({
    name: 'tickvault_store_failures_total',
    help: 'Upload passes that failed (the store down, a damaged local file), each retried',
    registers: [this.registry],
  });
  /** Ongoing disk faults by stage, as /healthz reports them. */
  private readonly faults = new Map<string, { readonly cause: string; readonly text: string; readonly sinceMs: number }>();

  constructor(opts: { defaultMetrics?: boolean } = {}) {
    if (opts.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry, prefix: 'tickvault_ingest_' });
  }

  /** A stage's disk fault began or changed (a fault) or ended (null): the gauge and /healthz. */
  setDiskFault(stage: string, fault: { readonly cause: string; readonly text: string; readonly sinceMs: number } | null): void {
    // One series per stage: the previous cause's goes, so a sum over causes is 0 or 1.
    this.diskFault.remove({ stage, cause: this.faults.get(stage)?.cause ?? 'none' });
    this.diskFault.remove({ stage, cause: 'none' });
    if (fault === null) {
      this.faults.delete(stage);
      this.diskFault.set({ stage, cause: 'none' }, 0);
    } else {
      this.faults.set(stage, { cause: fault.cause, text: fault.text, sinceMs: fault.sinceMs });
      this.diskFault.set({ stage, cause: fault.cause }, 1);
    }
  }

  /** What is wrong now, one line a problem; empty when healthy. */
  problems(nowMs = Date.now()): string[] {
    return [...this.faults].map(([stage, f]) => `${stage}: ${f.text} (for ${Math.round((nowMs - f.sinceMs) / 1000)} s; retrying)`);
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
    if (req.method === 'GET' && path === '/healthz') {
      const problems = metrics.problems();
      // 503 while a disk fault lasts: the process is alive and will resume, but not ingesting.
      if (problems.length === 0) res.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
      else res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '5' }).end(`${problems.join('\n')}\n`);
      return;
    }
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found; metrics are at GET /metrics, health at GET /healthz\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      (e: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics failed: ${(e as Error).message}\n`),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', (e) =>
      reject(new IngestError('metrics', `cannot serve metrics on ${host}:${port}: ${e.message}`, { cause: e, context: { host, port } })),
    );
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
