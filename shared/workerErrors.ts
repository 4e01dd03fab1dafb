/**
 * Errors across the thread boundary (shared/workerPool.ts). Structured cloning keeps only an
 * error's message (and for the built-in classes, its name): a worker's DamagedFileError would
 * arrive as a plain Error and `instanceof DamagedFileError` — which decides the server's answer
 * and names the file `doctor` must restore — would be false. So a worker sends an error as
 * plain data (errorToWire) and the main thread rebuilds it (errorFromWire):
 *
 * - the classes callers decide on — DamagedFileError (its path), UnsupportedParquetError,
 *   IngestError (stage, retriable, context) — arrive as the same class, fields included;
 * - any other error arrives as an Error with the worker's name, message and stack;
 * - every error keeps its `code` (Node's system errors: ENOENT…) and its `cause`, rebuilt the
 *   same way.
 */
import { DamagedFileError } from '../storage/damagedFile.js';
import { UnsupportedParquetError } from '../storage/parquet/format.js';
import { IngestError, type IngestStage } from '../ingest/errors.js';

export interface WireError {
  /** The key of a known class (KNOWN below); absent for any other error. */
  readonly kind?: string;
  readonly name: string;
  readonly message: string;
  readonly stack?: string;
  readonly code?: string | number;
  /** The known class's own fields. */
  readonly fields?: Readonly<Record<string, unknown>>;
  readonly cause?: WireError;
}

interface KnownError<E extends Error> {
  readonly type: abstract new (...args: never[]) => E;
  fields(e: E): Record<string, unknown>;
  /** The error made again from its message and fields; `cause` rebuilt already. */
  rebuild(message: string, fields: Readonly<Record<string, unknown>>, cause: Error | undefined): E;
}

function known<E extends Error>(k: KnownError<E>): KnownError<Error> {
  return k as unknown as KnownError<Error>;
}

const KNOWN: Readonly<Record<string, KnownError<Error>>> = {
  DamagedFileError: known<DamagedFileError>({
    type: DamagedFileError,
    fields: (e) => ({ path: e.path }),
    rebuild: (message, f, cause) => {
      // The constructor composes the message from path and detail; the worker's is already whole.
      const e = new DamagedFileError(f.path as string, '', { cause });
      e.message = message;
      return e;
    },
  }),
  UnsupportedParquetError: known<UnsupportedParquetError>({
    type: UnsupportedParquetError,
    fields: () => ({}),
    rebuild: (message, _f, cause) => new UnsupportedParquetError(message, cause === undefined ? undefined : { cause }),
  }),
  IngestError: known<IngestError>({
    type: IngestError,
    fields: (e) => ({ stage: e.stage, retriable: e.retriable, context: e.context }),
    rebuild: (message, f, cause) =>
      new IngestError(f.stage as IngestStage, message, {
        retriable: f.retriable as boolean, context: f.context as Record<string, unknown>, cause,
      }),
  }),
};

/** Causes followed at most this deep (a cycle of causes must not loop). */
const MAX_CAUSES = 4;

/** `e` (anything thrown) as plain, cloneable data; `plain`: without fields and causes. */
export function errorToWire(e: unknown, plain = false, depth = 0): WireError {
  if (!(e instanceof Error)) return { name: 'Error', message: String(e) };
  const kind = plain ? undefined : Object.keys(KNOWN).find((k) => e instanceof KNOWN[k].type);
  const code = (e as { code?: unknown }).code;
  return {
    name: e.name,
    message: e.message,
    ...(e.stack === undefined ? {} : { stack: e.stack }),
    ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
    ...(kind === undefined ? {} : { kind, fields: KNOWN[kind].fields(e) }),
    ...(plain || e.cause === undefined || depth >= MAX_CAUSES ? {} : { cause: errorToWire(e.cause, false, depth + 1) }),
  };
}

/** The error a worker sent, made again on this thread: a known class as itself. */
export function errorFromWire(w: WireError): Error {
  const cause = w.cause === undefined ? undefined : errorFromWire(w.cause);
  const k = w.kind === undefined ? undefined : KNOWN[w.kind];
  const e = k ? k.rebuild(w.message, w.fields ?? {}, cause) : new Error(w.message, cause === undefined ? undefined : { cause });
  e.name = w.name;
  if (w.stack !== undefined) e.stack = w.stack;
  if (w.code !== undefined) (e as { code?: string | number }).code = w.code;
  return e;
}
