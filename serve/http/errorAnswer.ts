/**
 * The one place a thrown error becomes an answer. Every route and operation throws typed
 * values; this middleware maps them to the envelope (envelope.ts), sets Retry-After where a
 * wait helps, and records which rule refused the request (`ctx.state.errorReason`) for the
 * request log and the metrics, which run outside it:
 *
 *   ApiError with expose        → its code and message (400…503)
 *   StateDiskError              → 503 'disk' with Retry-After, naming the cause (api-contract 72)
 *   StateUnavailableError       → 503 'state' with Retry-After (nothing was counted)
 *   DamagedFileError            → 503 'damaged' with Retry-After, naming the file (api-contract 74); the
 *                                 operations report it once per file (serve/operations.ts), not here
 *   StoreError                  → 503 'store' with Retry-After: an offloaded day's store is down (issue 50)
 *   anything else               → 500 with a fixed message, logged with its stack
 *
 * Errors after the response started (a client gone mid-body) cannot become answers; Koa
 * reports them on the app's 'error' event, which `logResponseErrors` handles.
 */
import type Koa from 'koa';
import type { Context, Middleware, Next } from 'koa';
import type { Logger } from '../../shared/logger.js';
import { DamagedFileError } from '../../storage/damagedFile.js';
import { STATE_DISK_RETRY_AFTER_SEC, STATE_RETRY_AFTER_SEC, StateDiskError, StateUnavailableError } from '../access/stateStore.js';
import { ApiError, damagedFile, stateDiskFault, stateUnavailable, storeUnavailable, type ErrorReason } from './apiError.js';
import { StoreError } from '../../storage/store/storeError.js';
import { errorEnvelope, JSON_TYPE } from './envelope.js';

const INTERNAL_MESSAGE = 'internal server error';
const STATE_MESSAGE = 'the service cannot reach its accounts and limits database just now; nothing was counted, retry shortly';

/** The answer of an error: status, message, Retry-After, and the reason the metrics count. */
export interface ErrorAnswer {
  readonly code: number;
  readonly message: string;
  readonly reason: ErrorReason;
  readonly retryAfterSec?: number;
}

/** The sentence of a state write the disk refused; /healthz says the same. */
export const stateDiskMessage = (e: StateDiskError): string =>
  `the service cannot record requests in its accounts and limits database (${e.diskCause}); nothing was counted, retry later`;

/** Names the rule that refused a request (ErrorReason) on every error answer. */
export const REASON_HEADER = 'X-Tickvault-Reason';

/** A repair takes minutes (an operator, another site's copy): clients wait that long between tries. */
export const DAMAGED_RETRY_AFTER_SEC = 60;

/** A store on loopback or a LAN is back within seconds to minutes; clients try again then. */
export const STORE_RETRY_AFTER_SEC = 30;

/** The sentence of a store that is down: the day is offloaded, local days are unaffected. */
export const storeMessage = (e: StoreError): string =>
  `this day's files are kept in the store, which cannot be reached just now (${e.message}); days on this server's disk are served as usual; retry later`;

/** The sentence of a damaged file: which file, that nothing of it is served, what helps. */
export const damagedMessage = (e: DamagedFileError): string =>
  `${e.message}; its rows are not served until it is repaired on this site (the operator is told); retry later or ask another site`;

/** Pure mapping; the middleware below does the logging and the writing. */
export function errorAnswerOf(caught: unknown): ErrorAnswer {
  const e =
    caught instanceof StateDiskError
      ? stateDiskFault(stateDiskMessage(caught), STATE_DISK_RETRY_AFTER_SEC)
      : caught instanceof StateUnavailableError
        ? stateUnavailable(STATE_MESSAGE, STATE_RETRY_AFTER_SEC)
        : caught instanceof DamagedFileError
          ? damagedFile(damagedMessage(caught), DAMAGED_RETRY_AFTER_SEC)
          : caught instanceof StoreError
            ? storeUnavailable(storeMessage(caught), STORE_RETRY_AFTER_SEC)
            : caught;
  if (e instanceof ApiError && e.expose) {
    return { code: e.code, message: e.message, reason: e.reason, ...(e.opts.retryAfterSec === undefined ? {} : { retryAfterSec: e.opts.retryAfterSec }) };
  }
  return { code: 500, message: INTERNAL_MESSAGE, reason: 'internal' };
}

export function answerErrors(log: Logger): Middleware {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
    } catch (caught) {
      const answer = errorAnswerOf(caught);
      (ctx.state as { errorReason?: ErrorReason }).errorReason = answer.reason;
      if (answer.code === 500) log.error({ err: caught, path: ctx.path }, 'request failed');
      if (answer.retryAfterSec !== undefined) ctx.set('Retry-After', String(answer.retryAfterSec));
      // The envelope is the vendor's ({code,message,data}); which rule answered is for our own
      // clients (mirror, repair), which must not wait out a damaged file as they wait out a slot.
      ctx.set(REASON_HEADER, answer.reason);
      ctx.status = answer.code;
      ctx.type = JSON_TYPE;
      ctx.body = errorEnvelope(answer.code, answer.message);
    }
  };
}

/** Errors after the response started: a client that went away mid-body is routine, not a fault. */
const GONE = new Set(['ERR_STREAM_PREMATURE_CLOSE', 'ERR_STREAM_DESTROYED', 'EPIPE', 'ECONNRESET', 'ECONNABORTED']);

export function logResponseErrors(app: Koa, log: Logger): void {
  app.on('error', (err: unknown) => {
    const code = (err as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && GONE.has(code)) log.debug({ code }, 'client went away mid-response');
    else if (err instanceof DamagedFileError) log.error({ err, file: err.path }, 'stored file damaged mid-response; run tickvault doctor');
    else log.warn({ err }, 'response error');
  });
}
