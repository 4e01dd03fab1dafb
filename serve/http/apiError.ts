/**
 * Every failure a client can see, as a typed value; mapped to the envelope in one place
 * (the app's error middleware). `expose: false` errors are internal: the client gets a fixed
 * 500 message and the detail only reaches the log.
 */
export type ErrorCode = 400 | 401 | 403 | 413 | 415 | 429 | 500 | 503;

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly opts: { readonly retryAfterSec?: number; readonly expose?: boolean } = {},
  ) {
    super(message);
  }

  get expose(): boolean {
    return this.opts.expose ?? this.code !== 500;
  }
}

export const badRequest = (message: string): ApiError => new ApiError(400, message);
export const unauthorized = (message: string): ApiError => new ApiError(401, message);
export const forbidden = (message: string): ApiError => new ApiError(403, message);
export const tooManyRequests = (message: string, retryAfterSec: number): ApiError => new ApiError(429, message, { retryAfterSec });
export const busy = (message: string, retryAfterSec: number): ApiError => new ApiError(503, message, { retryAfterSec });
