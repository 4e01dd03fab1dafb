/**
 * One `POST /api` exchange over the global `fetch`, with the retry policy applied to the
 * status line only: an error answer is read into a TickvaultError, and one that says it is
 * `retriable` (429/503) is waited for and sent again; any other is thrown. A 200 response comes back unread, so a download can
 * stream it; nothing here retries once a 200 has arrived.
 *
 * Network errors (a reset, a timeout, a refused connection) are thrown as fetch throws them
 * and never retried: fetch cannot say whether the body reached the server, and if it did, a
 * trial call, a Parquet quota unit or the in-flight slot may already be spent on it. The
 * caller knows whether a repeat is worth that; the client does not guess.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { TickvaultError } from './errors.js';
import { parseRetryAfter, waitMs, type RetryPolicy } from './retryPolicy.js';
import type { Envelope } from './types.js';

export interface TransportOptions {
  /** e.g. `http://localhost:8080`; requests go to `${baseUrl}/api`. */
  readonly baseUrl: string;
  readonly retry: RetryPolicy;
  readonly fetch: typeof fetch;
  /** In [0, 1), for jitter; Math.random by default. */
  readonly random: () => number;
}

export class Transport {
  private readonly url: string;
  constructor(private readonly opts: TransportOptions) {
    this.url = `${opts.baseUrl.replace(/\/+$/, '')}/api`;
  }

  /** POSTs `body` as JSON; resolves with the 200 response, unread. */
  async post(body: unknown, signal?: AbortSignal): Promise<Response> {
    const text = JSON.stringify(body);
    for (let attempt = 1; ; attempt++) {
      const res = await this.opts.fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: text,
        signal,
      });
      if (res.status === 200) return res;
      const error = await errorOf(res);
      if (!error.retriable) throw error;
      const delay = waitMs(error.retryAfterSec, attempt, this.opts.retry, this.opts.random());
      if (delay === null) throw error;
      await sleep(delay, undefined, { signal });
    }
  }
}

/** The TickvaultError an error answer stands for (its body read to the end, freeing the socket). */
async function errorOf(res: Response): Promise<TickvaultError> {
  const retryAfterSec = parseRetryAfter(res.headers.get('retry-after'), Date.now());
  const text = await res.text();
  let message = text.slice(0, 500);
  try {
    const env = JSON.parse(text) as Envelope<unknown>;
    if (typeof env.message === 'string') message = env.message;
  } catch {
    // Not the envelope (a proxy's page, say): keep the start of the body as the message.
  }
  return new TickvaultError(res.status, message, retryAfterSec, res.headers.get('x-tickvault-reason') ?? undefined);
}

/** Reads a 200 response as the JSON envelope of a success. */
export async function successOf<D>(res: Response): Promise<{ code: 200; message: string; data: D }> {
  const env = (await res.json()) as Envelope<D>;
  if (env.code !== 200 || env.data === null) throw new TickvaultError(env.code, env.message);
  return { code: 200, message: env.message, data: env.data };
}
