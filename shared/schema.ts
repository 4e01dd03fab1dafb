/**
 * The two datasets' fields, in the spec's order, with their types. This one definition drives
 * feed validation, the Parquet writer, and the server's `fields` handling.
 */
export type Dataset = 'level2' | 'index';
export const DATASETS: readonly Dataset[] = ['level2', 'index'];

/** `string` columns are the key columns; every other column is a nullable number. */
export type FieldType = 'string' | 'double' | 'int64';

export interface FieldDef {
  readonly name: string;
  readonly type: FieldType;
}

function levels(prefix: string, n: number, type: FieldType): FieldDef[] {
  return Array.from({ length: n }, (_, i) => ({ name: `${prefix}${i + 1}`, type }));
}

function bookFields(depth: number): FieldDef[] {
  return [
    ...levels('bid', depth, 'double'),
    ...levels('ask', depth, 'double'),
    ...levels('bid_vol', depth, 'double'),
    ...levels('ask_vol', depth, 'double'),
  ];
}

export const LEVEL2_FIELDS: readonly FieldDef[] = [
  { name: 'symbol', type: 'string' },
  { name: 'tradedate', type: 'string' },
  { name: 'time', type: 'string' },
  ...['open', 'high', 'low', 'close', 'pre_close', 'volume', 'amount'].map(
    (name): FieldDef => ({ name, type: 'double' }),
  ),
  ...bookFields(10),
];

export const INDEX_FIELDS: readonly FieldDef[] = [
  { name: 'tradedate', type: 'string' },
  { name: 'symbol', type: 'string' },
  { name: 'time', type: 'string' },
  ...['open', 'high', 'low', 'close', 'pre_close', 'pct_chg', 'vol', 'amount'].map(
    (name): FieldDef => ({ name, type: 'double' }),
  ),
  { name: 'transaction_num', type: 'int64' },
  ...bookFields(5),
];

/** Index fields the service always reports as null, whatever the feed carried (spec). */
export const INDEX_ALWAYS_NULL: readonly string[] = ['pre_close', 'pct_chg'];

export interface DatasetSchema {
  readonly dataset: Dataset;
  readonly fields: readonly FieldDef[];
  readonly fieldNames: readonly string[];
  /** Position of each field in `fields`. */
  readonly position: ReadonlyMap<string, number>;
  /** The numeric fields, in order: the layout of a staged row's values. */
  readonly numericFields: readonly FieldDef[];
}

function makeSchema(dataset: Dataset, fields: readonly FieldDef[]): DatasetSchema {
  return {
    dataset,
    fields,
    fieldNames: fields.map((f) => f.name),
    position: new Map(fields.map((f, i) => [f.name, i])),
    numericFields: fields.filter((f) => f.type !== 'string'),
  };
}

export const SCHEMAS: Readonly<Record<Dataset, DatasetSchema>> = {
  level2: makeSchema('level2', LEVEL2_FIELDS),
  index: makeSchema('index', INDEX_FIELDS),
};

/**
 * One validated snapshot: key columns plus numeric values in `numericFields` order, with
 * null for a missing value. `timeMs` is milliseconds since midnight (exchange local time).
 */
export interface SnapshotRow {
  readonly dataset: Dataset;
  readonly symbol: string;
  readonly tradedate: string;
  readonly timeMs: number;
  readonly values: readonly (number | null)[];
  /**
   * Arrival order used to resolve duplicates (highest wins). Kafka passes the message offset;
   * omitted, staging uses its own arrival counter.
   */
  readonly seq?: number;
}
