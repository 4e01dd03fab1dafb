/**
 * Every failure a client can see, as a typed value; mapped to the envelope in one place
 * (the app's error middleware). `expose: false` errors are internal: the client gets a fixed
 * 500 message and the detail only reaches the log.
 *
 * `reason` says which rule refused the request. Metrics label rejections by it, the request
 * log records it, and only the limits worth waiting for (rate, trial, quota, slot) carry a
 * Retry-After; nothing reads the message text to find out what happened.
 */
export type ErrorCode = 400 | 401 | 403 | 413 | 415 | 429 | 500 | 503;

export type ErrorReason =
  /** The body could not be read as a JSON object (400, 413, 415). */
  | 'body'
  /** A body member, parameter or field list is wrong (400). */
  | 'param'
  /** The API key is missing, unknown or revoked (401). */
  | 'key'
  /** The plan does not allow it: no access, history depth, no Parquet downloads (403). */
  | 'plan'
  /** The per-second limit (429). */
  | 'rate'
  /** The trial plan's daily calls (429). */
  | 'trial'
  /** The daily Parquet quota (429). */
  | 'quota'
  /** The account's one request in progress (503). */
  | 'slot'
  /** The shared state (the accounts and limits database) cannot be reached now (503). */
  | 'state'
  /** The shared state cannot be written: its disk is full or read-only (503, api-contract 72). */
  | 'disk'
  /** A cursor pages a version of a restated symbol-day this site does not hold yet (503). */
  | 'version'
  /** A stored file does not hold the catalog's bytes or does not decode (503 until repaired, api-contract 74). */
  | 'damaged'
  /** The day's files are in the store (offloaded), which cannot be reached now (503, issue 50). */
  | 'store'
  /** A fault of the server (500). */
  | 'internal';

/** Every reason, for the OpenAPI document's `X-Tickvault-Reason` (a Record: a new reason must be listed). */
const REASONS_LISTED: Readonly<Record<ErrorReason, true>> = {
  body: true,
  param: true,
  key: true,
  plan: true,
  rate: true,
  trial: true,
  quota: true,
  slot: true,
  state: true,
  disk: true,
  version: true,
  damaged: true,
  store: true,
  internal: true,
};
export const ERROR_REASONS = Object.keys(REASONS_LISTED) as readonly ErrorReason[];

/** Limits that lift after a while: their answers say when (Retry-After, whole seconds). */
export type WaitReason = Extract<ErrorReason, 'rate' | 'trial' | 'quota' | 'slot' | 'state' | 'disk' | 'version' | 'damaged' | 'store'>;

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly code: ErrorCode,
    readonly reason: ErrorReason,
    message: string,
    readonly opts: { readonly retryAfterSec?: number; readonly expose?: boolean } = {},
  ) {
    super(message);
  }

  get expose(): boolean {
    return this.opts.expose ?? this.code !== 500;
  }
}

export const badRequest = (message: string): ApiError => new ApiError(400, 'param', message);
export const badBody = (code: 400 | 413 | 415, message: string): ApiError => new ApiError(code, 'body', message);
export const unauthorized = (message: string): ApiError => new ApiError(401, 'key', message);
export const forbidden = (message: string): ApiError => new ApiError(403, 'plan', message);
export const tooManyRequests = (
  reason: Exclude<WaitReason, 'slot' | 'state' | 'disk' | 'version' | 'damaged' | 'store'>,
  message: string,
  retryAfterSec: number,
): ApiError => new ApiError(429, reason, message, { retryAfterSec });
export const busy = (message: string, retryAfterSec: number): ApiError => new ApiError(503, 'slot', message, { retryAfterSec });
/** The shared state is unreachable: nothing was counted, and the same request may succeed shortly. */
export const stateUnavailable = (message: string, retryAfterSec: number): ApiError => new ApiError(503, 'state', message, { retryAfterSec });
/** The shared state's disk refuses writes: nothing was counted; the same request succeeds once there is room. */
export const stateDiskFault = (message: string, retryAfterSec: number): ApiError => new ApiError(503, 'disk', message, { retryAfterSec });
/** A cursor's version is not here yet (a restatement not applied at this site): never another version's rows. */
export const versionMissing = (message: string, retryAfterSec: number): ApiError => new ApiError(503, 'version', message, { retryAfterSec });
/** The symbol-day's stored file is damaged here: never its rows; the same request succeeds once it is repaired. */
export const damagedFile = (message: string, retryAfterSec: number): ApiError => new ApiError(503, 'damaged', message, { retryAfterSec });
/** An offloaded day's files are in a store that cannot be reached now: local days are served; this one once it is back. */
export const storeUnavailable = (message: string, retryAfterSec: number): ApiError => new ApiError(503, 'store', message, { retryAfterSec });
/** A bug, never shown to the client (fixed 500 message). */
export const internal = (message: string): ApiError => new ApiError(500, 'internal', message, { expose: false });
