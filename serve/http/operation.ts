/**
 * The contract between the app (envelope, auth, limits) and one `apiname`. An operation is
 * made once per app from the services it reads through (serve/operations.ts) and owns any
 * state of its own; what it gets per request is the context below.
 *
 * The app has already parsed the body, authenticated the key (401) and applied the
 * per-second limit (429) when `handle` runs. The operation then:
 *   1. validates its params and `fields` (throw `badRequest` → 400);
 *   2. calls `ctx.authorize(dates)` exactly once (plan access / history depth → 403, trial
 *      daily calls → 429; the trial call is counted here) before reading any data;
 *   3. reads data and returns a result.
 * If `handle` returns without having called `authorize`, the app answers 500: an operation
 * that skips the plan checks is a bug, never a silent pass.
 */
import type { JsonPiece } from './jsonPieces.js';
import type { Readable } from 'node:stream';
import type { ApiRequest } from './apiRequest.js';
import type { Account } from '../access/accounts.js';
import type { ApiName } from '../access/plans.js';

export interface Operation {
  readonly apiname: ApiName;
  handle(req: ApiRequest, ctx: OperationContext): Promise<OperationResult>;
}

export interface AuthorizeOptions {
  /** The request asks for a Parquet download: a plan with no downloads at all is a 403. */
  readonly parquet?: boolean;
  /**
   * Check access and history depth as for this interface instead (tick_history's stock
   * ticks are level-2 data); calls are still counted on the operation's own interface.
   */
  readonly accessOf?: ApiName;
}

/** What the app hands an operation for one request. */
export interface OperationContext {
  /** The authenticated account. */
  readonly account: Account;
  /** The service clock's "now" when the request arrived (epoch ms). */
  readonly nowMs: number;
  /**
   * Plan checks for this operation (api-contract: Plans and limits): access (403), history depth of every date
   * in `dates` (403; dates after the latest trading day are not a depth violation), then the
   * trial plan's daily call count (429, counted on success). Pass the date(s) the request
   * will read, or an empty list when no date applies. With `parquet`, a plan that has no
   * Parquet downloads at all is refused here (403), before the trial count.
   */
  authorize(dates: readonly string[], opts?: AuthorizeOptions): Promise<void>;
  /**
   * Takes the account's one in-progress slot for this interface (503 with Retry-After when
   * held elsewhere). The app releases it before the answer's last byte goes out, when the
   * request fails, or when the client disconnects, and renews its lease meanwhile. The
   * detailed history interfaces take it; tick_history does not.
   */
  acquireSlot(): Promise<void>;
  /** Deducts one Parquet file from today's quota (429 when exhausted). */
  chargeParquet(): Promise<void>;
}

/**
 * An operation's answer. `rawJson`: a complete envelope made by envelope.ts: text, UTF-8
 * bytes, or UTF-8 pieces written in order (the level2 fast path sends slices of cached row
 * bytes without copying them into one buffer). `stream`: a file body with its own headers
 * (Parquet downloads).
 */
export type OperationResult =
  | { readonly kind: 'rawJson'; readonly body: string | Buffer | readonly JsonPiece[]; readonly rows?: number }
  | {
      readonly kind: 'stream';
      readonly contentType: string;
      readonly headers: Readonly<Record<string, string>>;
      readonly length: number;
      readonly body: Readable;
      /** Rows in the streamed file, for the request log. */
      readonly rows?: number;
    };
