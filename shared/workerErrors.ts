/**
 * Errors across the thread boundary (shared/workerPool.ts). Structured cloning keeps only an
 * error's message (and for the built-in classes, its name): a worker's DamagedFileError would
 * arrive as a plain Error and `instanceof DamagedFileError` — which decides the server's answer
 * and names the file `doctor` must restore — would be false. So a worker sends an error as
 * plain data (errorToWire) and the main thread rebuilds it (errorFromWire):
 *
 * - the classes callers decide on (DamagedFileError and its path, UnsupportedParquetError,
 *   IngestError and its stage, retriable and context) arrive as the same class, fields
 *   included: each joins the registry below from its own module (`wireErrorClass`), so this
 *   bottom module knows none of them and no arrow points up;
 * - any other error arrives as an Error with the worker's name, message and stack;
 * - every error keeps its `code` (Node's system errors: ENOENT…) and its `cause`, rebuilt the
 *   same way.
 * A class is rebuilt on a thread that has loaded its module; a thread that never loaded it
 * cannot ask `instanceof` of it either, and gets the plain Error.
 */

export interface WireError {
  /** The key of a registered class; absent for any other error. */
  readonly kind?: string;
  readonly name: string;
  readonly message: string;
  readonly stack?: string;
  readonly code?: string | number;
  /** The registered class's own fields. */
  readonly fields?: Readonly<Record<string, unknown>>;
  readonly cause?: WireError;
}

/** How one error class crosses the thread boundary. */
export interface WireErrorClass<E extends Error> {
  readonly type: abstract new (...args: never[]) => E;
  fields(e: E): Record<string, unknown>;
  /** The error made again from its message and fields; `cause` rebuilt already. */
  rebuild(message: string, fields: Readonly<Record<string, unknown>>, cause: Error | undefined): E;
}

/** By kind (the class's name); a subclass must register after its parent to be found first. */
const REGISTERED = new Map<string, WireErrorClass<Error>>();

/** Joins `k` to the classes rebuilt as themselves; called once, beside the class. */
export function wireErrorClass<E extends Error>(kind: string, k: WireErrorClass<E>): void {
  if (REGISTERED.has(kind)) throw new Error(`wire error kind ${kind} registered twice`);
  REGISTERED.set(kind, k as unknown as WireErrorClass<Error>);
}

function kindOf(e: Error): string | undefined {
  let found: string | undefined;
  // The last registered match wins, so a subclass registered after its parent is itself.
  for (const [kind, k] of REGISTERED) if (e instanceof k.type) found = kind;
  return found;
}

/** Causes followed at most this deep (a cycle of causes must not loop). */
const MAX_CAUSES = 4;

/** `e` (anything thrown) as plain, cloneable data; `plain`: without fields and causes. */
export function errorToWire(e: unknown, plain = false, depth = 0): WireError {
  if (!(e instanceof Error)) return { name: 'Error', message: String(e) };
  const kind = plain ? undefined : kindOf(e);
  const code = (e as { code?: unknown }).code;
  return {
    name: e.name,
    message: e.message,
    ...(e.stack === undefined ? {} : { stack: e.stack }),
    ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
    ...(kind === undefined ? {} : { kind, fields: REGISTERED.get(kind)!.fields(e) }),
    ...(plain || e.cause === undefined || depth >= MAX_CAUSES ? {} : { cause: errorToWire(e.cause, false, depth + 1) }),
  };
}

/** The error a worker sent, made again on this thread: a known class as itself. */
export function errorFromWire(w: WireError): Error {
  const cause = w.cause === undefined ? undefined : errorFromWire(w.cause);
  const k = w.kind === undefined ? undefined : REGISTERED.get(w.kind);
  const e = k ? k.rebuild(w.message, w.fields ?? {}, cause) : new Error(w.message, cause === undefined ? undefined : { cause });
  e.name = w.name;
  if (w.stack !== undefined) e.stack = w.stack;
  if (w.code !== undefined) (e as { code?: string | number }).code = w.code;
  return e;
}
