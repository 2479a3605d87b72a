import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresPool } from '../../src/db/dialect.js';
import { migratePostgres, POSTGRES_MIGRATIONS } from '../../src/db/migrate-postgres.js';
import { BACKEND_MIGRATIONS, openDatabase, type Database } from '../../src/db/open-database.js';
import { stopTestPostgres, testDatabase } from '../helpers/postgres.js';

/**
 * The two engines' schemas, read from their catalogs after every migration ran, in one shape:
 * tables with their columns (name, nullability, type family), keys, foreign keys, indexes
 * (name, columns with direction, uniqueness, condition) and triggers. A SQLite migration
 * without its PostgreSQL twin (or a twin that differs) makes the two unequal.
 */
interface Schema {
  [table: string]: {
    columns: string[];
    primaryKey: string[];
    unique: string[][];
    foreignKeys: string[];
    indexes: string[];
    triggers: string[];
  };
}

const sqliteFamily: Record<string, string> = { TEXT: 'text', INTEGER: 'integer', REAL: 'double' };
// PostgreSQL's `real` is a 4-byte float, not SQLite's 8-byte REAL: it keeps its own name and shows up as a mismatch.
const postgresFamily: Record<string, string> = { text: 'text', integer: 'integer', bigint: 'integer', smallint: 'integer', 'double precision': 'double' };

/** An index condition with the spelling differences of the two catalogs taken out. */
const condition = (text: string | null) => (text ? ` where ${text.replace(/::text/g, '').replace(/[()]/g, '').replace(/\s+/g, ' ').trim().toLowerCase()}` : '');

function readSqlite(db: Database): Schema {
  const schema: Schema = {};
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[];
  for (const table of tables) {
    const columns = db.prepare<[string], { name: string; type: string; notnull: number; pk: number }>('SELECT name, type, "notnull", pk FROM pragma_table_info(?)').all(table);
    const indexList = db.prepare<[string], { name: string; unique: number; origin: string; partial: number }>('SELECT name, "unique", origin, partial FROM pragma_index_list(?)').all(table);
    const keyColumns = (index: string) => (db.prepare<[string], { name: string; desc: number }>('SELECT name, "desc" FROM pragma_index_xinfo(?) WHERE key = 1 ORDER BY seqno').all(index));
    schema[table] = {
      // SQLite reports a text primary key as nullable; STRICT tables and PostgreSQL both refuse NULL there.
      columns: columns.map((c) => `${c.name} ${sqliteFamily[c.type] ?? c.type}${c.notnull || c.pk ? ' not null' : ''}`).sort(),
      primaryKey: columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name),
      unique: indexList.filter((i) => i.origin === 'u').map((i) => keyColumns(i.name).map((c) => c.name)).sort(),
      foreignKeys: (db.prepare<[string], { table: string; from: string; to: string; on_delete: string }>('SELECT "table", "from", "to", on_delete FROM pragma_foreign_key_list(?)').all(table))
        .map((fk) => `${fk.from} -> ${fk.table}.${fk.to} on delete ${fk.on_delete.toLowerCase()}`).sort(),
      indexes: indexList.filter((i) => i.origin === 'c').map((i) => {
        const sql = db.prepare<[string], string>("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?").pluck().get(i.name)!;
        const where = i.partial ? sql.slice(sql.search(/\bWHERE\b/i) + 'WHERE'.length) : null;
        return `${i.unique ? 'unique ' : ''}${i.name} (${keyColumns(i.name).map((c) => c.name + (c.desc ? ' desc' : '')).join(', ')})${condition(where)}`;
      }).sort(),
      triggers: (db.prepare<[string], string>("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ? ORDER BY name").pluck().all(table)),
    };
  }
  return schema;
}

