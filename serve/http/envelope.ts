/**
 * The envelope every answer is (api-contract: Envelope): `{"code","message","data"}`, HTTP status
 * = code. Written here and nowhere else. Success bodies are assembled as text around rows the
 * operations have already serialised (or cached as bytes), so rows are spliced in, never
 * parsed and written again; member order is the contract's: fields, items, then the rest.
 */
import type { JsonPiece } from './jsonPieces.js';

export const JSON_TYPE = 'application/json; charset=utf-8';

/** A failure: `data` is null. */
export function errorEnvelope(code: number, message: string): string {
  return JSON.stringify({ code, message, data: null });
}

function head(message: string, fields: readonly string[]): string {
  return `{"code":200,"message":${JSON.stringify(message)},"data":{"fields":${JSON.stringify(fields)},"items":[`;
}

/** `rest`: the members of `data` after `items`, as JSON text starting with a comma, or ''. */
function tail(rest: string): string {
  return `]${rest}}}`;
}

/** A success (or no-data) envelope around rows given as JSON text `[…],[…]`. */
export function successText(message: string, fields: readonly string[], itemsText: string, rest = ''): string {
  return head(message, fields) + itemsText + tail(rest);
}

/** The same around rows given as UTF-8 pieces, written in order without being copied together. */
export function successPieces(message: string, fields: readonly string[], items: readonly JsonPiece[], rest = ''): JsonPiece[] {
  return [Buffer.from(head(message, fields)), ...items, Buffer.from(tail(rest))];
}

/** A success whose `data` is a plain object (the account page), not rows. */
export function successData(data: unknown): string {
  return JSON.stringify({ code: 200, message: 'success', data });
}
