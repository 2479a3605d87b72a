import type pg from 'pg';
import { storePool } from '../pool-policy.js';
import { migratePostgres } from '../migrate-postgres.js';
import { quote, type ColumnFamily, type Row, type StoreSide, type TableShape, type TargetSide } from './store-side.js';

/**
 * A pool for the copy alone (the `copy` policy): bigint comes back as a JavaScript bigint (the
 * service's pools refuse values past 2^53; a copy must carry them). One connection: each side
 * holds one session.
 */
const copyPool = (url: string): pg.Pool => storePool('copy', { connectionString: url });

const families: Record<string, ColumnFamily> = { bigint: 'integer', integer: 'integer', smallint: 'integer', 'double precision': 'double', text: 'text', bytea: 'blob' };

class PostgresSide implements StoreSide {
  /** Every statement of this side runs on this one session. */
  protected readonly session: pg.PoolClient;

  constructor(readonly label: string, private readonly pool: pg.Pool, session: pg.PoolClient) {
    this.session = session;
  }

  async appliedMigrations() {
    const { rows } = await this.session.query<{ exists: boolean }>("SELECT to_regclass('schema_migrations') IS NOT NULL AS exists");
    if (!rows[0]!.exists) return [];
    return (await this.session.query<{ id: number; name: string }>('SELECT id, name FROM schema_migrations ORDER BY id')).rows;
  }

  async tables(): Promise<TableShape[]> {
    const { rows } = await this.session.query<{ name: string; columns: Array<{ name: string; type: string; identity: boolean }>; key: string[] | null; parents: string[] | null }>(`
      SELECT t.table_name AS name,
             (SELECT json_agg(json_build_object('name', c.column_name, 'type', c.data_type, 'identity', c.is_identity = 'YES') ORDER BY c.ordinal_position)
                FROM information_schema.columns c WHERE c.table_schema = t.table_schema AND c.table_name = t.table_name) AS columns,
             (SELECT array_agg(a.attname::text ORDER BY k.ord)
                FROM pg_constraint p CROSS JOIN unnest(p.conkey) WITH ORDINALITY AS k(attnum, ord)
                JOIN pg_attribute a ON a.attrelid = p.conrelid AND a.attnum = k.attnum
               WHERE p.conrelid = format('%I.%I', t.table_schema, t.table_name)::regclass AND p.contype = 'p') AS key,
             (SELECT array_agg(DISTINCT f.confrelid::regclass::text)
                FROM pg_constraint f
               WHERE f.conrelid = format('%I.%I', t.table_schema, t.table_name)::regclass AND f.contype = 'f' AND f.confrelid <> f.conrelid) AS parents
        FROM information_schema.tables t
       WHERE t.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
       ORDER BY t.table_name`);
    return rows.map((row) => ({
      name: row.name,
      columns: row.columns.map((c) => ({ name: c.name, type: c.type, family: families[c.type] ?? 'text', identity: c.identity })),
      key: row.key ?? [],
      parents: row.parents ?? [],
    }));
  }

  async *batches(table: TableShape, size: number): AsyncIterable<Row[]> {
    const columns = table.columns.map((c) => quote(c.name)).join(', ');
    // A table without a primary key is read by ctid (a TID range scan), stable while nothing writes.
    // Keys compare in byte order, as SQLite's do: the schema's text is COLLATE "C" already.
    const byAddress = table.key.length === 0;
    const key = byAddress ? ['ctid'] : table.key.map((name) => {
      const column = table.columns.find((c) => c.name === name)!;
      return column.family === 'text' ? `${quote(name)} COLLATE "C"` : quote(name);
    });
    // Named apart from ctid: an ORDER BY names an output column first, and a text `ctid` sorts (10,1) before (6,49).
    const select = `SELECT ${byAddress ? 'ctid::text AS row_address, ' : ''}${columns} FROM ${quote(table.name)}`;
    const order = `ORDER BY ${key.join(', ')} LIMIT ${size}`;
    const keyAt = byAddress ? [0] : table.key.map((name) => table.columns.findIndex((c) => c.name === name));
    const placeholders = byAddress ? '$1::tid' : key.map((_, i) => `$${i + 1}`).join(', ');
    let after: unknown[] | null = null;
    for (;;) {
      const text: string = after === null ? `${select} ${order}` : `${select} WHERE (${key.join(', ')}) > (${placeholders}) ${order}`;
      const { rows }: pg.QueryResult<Row> = await this.session.query<Row>({ text, values: after ?? [], rowMode: 'array' });
      if (rows.length === 0) return;
      const last: Row = rows[rows.length - 1]!;
      after = keyAt.map((i) => last[i]);
      yield byAddress ? rows.map((row) => row.slice(1)) : rows;
      if (rows.length < size) return;
    }
  }

