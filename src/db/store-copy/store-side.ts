/**
 * One end of `eval-backend store copy`: a store on either engine, seen as the copy needs it.
 * `sqlite-side.ts` and `postgres-side.ts` implement it; `copy-store.ts` drives two of them.
 */

/** How a column's values are compared across engines (the schema test's type families). */
export type ColumnFamily = 'integer' | 'double' | 'text' | 'blob';

export interface TableColumn {
  name: string;
  /** The column's type as its engine names it (`INTEGER`, `double precision`, ...). */
  type: string;
  family: ColumnFamily;
  /** An identity (PostgreSQL) or INTEGER PRIMARY KEY (SQLite) column whose counter must pass the copied values. */
  identity: boolean;
}

export interface TableShape {
  name: string;
  columns: TableColumn[];
  /** The primary key's columns in key order; empty when the table has none (it is read by row address). */
  key: string[];
  /** Tables this one's foreign keys point at (itself excluded). */
  parents: string[];
}

/** A row as its values in the table's column order: bigint for integers, number for doubles, string, Buffer or null. */
export type Row = unknown[];

export interface StoreSide {
  /** Where the store is, with any password masked: safe to print. */
  readonly label: string;
  /** The migrations the store has applied, in order. */
  appliedMigrations(): Promise<Array<{ id: number; name: string }>>;
  /** Every table of the schema, engine internals excluded. */
  tables(): Promise<TableShape[]>;
  /** The table's rows in batches of at most `size`, by key (keyset), never the whole table at once. */
  batches(table: TableShape, size: number): AsyncIterable<Row[]>;
  close(): Promise<void>;
}

export interface TargetSide extends StoreSide {
  /** Opens the transaction every write below belongs to. */
  begin(): Promise<void>;
  /** Rows per table, for the refusal of a target that already holds a store. */
  count(table: string): Promise<number>;
  /** Removes every row of these tables (children first), without firing delete triggers where the engine allows. */
  clear(tables: TableShape[]): Promise<void>;
  insert(table: TableShape, rows: Row[]): Promise<void>;
  /** Moves each identity counter past the largest copied value, so the next insert gets a fresh one. */
  resetIdentities(tables: TableShape[]): Promise<void>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

/** A table or column name quoted for SQL, the same on both engines. */
export const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
