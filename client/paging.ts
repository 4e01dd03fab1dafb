/**
 * Async iterators over pages. They take the one-page call as a function, so they know
 * nothing of HTTP; each page is requested only when the consumer asks for it, and at most
 * one request is ever in flight (the server allows one level2 request per account).
 */
import { TickvaultPagingError } from './errors.js';
import type { ApiResult, Level2Page, Level2QuoteHistoryParams } from './types.js';

/**
 * Every page of a level-2 day, by cursor, until `next_cursor` is null or `has_more` false.
 * A cursor handed back twice would make the loop endless (a server fault, or a proxy
 * replaying an answer): it throws TickvaultPagingError instead.
 */
export async function* level2Pages(
  call: (params: Level2QuoteHistoryParams) => Promise<ApiResult<Level2Page>>,
  params: Level2QuoteHistoryParams,
): AsyncGenerator<Level2Page, void, undefined> {
  const seen = new Set<string>();
  if (params.cursor) seen.add(params.cursor);
  let cursor = params.cursor ?? null;
  for (;;) {
    const { data } = await call(cursor === null ? params : { ...params, cursor });
    yield data;
    if (!data.has_more || data.next_cursor === null) return;
    if (seen.has(data.next_cursor)) {
      throw new TickvaultPagingError(`the server handed back cursor ${data.next_cursor.slice(0, 40)} a second time; paging stopped`);
    }
    seen.add(data.next_cursor);
    cursor = data.next_cursor;
  }
}

/**
 * Every page of a query paged by `offset` (an enhanced or boundary tick_history query, and
 * the bar interfaces), until `has_more` is not true. An answer without `has_more` (a
 * compatible tick_history query, tradecal) is one page. A page that claims more but holds
 * no rows would repeat the same offset forever: that throws.
 */
export async function* offsetPages<P extends { readonly offset?: number }, D extends { readonly items: readonly unknown[]; readonly has_more?: boolean }>(
  call: (params: P) => Promise<ApiResult<D>>,
  params: P,
): AsyncGenerator<D, void, undefined> {
  let offset = params.offset ?? 0;
  // The first request goes as given: adding `offset` to a compatible query would turn it
  // into an enhanced one (a different mode, with a row limit).
  for (let next = params; ; next = { ...params, offset }) {
    const { data } = await call(next);
    yield data;
    if (data.has_more !== true) return;
    if (data.items.length === 0) {
      throw new TickvaultPagingError(`the server answered has_more with no rows at offset ${offset}; paging stopped`);
    }
    offset += data.items.length;
  }
}