  async close() {
    // Ends the source's snapshot; after a target's COMMIT it only draws a notice.
    await this.session.query('ROLLBACK').catch(() => {});
    this.session.release();
    await this.pool.end();
  }
}

class PostgresTarget extends PostgresSide implements TargetSide {
  async begin() {
    await this.session.query('BEGIN');
  }

  async count(table: string) {
    const { rows } = await this.session.query<{ n: bigint }>(`SELECT count(*) AS n FROM ${quote(table)}`);
    return Number(rows[0]!.n);
  }

  async clear(tables: TableShape[]) {
    if (tables.length === 0) return;
    // One TRUNCATE of them all: no order to respect, and no row triggers fire.
    await this.session.query(`TRUNCATE ${tables.map((t) => quote(t.name)).join(', ')}`);
  }

  async insert(table: TableShape, rows: Row[]) {
    if (rows.length === 0) return;
    // One statement per batch: each column travels as one array parameter and unnest turns them back into rows.
    // String(-0) is "0": the sign of a negative zero travels spelled out.
    const arrays = table.columns.map((column, i) =>
      rows.map((row) => (column.family === 'double' && Object.is(row[i], -0) ? '-0' : row[i])));
    // Identity values are copied as they are; OVERRIDING also covers a GENERATED ALWAYS column.
    const overriding = table.columns.some((c) => c.identity) ? 'OVERRIDING SYSTEM VALUE ' : '';
    await this.session.query(
      `INSERT INTO ${quote(table.name)} (${table.columns.map((c) => quote(c.name)).join(', ')}) ${overriding}` +
        `SELECT * FROM unnest(${table.columns.map((column, i) => `$${i + 1}::${column.type}[]`).join(', ')})`,
      arrays,
    );
  }

  async resetIdentities(tables: TableShape[]) {
    for (const table of tables) {
      for (const column of table.columns.filter((c) => c.identity)) {
        // An empty table starts at 1 again (is_called false); otherwise the next value is max + 1.
        await this.session.query(
          `SELECT setval(pg_get_serial_sequence($1, $2), coalesce(max(${quote(column.name)}), 1), max(${quote(column.name)}) IS NOT NULL) FROM ${quote(table.name)}`,
          [quote(table.name), column.name],
        );
      }
    }
  }

  async commit() {
    await this.session.query('COMMIT');
  }

  async rollback() {
    await this.session.query('ROLLBACK');
  }
}

/**
 * A PostgreSQL store to copy from; never migrated (its migrations are checked instead). Read
 * in one read-only snapshot, so every batch sees the same store even if something wrote.
 */
export async function postgresSource(url: string, label: string): Promise<StoreSide> {
  const pool = copyPool(url);
  try {
    const session = await pool.connect();
    await session.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    return new PostgresSide(label, pool, session);
  } catch (error) {
    await pool.end();
    throw error;
  }
}

/** A PostgreSQL store to copy into, migrated by this build (under its advisory lock) before anything is written. */
export async function postgresTarget(url: string, label: string): Promise<TargetSide> {
  const pool = copyPool(url);
  try {
    await migratePostgres(pool);
    return new PostgresTarget(label, pool, await pool.connect());
  } catch (error) {
    await pool.end();
    throw error;
  }
}
