/**
 * The state tables every server shares, defined once: accounts and keys, per-second windows,
 * daily counts and the one-request slots (api-contract: Plans and limits). SQLite's schema
 * (service.db, serviceDb.ts) is rendered from this; PostgreSQL's is made by numbered
 * migrations (shared/postgres/schema.ts), which must never change once released, so a test
 * (test/serve/access/stateTables.test.ts) holds the tables both databases end up with to this
 * definition instead.
 *
 * The two differ where the databases do, and only there, as the types below say: an instant
 * is epoch milliseconds in SQLite (`NAME_ms INTEGER`, the process clock) and a `timestamptz`
 * in PostgreSQL (`NAME`, the database's clock); an id is SQLite's INTEGER PRIMARY KEY (the
 * rowid) or a bigserial.
 */

/**
 * `id`: the table's own numbered key; `ref`: a number naming an account; `int64`: epoch
 * milliseconds or seconds; `count`: a small count; `instant`: a point in time on the store's
 * clock (see above).
 */
export type ColumnType = 'id' | 'ref' | 'int64' | 'count' | 'text' | 'bytes' | 'instant';

/** PostgreSQL's type of each (as information_schema names it). */
export const POSTGRES_TYPE: Readonly<Record<ColumnType, string>> = {
  id: 'bigint',
  ref: 'bigint',
  int64: 'bigint',
  count: 'integer',
  text: 'text',
  bytes: 'bytea',
  instant: 'timestamp with time zone',
};

export interface StateColumn {
  readonly name: string;
  readonly type: ColumnType;
  readonly nullable?: boolean;
  /** `table(column)` this column references. */
  readonly references?: string;
  /** What it holds, as a comment in SQLite's schema. */
  readonly note?: string;
}

export interface StateTable {
  readonly name: string;
  readonly columns: readonly StateColumn[];
  readonly primaryKey: readonly string[];
  readonly indexes?: readonly { readonly name: string; readonly columns: readonly string[] }[];
  /** PostgreSQL only: SQLite keeps it elsewhere (the cursor key is a file in the data directory). */
  readonly postgresOnly?: boolean;
}

export const STATE_TABLES: readonly StateTable[] = [
  {
    name: 'accounts',
    columns: [
      { name: 'id', type: 'id' },
      { name: 'plan', type: 'text' },
      { name: 'created_at_ms', type: 'int64' },
    ],
    primaryKey: ['id'],
  },
  {
    name: 'api_keys',
    columns: [
      { name: 'key_hash', type: 'text', note: 'hex sha256 of the key; the key itself is never stored' },
      { name: 'account_id', type: 'ref', references: 'accounts(id)' },
      { name: 'hint', type: 'text', note: "first characters of the key, for 'accounts list'" },
      { name: 'created_at_ms', type: 'int64' },
      { name: 'revoked_at_ms', type: 'int64', nullable: true, note: 'null while the key is valid' },
    ],
    primaryKey: ['key_hash'],
    indexes: [{ name: 'api_keys_account', columns: ['account_id'] }],
  },
  {
    name: 'rate_windows',
    columns: [
      { name: 'account_id', type: 'ref', note: 'one fixed one-second window per account' },
      { name: 'second', type: 'int64', note: 'epoch second of the window' },
      { name: 'n', type: 'count', note: 'requests seen in it' },
    ],
    primaryKey: ['account_id'],
  },
  {
    name: 'daily_counts',
    columns: [
      { name: 'account_id', type: 'ref' },
      { name: 'apiname', type: 'text' },
      { name: 'kind', type: 'text', note: "'calls' (trial) or 'parquet'" },
      { name: 'day', type: 'text', note: 'Beijing date YYYYMMDD' },
      { name: 'n', type: 'count' },
    ],
    primaryKey: ['account_id', 'apiname', 'kind', 'day'],
  },
  {
    name: 'slots',
    columns: [
      { name: 'account_id', type: 'ref' },
      { name: 'apiname', type: 'text' },
      { name: 'holder', type: 'text', note: 'unique per request: process id + sequence' },
      { name: 'expires_at', type: 'instant', note: 'lease end; renewed while the holder works' },
    ],
    primaryKey: ['account_id', 'apiname'],
  },
  {
    name: 'secrets',
    columns: [
      { name: 'name', type: 'text' },
      { name: 'value', type: 'bytes' },
    ],
    primaryKey: ['name'],
    postgresOnly: true,
  },
];

/** A column's name in SQLite: an instant is stored as epoch ms, and says so. */
export function sqliteColumnName(c: StateColumn): string {
  return c.type === 'instant' ? `${c.name}_ms` : c.name;
}

/** A column's type in SQLite. */
export function sqliteType(c: StateColumn): 'TEXT' | 'BLOB' | 'INTEGER' {
  return c.type === 'text' ? 'TEXT' : c.type === 'bytes' ? 'BLOB' : 'INTEGER';
}

/** SQLite's schema of the tables (idempotent: CREATE … IF NOT EXISTS). */
export function sqliteStateSchema(tables: readonly StateTable[] = STATE_TABLES): string {
  return tables
    .filter((t) => !t.postgresOnly)
    .map((t) => {
      // A key of one number is SQLite's rowid (INTEGER PRIMARY KEY); any other key is stored by
      // itself (WITHOUT ROWID).
      const keyType = t.primaryKey.length === 1 ? t.columns.find((c) => c.name === t.primaryKey[0])?.type : undefined;
      const idKey = keyType === 'id' || keyType === 'ref';
      const lines = t.columns.map((c) => {
        const type = sqliteType(c);
        const key = idKey && c.name === t.primaryKey[0] ? ' PRIMARY KEY' : '';
        const ref = c.references ? ` REFERENCES ${c.references}` : '';
        const note = c.note ? ` -- ${c.note}` : '';
        return { text: `  ${sqliteColumnName(c)} ${type}${key}${c.nullable || key ? '' : ' NOT NULL'}${ref}`, note };
      });
      if (!idKey) lines.push({ text: `  PRIMARY KEY (${t.primaryKey.join(', ')})`, note: '' });
      const body = lines.map((l, i) => `${l.text}${i < lines.length - 1 ? ',' : ''}${l.note}`).join('\n');
      const create = `CREATE TABLE IF NOT EXISTS ${t.name} (\n${body}\n)${idKey ? '' : ' WITHOUT ROWID'};`;
      const indexes = (t.indexes ?? []).map((ix) => `CREATE INDEX IF NOT EXISTS ${ix.name} ON ${t.name}(${ix.columns.join(', ')});`);
      return [create, ...indexes].join('\n');
    })
    .join('\n');
}
