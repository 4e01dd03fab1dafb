/**
 * The rows of a symbol-day's next version (api-contract: Corrections): the current version's
 * rows merged with the correction rows by the dataset's key (time for snapshots, the id for
 * trades and orders; the correction wins, the later of two corrections wins), or the
 * corrections alone (`--replace`); ordered as the seal orders rows (time, then id). Pure: the
 * caller reads the current file and writes the new one.
 */
import { SCHEMAS, type Dataset, type SnapshotRow } from '../../shared/schema.js';
import type { SealedDay } from '../import/sealedRows.js';
import { rowKey } from './corrections.js';

export interface MergedVersion {
  readonly rows: number;
  /** Column-major, as the Parquet writer takes them (NaN = null, codes as char codes). */
  readonly timesMs: Int32Array;
  readonly values: Float64Array[];
  /** Keys the current version had with other values (or another time). */
  readonly changed: number;
  /** Keys the current version lacked. */
  readonly added: number;
  /** Keys of the current version left out (`--replace` only). */
  readonly removed: number;
  /** The new rows equal the current ones: no version to write. */
  readonly unchanged: boolean;
}

interface Row {
  timeMs: number;
  values: Float64Array;
}

export function mergeVersion(dataset: Dataset, current: SealedDay | null, corrections: readonly SnapshotRow[], replace: boolean): MergedVersion {
  const schema = SCHEMAS[dataset];
  const width = schema.valueFields.length;
  const before = new Map<number, Row>();
  if (current !== null) {
    current.values.forEach((values, i) => before.set(rowKey(dataset, current.times[i]!, values), { timeMs: current.times[i]!, values }));
  }
  const after = new Map<number, Row>(replace ? [] : before);
  for (const c of corrections) {
    const values = new Float64Array(width);
    for (let j = 0; j < width; j++) values[j] = c.values[j] ?? NaN;
    after.set(rowKey(dataset, c.timeMs, c.values), { timeMs: c.timeMs, values });
  }
  let changed = 0;
  let added = 0;
  for (const [key, row] of after) {
    const old = before.get(key);
    if (old === undefined) added++;
    else if (!sameRow(old, row)) changed++;
  }
  const removed = replace ? [...before.keys()].filter((k) => !after.has(k)).length : 0;
  const idAt = schema.idValue;
  const rows = [...after.values()].sort((a, b) => a.timeMs - b.timeMs || (idAt === null ? 0 : a.values[idAt]! - b.values[idAt]!));
  const timesMs = Int32Array.from(rows, (r) => r.timeMs);
  const values = Array.from({ length: width }, (_, j) => Float64Array.from(rows, (r) => r.values[j]!));
  return { rows: rows.length, timesMs, values, changed, added, removed, unchanged: changed === 0 && added === 0 && removed === 0 };
}

function sameRow(a: Row, b: Row): boolean {
  if (a.timeMs !== b.timeMs) return false;
  for (let j = 0; j < a.values.length; j++) {
    const x = a.values[j]!;
    const y = b.values[j]!;
    if (x !== y && !(Number.isNaN(x) && Number.isNaN(y))) return false;
  }
  return true;
}
