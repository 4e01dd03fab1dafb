/**
 * Paging and error checks shared by the tests of the detailed history interfaces (level 2,
 * trades, orders), whatever request function a test pages with.
 */
import * as assert from 'uvu/assert';
import type { ApiResponse } from './server.js';

export interface CursorPage {
  readonly next_cursor: string | null;
}

/** The `data` of a detailed-history JSON page (api-contract: Detailed history). */
export interface DetailedPage extends CursorPage {
  fields: string[];
  items: unknown[][];
  tradedate: string;
  page_size: number;
  has_more: boolean;
  /** The symbol-day's version (absent in a no-data answer). */
  version?: number;
}

/** Pages through a query with next_cursor (each page must be a 200); returns every page's data. */
export async function pagesByCursor<P extends CursorPage>(
  call: (params: Record<string, unknown>) => Promise<ApiResponse<P>>,
  params: Record<string, unknown>,
  maxPages = 200,
): Promise<P[]> {
  const pages: P[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < maxPages; i++) {
    const r = await call(cursor === null ? params : { ...params, cursor });
    assert.is(r.status, 200, r.text.slice(0, 300));
    pages.push(r.json.data!);
    cursor = r.json.data!.next_cursor;
    if (cursor === null) return pages;
  }
  throw new Error('paging did not end');
}

/** A JSON error envelope: status and code equal, the message matches, no data. */
export function isEnvelopeError<D>(r: ApiResponse<D>, code: number, message: RegExp): void {
  assert.is(r.status, code, r.text);
  assert.is(r.json.code, code);
  assert.match(r.json.message, message);
  assert.is(r.json.data, null);
  assert.match(String(r.headers['content-type']), /^application\/json/);
}
