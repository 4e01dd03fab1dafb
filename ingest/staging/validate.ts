import { INDEX_ALWAYS_NULL, SCHEMAS, type Dataset, type SnapshotRow } from '../../shared/schema.js';
import { parseIndexSymbol, parseStockSymbol } from '../../shared/symbols.js';
import { isValidDateText, parseIndexTime, parseLevel2Time } from '../../shared/timeFormat.js';

/**
 * Turns one decoded feed object into a validated row, or names exactly why it is rejected
 * (decisions §6). Pure: the caller decides where rejects go (quarantine).
 */
export type ValidationResult = { ok: true; row: SnapshotRow } | { ok: false; reason: string };

const reject = (reason: string): ValidationResult => ({ ok: false, reason });

const indexNullPositions = new Set(
  SCHEMAS.index.numericFields.map((f, i) => (INDEX_ALWAYS_NULL.includes(f.name) ? i : -1)).filter((i) => i >= 0),
);

export function validateSnapshot(obj: unknown, dataset: Dataset): ValidationResult {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return reject('message is not a JSON object');
  const rec = obj as Record<string, unknown>;
  const values = SCHEMAS[dataset].numericFields.map((f) => rec[f.name]);
  return validateFields(dataset, rec.symbol, rec.tradedate, rec.time, values);
}

/** The checks of decisions §6 on decoded members; `raw` holds numeric members in schema order. */
export function validateFields(dataset: Dataset, symbol: unknown, tradedate: unknown, time: unknown, raw: readonly unknown[]): ValidationResult {
  const sym = dataset === 'level2' ? parseStockSymbol(symbol) : parseIndexSymbol(symbol);
  if (!sym.ok) return reject(symbol === undefined ? 'symbol is missing' : `symbol ${sym.reason}`);
  if (tradedate === undefined) return reject('tradedate is missing');
  if (!isValidDateText(tradedate)) return reject('tradedate is not a valid YYYYMMDD date');
  if (time === undefined) return reject('time is missing');
  let timeMs: number;
  if (dataset === 'level2') {
    const t = parseLevel2Time(time);
    if (t === null) return reject('time is not HHMMSSmmm');
    timeMs = t;
  } else {
    const t = parseIndexTime(time);
    if (t === null) return reject('time is not YYYY-MM-DD HH:mm:ss.SSS');
    if (t.date !== tradedate) return reject(`time date ${t.date} does not match tradedate ${tradedate}`);
    timeMs = t.ms;
  }
  const fields = SCHEMAS[dataset].numericFields;
  const values: (number | null)[] = new Array(fields.length);
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i];
    const v = raw[i];
    if (v === undefined || v === null) {
      values[i] = null;
    } else if (typeof v !== 'number' || !Number.isFinite(v)) {
      return reject(`${f.name} is not a number`);
    } else if (f.type === 'int64' && !Number.isSafeInteger(v)) {
      return reject(`${f.name} is not an integer`);
    } else {
      values[i] = v;
    }
  }
  if (dataset === 'index') for (const i of indexNullPositions) values[i] = null;
  return { ok: true, row: { dataset, symbol: sym.symbol, tradedate, timeMs, values } };
}

/** A fixture-feed line: the snapshot object plus `"kind": "level2" | "index"`. */
export function validateFeedLine(line: string): ValidationResult {
  let obj: unknown;
  try {
    obj = JSON.parse(line);
  } catch {
    return reject('not JSON');
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return reject('message is not a JSON object');
  const kind = (obj as Record<string, unknown>).kind;
  if (kind !== 'level2' && kind !== 'index') {
    return reject(kind === undefined ? 'kind is missing' : `unknown kind ${JSON.stringify(kind).slice(0, 40)}`);
  }
  return validateSnapshot(obj, kind);
}
