/**
 * The one error type of the ingest side. kafkajs's src/errors.js is the model: a single class
 * carrying what a caller decides on — is it worth retrying — and the context a log line
 * needs, instead of a subclass per failure that callers must know by name. It joins the one
 * hierarchy (shared/retry/baseError.ts), so `isRetriable` asks it as it asks any other.
 *
 * Whoever catches one decides whether to go on: the ingestor stops with exit code 1 on any it
 * cannot handle, for a supervisor to restart it (the offsets stored in the data directory
 * make a restart resume where it stopped); the running sealer logs a failed tick and retries.
 * - `retriable`: the same work may succeed when tried again unchanged (a broker or worker
 *   hiccup); not retriable means something must change first (a disk, a port, a flag).
 *
 * The CLI turns it into an exit code in one place (cli/exitCode.ts).
 */

import { TickvaultBaseError } from '../shared/retry/baseError.js';
import { wireErrorClass } from '../shared/workerErrors.js';

/** Where on the ingest path it failed. */
export type IngestStage = 'open' | 'staging' | 'decode' | 'consumer' | 'produce' | 'metrics' | 'seal' | 'spool' | 'restate';

export interface IngestErrorOptions {
  readonly retriable?: boolean;
  readonly cause?: unknown;
  /** What a log line or a bug report needs: topic, partition, file, host and port… */
  readonly context?: Readonly<Record<string, unknown>>;
}

export class IngestError extends TickvaultBaseError {
  override name = 'IngestError';
  readonly context: Readonly<Record<string, unknown>>;

  constructor(
    readonly stage: IngestStage,
    message: string,
    opts: IngestErrorOptions = {},
  ) {
    super(message, { retriable: opts.retriable ?? false, cause: opts.cause });
    this.context = opts.context ?? {};
  }
}

wireErrorClass('IngestError', {
  type: IngestError,
  fields: (e) => ({ stage: e.stage, retriable: e.retriable, context: e.context }),
  rebuild: (message, f, cause) =>
    new IngestError(f.stage as IngestStage, message, {
      retriable: f.retriable as boolean,
      context: f.context as Record<string, unknown>,
      cause,
    }),
});

/** Staging (appending, fsyncing or recording a batch) failed: the ingestor must stop. */
export function stagingFailed(where: string, cause: unknown): IngestError {
  return new IngestError('staging', `staging ${where} failed: ${(cause as Error).message ?? String(cause)}`, { cause, context: { where } });
}

export function isStagingFailure(e: unknown): e is IngestError {
  return e instanceof IngestError && e.stage === 'staging';
}
