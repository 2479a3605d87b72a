import BetterSqlite3 from 'better-sqlite3';
import { openDatabase, type Database } from '../open-database.js';
import { quote, type ColumnFamily, type Row, type StoreSide, type TableShape, type TargetSide } from './store-side.js';

/** SQLite's declared types as the schema uses them; anything else by SQLite's own affinity rules. */
function family(declared: string): ColumnFamily {
  const type = declared.toUpperCase();
  if (type.includes('INT')) return 'integer';
  if (type.includes('CHAR') || type.includes('CLOB') || type.includes('TEXT')) return 'text';
  if (type === '' || type.includes('BLOB')) return 'blob';
  return 'double';
}

class SqliteSide implements StoreSide {
  constructor(readonly label: string, protected readonly db: Database) {
    // Integers come back as bigint: a value past 2^53 is copied, not rounded.
    db.defaultSafeIntegers(true);
  }

  async appliedMigrations() {
    const exists = this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
    if (!exists) return [];
    return this.db.prepare<[], { id: bigint; name: string }>('SELECT id, name FROM schema_migrations ORDER BY id').all()
      .map((row) => ({ id: Number(row.id), name: row.name }));
  }

  async tables(): Promise<TableShape[]> {
    // sqlite_sequence and sqlite_stat* are SQLite's own; AUTOINCREMENT keeps sqlite_sequence up by itself.
    const names = this.db.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name").pluck().all();
    return names.map((name) => {
      const columns = this.db.prepare<[string], { name: string; type: string; pk: bigint }>('SELECT name, type, pk FROM pragma_table_info(?) ORDER BY cid').all(name);
      const key = columns.filter((c) => c.pk > 0n).sort((a, b) => Number(a.pk - b.pk)).map((c) => c.name);
      const parents = this.db.prepare<[string], string>('SELECT DISTINCT "table" FROM pragma_foreign_key_list(?)').pluck().all(name);
      return {
        name,
        columns: columns.map((c) => ({
          name: c.name,
          type: c.type,
          family: family(c.type),
          // An INTEGER PRIMARY KEY is the rowid: SQLite picks max+1 by itself, nothing to reset.
          identity: false,
        })),
        key,
        parents: parents.filter((parent) => parent !== name),
      };
    });
  }

  async *batches(table: TableShape, size: number): AsyncIterable<Row[]> {
    const columns = table.columns.map((c) => quote(c.name)).join(', ');
    // A table without a primary key is read by rowid, which SQLite keeps stable while nothing writes.
    const key = table.key.length > 0 ? table.key.map(quote) : ['rowid'];
    const byAddress = table.key.length === 0;
    const select = `SELECT ${byAddress ? 'rowid, ' : ''}${columns} FROM ${quote(table.name)}`;
    const order = `ORDER BY ${key.join(', ')} LIMIT ${size}`;
    const first = this.db.prepare(`${select} ${order}`).raw(true);
    const next = this.db.prepare(`${select} WHERE (${key.join(', ')}) > (${key.map(() => '?').join(', ')}) ${order}`).raw(true);
    const keyAt = byAddress ? [0] : table.key.map((name) => table.columns.findIndex((c) => c.name === name));
    let after: unknown[] | null = null;
    for (;;) {
      const rows = (after === null ? first.all() : next.all(...after)) as Row[];
      if (rows.length === 0) return;
      const last = rows[rows.length - 1]!;
      after = keyAt.map((i) => last[i]);
      yield byAddress ? rows.map((row) => row.slice(1)) : rows;
      if (rows.length < size) return;
    }
  }

  async close() {
    this.db.close();
  }
}

class SqliteTarget extends SqliteSide implements TargetSide {
  private readonly inserts = new Map<string, BetterSqlite3.Statement>();

  async begin() {
    this.db.exec('BEGIN IMMEDIATE');
  }

  async count(table: string) {
    return Number(this.db.prepare(`SELECT count(*) FROM ${quote(table)}`).pluck().get());
  }

  async clear(tables: TableShape[]) {
    // Children first: with foreign keys on, a parent's row cannot go before the rows that point at it.
    for (const table of [...tables].reverse()) this.db.exec(`DELETE FROM ${quote(table.name)}`);
  }

  async insert(table: TableShape, rows: Row[]) {
    let statement = this.inserts.get(table.name);
    if (!statement) {
      statement = this.db.prepare(
        `INSERT INTO ${quote(table.name)} (${table.columns.map((c) => quote(c.name)).join(', ')}) VALUES (${table.columns.map(() => '?').join(', ')})`,
      );
      this.inserts.set(table.name, statement);
    }
    for (const row of rows) statement.run(...row);
  }

  async resetIdentities() {}

  async commit() {
    this.db.exec('COMMIT');
  }

  async rollback() {
    if (this.db.inTransaction) this.db.exec('ROLLBACK');
  }
}

/** A SQLite store to copy from: opened read-only and never migrated (its migrations are checked instead). */
export function sqliteSource(file: string): StoreSide {
  return new SqliteSide(file, new BetterSqlite3(file, { readonly: true, fileMustExist: true }));
}

/** A SQLite store to copy into: created if missing and migrated by this build, as the service would. */
export function sqliteTarget(file: string): TargetSide {
  return new SqliteTarget(file, openDatabase(file));
}
