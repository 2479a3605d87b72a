import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { maskPostgresUrl } from '../db/store-copy/store-location.js';
import { ImportRefused } from './import-refused.js';

/** A source row by column name, as its driver gave it (booleans may be 0/1 or true/false). */
export type SourceRow = Record<string, unknown>;

/**
 * The original's database (or its auth service's), read only and in one snapshot: every read
 * below sees the same store, whatever the original writes meanwhile. Never migrated, never
 * written.
 */
export interface SourceDb {
  readonly engine: 'sqlite' | 'postgres';
  /** Where it is, password masked: safe to print. */
  readonly label: string;
  tables(): Promise<string[]>;
  columns(table: string): Promise<string[]>;
  /** A small read (the migration table); `?` placeholders on both engines. */
  all(sql: string, params?: unknown[]): Promise<SourceRow[]>;
  count(table: string): Promise<number>;
  /** The table's rows by key (keyset pages of at most `size`), never the whole table at once. */
  pages(table: string, key: readonly string[], size: number): AsyncIterable<SourceRow[]>;
  close(): Promise<void>;
}

const POSTGRES_URL = /^postgres(ql)?:\/\//i;
const INT8_OID = 20;
export const quoteName = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Opens `--from` or `--auth-from`: a `postgres://` URL, or else a SQLite file path. */
export async function openSource(location: string): Promise<SourceDb> {
  return POSTGRES_URL.test(location) ? postgresSource(location) : sqliteSource(location);
}

function sqliteSource(file: string): SourceDb {
  let db: BetterSqlite3.Database;
  try {
    db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
    // A read transaction is one snapshot (in WAL mode), and a shared lock otherwise: the original's writes wait or stay unseen.
    db.exec('BEGIN');
    db.prepare('SELECT count(*) FROM sqlite_master').get();
  } catch (error) {
    throw new ImportRefused(`${file} cannot be read as a SQLite database: ${(error as Error).message}.`, { cause: error });
  }
  const run = <T>(what: string, work: () => T): T => {
    try {
      return work();
    } catch (error) {
      throw new ImportRefused(`${file}: reading ${what} failed (${(error as Error).message}); the file may be truncated or corrupt.`, { cause: error });
    }
  };
  return {
    engine: 'sqlite',
    label: file,
    tables: async () =>
      run('its tables', () => db.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name").pluck().all()),
    columns: async (table) => run(`the columns of ${table}`, () => db.prepare<[string], string>('SELECT name FROM pragma_table_info(?) ORDER BY cid').pluck().all(table)),
    all: async (sql, params = []) => run('the migration table', () => db.prepare(sql).all(...params) as SourceRow[]),
    count: async (table) => run(`table ${table}`, () => Number(db.prepare(`SELECT count(*) FROM ${quoteName(table)}`).pluck().get())),
    async *pages(table, key, size) {
      const keys = key.map(quoteName);
      const select = `SELECT * FROM ${quoteName(table)}`;
      const order = `ORDER BY ${keys.join(', ')} LIMIT ${size}`;
      const first = run(`table ${table}`, () => db.prepare(`${select} ${order}`));
      const next = run(`table ${table}`, () => db.prepare(`${select} WHERE (${keys.join(', ')}) > (${keys.map(() => '?').join(', ')}) ${order}`));
      let after: unknown[] | null = null;
      for (;;) {
        const rows = run(`table ${table}`, () => (after === null ? first.all() : next.all(...after)) as SourceRow[]);
        if (rows.length === 0) return;
        const last = rows[rows.length - 1]!;
        after = key.map((column) => last[column]);
        yield rows;
        if (rows.length < size) return;
      }
    },
    async close() {
      if (db.inTransaction) db.exec('ROLLBACK');
      db.close();
    },
  };
}

/** `?` placeholders as PostgreSQL's `$n`. */
const numbered = (sql: string) => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

async function postgresSource(url: string): Promise<SourceDb> {
  const label = maskPostgresUrl(url);
  // int8 as a number, refused past 2^53 rather than rounded.
  const getTypeParser = ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID
      ? (text: string) => {
          const value = Number(text);
          if (!Number.isSafeInteger(value)) throw new ImportRefused(`${label}: the integer ${text} is past 2^53 and cannot be imported exactly.`);
          return value;
        }
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser;
  const client = new pg.Client({ connectionString: url, types: { getTypeParser }, connectionTimeoutMillis: 10_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  } catch (error) {
    await client.end().catch(() => {});
    throw new ImportRefused(`${label} cannot be read: ${(error as Error).message.replaceAll(url, label)}.`, { cause: error });
  }
  const query = async (what: string, text: string, values: unknown[] = []): Promise<SourceRow[]> => {
    try {
      return (await client.query<SourceRow>({ text: numbered(text), values })).rows;
    } catch (error) {
      if (error instanceof ImportRefused) throw error;
      throw new ImportRefused(`${label}: reading ${what} failed (${(error as Error).message}).`, { cause: error });
    }
  };
  return {
    engine: 'postgres',
    label,
    tables: async () =>
      (await query('its tables', "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1")).map((row) => String(row.name)),
    columns: async (table) =>
      (await query(`the columns of ${table}`, 'SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position', [table])).map((row) => String(row.name)),
    all: (sql, params) => query('the migration table', sql, params),
    count: async (table) => Number((await query(`table ${table}`, `SELECT count(*) AS n FROM ${quoteName(table)}`))[0]!.n),
    async *pages(table, key, size) {
      // The columns' own types and collation: ORDER BY and the row comparison agree, which is all keyset paging needs.
      const keys = key.map(quoteName);
      const select = `SELECT * FROM ${quoteName(table)}`;
      const order = `ORDER BY ${keys.join(', ')} LIMIT ${size}`;
      let after: unknown[] | null = null;
      for (;;) {
        const rows: SourceRow[] = after === null
          ? await query(`table ${table}`, `${select} ${order}`)
          : await query(`table ${table}`, `${select} WHERE (${keys.join(', ')}) > (${keys.map(() => '?').join(', ')}) ${order}`, after);
        if (rows.length === 0) return;
        const last: SourceRow = rows[rows.length - 1]!;
        after = key.map((column): unknown => last[column]);
        yield rows;
        if (rows.length < size) return;
      }
    },
    async close() {
      await client.query('ROLLBACK').catch(() => {});
      await client.end().catch(() => {});
    },
  };
}
