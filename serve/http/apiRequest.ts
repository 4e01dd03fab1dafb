/**
 * The common request body (api-contract: Request bodies: apiname, apikey, fields, params), validated. Unknown
 * members are rejected (api-contract: Envelope) so a misspelling never silently changes a query.
 */
import type { DatasetSchema } from '../../shared/schema.js';
import { badRequest } from './apiError.js';
import { excerpt } from './valueExcerpt.js';

export interface ApiRequest {
  readonly apiname: string;
  readonly apikey: string | undefined;
  readonly fields: string | null | undefined;
  readonly params: Readonly<Record<string, unknown>>;
}

const BODY_MEMBERS = new Set(['apiname', 'apikey', 'fields', 'params']);

export function parseApiRequest(body: unknown, knownApinames: ReadonlySet<string>): ApiRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('request body must be a JSON object');
  const b = body as Record<string, unknown>;
  for (const k of Object.keys(b)) if (!BODY_MEMBERS.has(k)) throw badRequest(`unknown body member ${excerpt(k)}`);
  if (b.apiname === undefined) throw badRequest('apiname is required');
  if (typeof b.apiname !== 'string' || !knownApinames.has(b.apiname)) {
    throw badRequest(`apiname must be one of ${[...knownApinames].join(', ')}`);
  }
  if (b.apikey !== undefined && typeof b.apikey !== 'string') throw badRequest('apikey must be a string');
  if (b.fields !== undefined && b.fields !== null && typeof b.fields !== 'string') {
    throw badRequest('fields must be a comma-separated string or null');
  }
  if (b.params === undefined) throw badRequest('params is required');
  if (typeof b.params !== 'object' || b.params === null || Array.isArray(b.params)) throw badRequest('params must be an object');
  return {
    apiname: b.apiname,
    apikey: b.apikey as string | undefined,
    fields: b.fields as string | null | undefined,
    params: b.params as Record<string, unknown>,
  };
}

/** Rejects any params member not in `allowed`, naming it. */
export function checkParamNames(params: Readonly<Record<string, unknown>>, allowed: ReadonlySet<string>): void {
  for (const k of Object.keys(params)) {
    if (!allowed.has(k)) throw badRequest(`unknown parameter params.${k.length > 40 ? `${k.slice(0, 40)}…` : k}`);
  }
}

/**
 * `fields` (api-contract: Envelope): given, exactly those columns in the order named, duplicates
 * removed, an unknown name a 400; omitted, null or empty, every field in the contract's order.
 * Returns field positions in the schema.
 */
export function selectFields(fields: string | null | undefined, schema: Pick<DatasetSchema, 'fieldNames' | 'position'>): number[] {
  if (fields === undefined || fields === null || fields.trim() === '') return schema.fieldNames.map((_, i) => i);
  const out: number[] = [];
  const seen = new Set<number>();
  for (const raw of fields.split(',')) {
    const name = raw.trim();
    if (name === '') continue;
    const pos = schema.position.get(name);
    if (pos === undefined) throw badRequest(`fields names unknown field ${excerpt(name)}`);
    if (!seen.has(pos)) {
      seen.add(pos);
      out.push(pos);
    }
  }
  if (out.length === 0) return schema.fieldNames.map((_, i) => i);
  return out;
}
