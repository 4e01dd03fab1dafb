/**
 * One definition of the state tables (serve/access/stateTables.ts), and both databases held to
 * it: service.db as SQLite makes it, and a real PostgreSQL after its migrations. A column
 * added to one and not the other, a type or a key that drifts, fails here.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import pg from 'pg';
import { openServiceDb } from '../../../serve/access/serviceDb.js';
import { PostgresStateStore } from '../../../serve/access/postgresState.js';
import { POSTGRES_TYPE, sqliteColumnName, sqliteType, STATE_TABLES } from '../../../serve/access/stateTables.js';
import { postgresForTests } from '../../support/postgres.js';
import { tempDir } from '../../support/tempDir.js';

interface SeenColumn {
  readonly name: string;
  readonly type: string;
  readonly nullable: boolean;
}
interface SeenTable {
  readonly columns: SeenColumn[];
  readonly primaryKey: string[];
  readonly indexes: string[];
}

// Started before the suite (a skip line when PostgreSQL is missing, a failure under CI=true).
const cluster = await postgresForTests('the state tables on PostgreSQL');
const t = suite('state tables: one definition');
t.after(async () => {
  await cluster?.stop();
});

t('service.db holds exactly the defined tables, columns, types, nullability, keys and indexes', () => {
  const db = openServiceDb(join(tempDir(), 'service.db'));
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[];
    const want = STATE_TABLES.filter((x) => !x.postgresOnly);
    assert.equal(tables, want.map((x) => x.name).sort());
    for (const table of want) {
      const info = db.prepare('SELECT name, type, "notnull" AS required, pk FROM pragma_table_info(?) ORDER BY cid').all(table.name) as {
        name: string;
        type: string;
        required: number;
        pk: number;
      }[];
      const seen: SeenTable = {
        columns: info.map((c) => ({ name: c.name, type: c.type, nullable: c.required === 0 && c.pk === 0 })),
        primaryKey: info
          .filter((c) => c.pk > 0)
          .sort((a, b) => a.pk - b.pk)
          .map((c) => c.name),
        indexes: db.prepare("SELECT name FROM pragma_index_list(?) WHERE origin = 'c' ORDER BY name").pluck().all(table.name) as string[],
      };
      assert.equal(
        seen,
        {
          columns: table.columns.map((c) => ({
            name: sqliteColumnName(c),
            type: sqliteType(c),
            nullable: c.nullable === true,
          })),
          primaryKey: table.primaryKey.map((k) => sqliteColumnName(table.columns.find((c) => c.name === k)!)),
          indexes: (table.indexes ?? []).map((ix) => ix.name).sort(),
        },
        table.name,
      );
    }
  } finally {
    db.close();
  }
});

if (cluster) {
  t('PostgreSQL after its migrations holds every defined table as defined', async () => {
    const url = await cluster.createDatabase();
    const store = await PostgresStateStore.open({ url });
    await store.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      for (const table of STATE_TABLES) {
        const cols = await client.query<{ column_name: string; data_type: string; is_nullable: string }>(
          `SELECT column_name, data_type, is_nullable FROM information_schema.columns
            WHERE table_schema = 'tickvault' AND table_name = $1 ORDER BY ordinal_position`,
          [table.name],
        );
        const pk = await client.query<{ attname: string }>(
          `SELECT a.attname FROM pg_index i
             JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, n) ON true
             JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
            WHERE i.indrelid = $1::regclass AND i.indisprimary ORDER BY k.n`,
          [`tickvault.${table.name}`],
        );
        const idx = await client.query<{ indexname: string }>(
          `SELECT indexname FROM pg_indexes WHERE schemaname = 'tickvault' AND tablename = $1 AND indexname NOT LIKE '%_pkey' ORDER BY indexname`,
          [table.name],
        );
        const seen: SeenTable = {
          columns: cols.rows.map((c) => ({ name: c.column_name, type: c.data_type, nullable: c.is_nullable === 'YES' })),
          primaryKey: pk.rows.map((r) => r.attname),
          indexes: idx.rows.map((r) => r.indexname),
        };
        assert.equal(
          seen,
          {
            columns: table.columns.map((c) => ({ name: c.name, type: POSTGRES_TYPE[c.type], nullable: c.nullable === true })),
            primaryKey: [...table.primaryKey],
            indexes: (table.indexes ?? []).map((ix) => ix.name).sort(),
          },
          table.name,
        );
      }
    } finally {
      await client.end();
    }
  });
}

t.run();
