/**
 * Turns one Kafka message of a snapshot topic into a validated row or a reject reason
 * (api-contract: The feed). The topic gives the dataset; the key must name the same symbol as the value.
 *
 * `tickvault produce` publishes a feed line that has no usable kind (not JSON, not an object,
 * kind missing or unknown) unchanged to the level2 topic with the header REJECT_HEADER holding
 * the reason the replay path would give; such a message is quarantined with that reason, so
 * a produced feed is quarantined exactly as its replay would be.
 */
import type { IHeaders } from 'kafkajs';
import { SCHEMAS, type Dataset } from '../../shared/schema.js';
import { parseIndexSymbol, parseStockSymbol } from '../../shared/symbols.js';
import { validateSnapshot, type ValidationResult } from '../staging/validate.js';

export const REJECT_HEADER = 'tickvault-reject';

export interface SnapshotMessage {
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers?: IHeaders;
}

const reject = (reason: string): ValidationResult => ({ ok: false, reason });

function headerText(headers: IHeaders | undefined, name: string): string | null {
  const h = headers?.[name];
  if (h === undefined) return null;
  const first = Array.isArray(h) ? h[0] : h;
  return first === undefined ? null : first.toString();
}

/** Canonical symbols of message keys seen so far: keys repeat, parsing them once is enough. */
export class KeyCanon {
  private readonly cache = new Map<string, string | null>();

  constructor(private readonly dataset: Dataset) {}

  canonical(key: string): string | null {
    let c = this.cache.get(key);
    if (c === undefined) {
      const r = SCHEMAS[this.dataset].symbols === 'stock' ? parseStockSymbol(key) : parseIndexSymbol(key);
      c = r.ok ? r.symbol : null;
      // Keys come from outside: bound the cache so a stream of junk keys cannot grow it.
      if (this.cache.size >= 100_000) this.cache.clear();
      this.cache.set(key, c);
    }
    return c;
  }
}

export function decodeSnapshotMessage(msg: SnapshotMessage, dataset: Dataset, keys: KeyCanon): ValidationResult {
  return decodeSnapshotText(
    msg.key === null ? null : msg.key.toString('utf8'),
    msg.value === null ? null : msg.value.toString('utf8'),
    headerText(msg.headers, REJECT_HEADER),
    dataset,
    keys,
  );
}

/** The same on decoded text: `flagged` is the REJECT_HEADER value, if any. */
export function decodeSnapshotText(
  keyText: string | null,
  valueText: string | null,
  flagged: string | null,
  dataset: Dataset,
  keys: KeyCanon,
): ValidationResult {
  if (flagged !== null) return reject(flagged);
  if (valueText === null) return reject('message has no value');
  let obj: unknown;
  try {
    obj = JSON.parse(valueText);
  } catch {
    return reject('not JSON');
  }
  if (typeof obj === 'object' && obj !== null && !Array.isArray(obj)) {
    // Values carry no kind; one that does must agree with its topic.
    const kind = (obj as Record<string, unknown>).kind;
    if (kind !== undefined && kind !== dataset) {
      return reject(`kind ${JSON.stringify(kind).slice(0, 40)} does not match the ${dataset} topic`);
    }
  }
  const v = validateSnapshot(obj, dataset);
  if (!v.ok) return v;
  if (keyText === null) return reject('key is missing (it must be the symbol)');
  const canon = keys.canonical(keyText);
  if (canon !== v.row.symbol) {
    return reject(`key ${JSON.stringify(keyText.slice(0, 40))} does not match symbol ${v.row.symbol}`);
  }
  return v;
}

/** The REJECT_HEADER value of a message, or null. */
export function rejectHeaderOf(headers: IHeaders | undefined): string | null {
  return headerText(headers, REJECT_HEADER);
}
