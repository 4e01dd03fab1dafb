/**
 * The datasets' fields, in the contract's order (api-contract: Detailed history; Trades and orders for trade and order), with their
 * types. This one definition drives feed validation, staging, the Parquet writer, and the
 * server's `fields` handling.
 */
export type Dataset = 'level2' | 'index' | 'trade' | 'order';
export const DATASETS: readonly Dataset[] = ['level2', 'index', 'trade', 'order'];

/**
 * `string` columns are the key columns (symbol, tradedate, time). Every other column is a
 * value: a nullable number (`double`, `int64`) or a `code`, a one-letter string from a fixed
 * set (bs_flag, side, …). Codes travel through ingestion as their character code in the
 * numeric value slots, so staging keeps one fixed-size record layout; the Parquet writer turns
 * them back into dictionary-encoded strings.
 */
export type FieldType = 'string' | 'double' | 'int64' | 'code';

export interface FieldDef {
  readonly name: string;
  readonly type: FieldType;
  /** A `code` field's letters. */
  readonly codes?: string;
  /** A value that must be present: a row without it is rejected, not stored with null. */
  readonly required?: boolean;
}

function levels(prefix: string, n: number, type: FieldType): FieldDef[] {
  return Array.from({ length: n }, (_, i) => ({ name: `${prefix}${i + 1}`, type }));
}

function bookFields(depth: number): FieldDef[] {
  return [...levels('bid', depth, 'double'), ...levels('ask', depth, 'double'), ...levels('bid_vol', depth, 'double'), ...levels('ask_vol', depth, 'double')];
}

export const LEVEL2_FIELDS: readonly FieldDef[] = [
  { name: 'symbol', type: 'string' },
  { name: 'tradedate', type: 'string' },
  { name: 'time', type: 'string' },
  ...['open', 'high', 'low', 'close', 'pre_close', 'volume', 'amount'].map((name): FieldDef => ({ name, type: 'double' })),
  ...bookFields(10),
];

export const INDEX_FIELDS: readonly FieldDef[] = [
  { name: 'tradedate', type: 'string' },
  { name: 'symbol', type: 'string' },
  { name: 'time', type: 'string' },
  ...['open', 'high', 'low', 'close', 'pre_close', 'pct_chg', 'vol', 'amount'].map((name): FieldDef => ({ name, type: 'double' })),
  { name: 'transaction_num', type: 'int64' },
  ...bookFields(5),
];

/** The fields a trade and an order begin with: the key, the event's id (`idName`), then price, volume and amount. */
function eventFields(idName: string): FieldDef[] {
  return [
    { name: 'symbol', type: 'string' },
    { name: 'tradedate', type: 'string' },
    { name: 'time', type: 'string' },
    { name: idName, type: 'int64', required: true },
    { name: 'price', type: 'double' },
    { name: 'volume', type: 'double' },
    { name: 'amount', type: 'double' },
  ];
}

export const TRADE_FIELDS: readonly FieldDef[] = [
  ...eventFields('trade_id'),
  { name: 'bs_flag', type: 'code', codes: 'BSN' },
  { name: 'trade_code', type: 'code', codes: 'FC' },
  { name: 'buy_order_id', type: 'int64' },
  { name: 'sell_order_id', type: 'int64' },
];

export const ORDER_FIELDS: readonly FieldDef[] = [
  ...eventFields('order_id'),
  { name: 'side', type: 'code', codes: 'BS', required: true },
  { name: 'order_type', type: 'code', codes: 'LMUD', required: true },
  { name: 'order_no', type: 'int64' },
];

/** Index fields the service always reports as null, whatever the feed carried (api-contract: tick_history). */
export const INDEX_ALWAYS_NULL: readonly string[] = ['pre_close', 'pct_chg'];

export interface DatasetSchema {
  readonly dataset: Dataset;
  readonly fields: readonly FieldDef[];
  readonly fieldNames: readonly string[];
  /** Position of each field in `fields`. */
  readonly position: ReadonlyMap<string, number>;
  /** The value (non-key) fields, in order: the layout of a staged row's values. */
  readonly valueFields: readonly FieldDef[];
  /** Stocks (level2, trade, order) or indexes: which symbol forms the dataset takes. */
  readonly symbols: 'stock' | 'index';
  /** How `time` is written: `HHMMSSmmm`, or the index form `YYYY-MM-DD HH:mm:ss.SSS`. */
  readonly timeForm: 'level2' | 'index';
  /**
   * Tick-by-tick datasets: the position in `valueFields` of the record's id. Rows are then
   * one per id (duplicates decided by id, not time: many records share a millisecond) and
   * ordered by time, then id. Snapshot datasets have none: one row per time.
   */
  readonly idValue: number | null;
  /** Rows per Parquet row group: the server starts pages and time windows at their boundaries. */
  readonly rowGroupSize: number;
}

function makeSchema(
  dataset: Dataset,
  fields: readonly FieldDef[],
  symbols: 'stock' | 'index',
  timeForm: 'level2' | 'index',
  rowGroupSize: number,
  idField?: string,
): DatasetSchema {
  const valueFields = fields.filter((f) => f.type !== 'string');
  return {
    dataset,
    fields,
    fieldNames: fields.map((f) => f.name),
    position: new Map(fields.map((f, i) => [f.name, i])),
    valueFields,
    symbols,
    timeForm,
    idValue: idField === undefined ? null : valueFields.findIndex((f) => f.name === idField),
    rowGroupSize,
  };
}

// Row groups: level2 a quarter of a day's ~4,800 snapshots, index a tenth of its ~4,000; the
// tick-by-tick datasets hold thousands to hundreds of thousands of rows a day, and a page of
// them is up to 10,000 rows.
export const SCHEMAS: Readonly<Record<Dataset, DatasetSchema>> = {
  level2: makeSchema('level2', LEVEL2_FIELDS, 'stock', 'level2', 1200),
  index: makeSchema('index', INDEX_FIELDS, 'index', 'index', 480),
  trade: makeSchema('trade', TRADE_FIELDS, 'stock', 'level2', 4096, 'trade_id'),
  order: makeSchema('order', ORDER_FIELDS, 'stock', 'level2', 4096, 'order_id'),
};

/** A code field's letter as the number ingestion carries it (its character code). */
export function codeValue(letter: string): number {
  return letter.charCodeAt(0);
}

/** The letter a carried code value stands for. */
export function codeLetter(value: number): string {
  return String.fromCharCode(value);
}

/**
 * One validated row (a snapshot, trade or order): key columns plus values in `valueFields`
 * order (codes as character codes), with null for a missing value. `timeMs` is milliseconds since midnight (exchange local time).
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