async function readPostgres(pool: pg.Pool): Promise<Schema> {
  const rows = async <T extends pg.QueryResultRow>(text: string, values: unknown[] = []) => (await pool.query<T>(text, values)).rows;
  const schema: Schema = {};
  const tables = await rows<{ name: string }>("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1");
  for (const { name: table } of tables) {
    const columns = await rows<{ name: string; type: string; nullable: string; collation: string | null }>(
      `SELECT column_name AS name, data_type AS type, is_nullable AS nullable, collation_name AS collation
         FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1`, [table]);
    const constraintColumns = async (type: string) => (await rows<{ columns: string[] }>(
      `SELECT array_agg(a.attname::text ORDER BY k.ord) AS columns
         FROM pg_constraint c CROSS JOIN unnest(c.conkey) WITH ORDINALITY AS k(attnum, ord)
         JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum
        WHERE c.conrelid = $1::regclass AND c.contype = $2 GROUP BY c.oid`, [table, type])).map((r) => r.columns);
    const foreignKeys = await rows<{ text: string }>(
      `SELECT format('%s -> %s.%s on delete %s', a.attname, c.confrelid::regclass, f.attname,
                     CASE c.confdeltype WHEN 'c' THEN 'cascade' WHEN 'n' THEN 'set null' WHEN 'r' THEN 'restrict' ELSE 'no action' END) AS text
         FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
         JOIN pg_attribute f ON f.attrelid = c.confrelid AND f.attnum = c.confkey[1]
        WHERE c.conrelid = $1::regclass AND c.contype = 'f'`, [table]);
    const indexes = await rows<{ name: string; unique: boolean; columns: string[]; predicate: string | null }>(
      `SELECT i.relname AS name, x.indisunique AS unique, pg_get_expr(x.indpred, x.indrelid) AS predicate,
              array(SELECT pg_get_indexdef(x.indexrelid, k, true) || CASE WHEN x.indoption[k - 1] & 1 = 1 THEN ' desc' ELSE '' END
                      FROM generate_series(1, x.indnkeyatts) AS k ORDER BY k) AS columns
         FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
        WHERE x.indrelid = $1::regclass AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)`, [table]);
    const triggers = await rows<{ name: string }>('SELECT tgname AS name FROM pg_trigger WHERE tgrelid = $1::regclass AND NOT tgisinternal ORDER BY 1', [table]);
    schema[table] = {
      columns: columns.map((c) => `${c.name} ${postgresFamily[c.type] ?? c.type}${c.nullable === 'NO' ? ' not null' : ''}`).sort(),
      primaryKey: (await constraintColumns('p'))[0] ?? [],
      unique: (await constraintColumns('u')).sort(),
      foreignKeys: foreignKeys.map((r) => r.text).sort(),
      indexes: indexes.map((i) => `${i.unique ? 'unique ' : ''}${i.name} (${i.columns.join(', ').replace(/"/g, '')})${condition(i.predicate)}`).sort(),
      triggers: triggers.map((t) => t.name),
    };
  }
  return schema;
}

describe('the PostgreSQL schema', () => {
  const dir = mkdtempSync(join(tmpdir(), 'evb-schema-'));
  let sqlite: Database;
  let pool: pg.Pool;

  beforeAll(async () => {
    sqlite = openDatabase(join(dir, 'backend.sqlite'));
    pool = postgresPool({ connectionString: await testDatabase() });
    await migratePostgres(pool);
  });
  afterAll(async () => {
    sqlite?.close();
    await pool?.end();
    await stopTestPostgres();
    rmSync(dir, { recursive: true, force: true });
  });

  it('has a twin, same number and name, for every SQLite migration', () => {
    const twins = new Set(readdirSync(POSTGRES_MIGRATIONS));
    const missing = readdirSync(BACKEND_MIGRATIONS).filter((name) => name.endsWith('.sql') && !twins.has(name));
    expect(missing, 'SQLite migrations without a file of the same name in src/db/migrations-postgres/').toEqual([]);
  });

  it('has the tables, columns, keys, indexes and triggers of the SQLite schema', async () => {
    const expected = readSqlite(sqlite);
    const actual = await readPostgres(pool);
    expect(actual).toEqual(expected);
  });

  it('sorts and compares every text column in byte order, as SQLite does', async () => {
    const { rows } = await pool.query<{ column: string }>(
      `SELECT table_name || '.' || column_name AS column FROM information_schema.columns
        WHERE table_schema = 'public' AND data_type = 'text' AND collation_name IS DISTINCT FROM 'C'`);
    expect(rows.map((r) => r.column)).toEqual([]);
  });
});
