import { Kysely, PostgresDialect, sql, type Expression, type RawBuilder } from 'kysely';
import type pg from 'pg';
import { setTimeout } from 'node:timers/promises';
import { plainStorePool } from './pool-policy.js';
import { isTransactionRace } from './store-errors.js';
import type { Database } from './open-database.js';
import { sqliteDialect } from './sqlite-dialect.js';
import type { StoreSchema } from './store-schema.js';

/**
 * The two engines behind one store layer (issue 32): Kysely over the better-sqlite3 handle
 * (the default) or over a `pg` pool. Everything one engine spells differently sits here, each
 * with why; store modules write the rest once with the query builder.
 *
 * Store modules take a `BackendStore` and answer promises. Two SQLite-only parts still use
 * the raw handle by design, on connections of their own: the statistics thread's read-only
 * reader and the claim writer thread. On SQLite, a transaction whose body awaits only store
 * queries runs to its end within one turn of the event loop, so no other request's
 * statement lands inside it.
 */
export type Engine = 'sqlite' | 'postgres';

/** A Kysely instance and the engine under it, which the fragments below need. */
export interface Store<DB> {
  engine: Engine;
  db: Kysely<DB>;
}

/** The backend's store: its tables as the migrations create them (`store-schema.ts`). */
export type BackendStore = Store<StoreSchema>;

/**
 * Kysely over an open, migrated better-sqlite3 handle. `db.destroy()` closes the handle:
 * call it only when Kysely is the handle's last user.
 */
export function sqliteStore<DB>(database: Database): Store<DB> {
  return { engine: 'sqlite', db: new Kysely<DB>({ dialect: sqliteDialect(database) }) };
}

/** Kysely over a pool from `postgresPool()`. `db.destroy()` ends the pool. */
export function postgresStore<DB>(pool: pg.Pool): Store<DB> {
  return { engine: 'postgres', db: new Kysely<DB>({ dialect: new PostgresDialect({ pool }) }) };
}

/**
 * A `pg` pool with the caller's own settings, whose counts come back as numbers as
 * better-sqlite3 gives them (a bigint past 2^53 fails the read rather than round silently)
 * and whose errors are marked as the store's. The service builds its pools with a policy
 * (src/db/pool-policy.ts); this is for tests and tools that set their own.
 */
export function postgresPool(config: pg.PoolConfig, onIdleError: (error: Error) => void = () => {}): pg.Pool {
  return plainStorePool(config, onIdleError);
}

/**
 * Runs `work` in a write transaction. SQLite needs BEGIN IMMEDIATE: a deferred transaction
 * that reads first and writes later fails with SQLITE_BUSY when another connection wrote in
 * between, instead of waiting its busy timeout; PostgreSQL's plain BEGIN takes row locks as
 * it goes. (Kysely's own `transaction()` issues a deferred BEGIN on SQLite.)
 *
 * On PostgreSQL two transactions can lose a race to each other: a deadlock (40P01), which the
 * server ends by failing one of them, or a serialization failure (40001). The loser was rolled
 * back whole, so it is run again, up to TRANSACTION_ATTEMPTS times in all, after a short
 * random pause; `work` must therefore touch nothing outside the transaction before it commits.
 * A race lost every time fails with the last error (503 `store_busy`, store-errors.ts).
 */
export async function writeTransaction<DB, T>(store: Store<DB>, work: (trx: Kysely<DB>) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await transactionOnce(store, work);
    } catch (error) {
      if (store.engine !== 'postgres' || attempt >= TRANSACTION_ATTEMPTS || !isTransactionRace(error)) throw error;
      await setTimeout(RACE_PAUSE_MS * attempt * (0.5 + Math.random()));
    }
  }
}

/** Runs of a write transaction that lost a race (deadlock, serialization failure), the first included. */
export const TRANSACTION_ATTEMPTS = 4;
/** The pause (ms) before the second run, times the run's number, jittered by ±50 %. */
const RACE_PAUSE_MS = 20;

function transactionOnce<DB, T>(store: Store<DB>, work: (trx: Kysely<DB>) => Promise<T>): Promise<T> {
  return store.db.connection().execute(async (connection) => {
    await sql.raw(store.engine === 'sqlite' ? 'BEGIN IMMEDIATE' : 'BEGIN').execute(connection);
    try {
      const result = await work(connection);
      await sql.raw('COMMIT').execute(connection);
      return result;
    } catch (error) {
      // The work failed for `error`, which is what the caller must see. The ROLLBACK may fail
      // too: SQLite ends a transaction itself on some errors (SQLITE_FULL, SQLITE_IOERR,
      // SQLITE_NOMEM) and then refuses it, having none left; a broken PostgreSQL
      // connection cannot take it, and the server ends that transaction anyway.
      await sql.raw('ROLLBACK').execute(connection).catch(() => {});
      throw error;
    }
  });
}

/** A path into a JSON text column, as object keys from the root (`['subject', 'engine']`). */
export type JsonPath = readonly string[];

/**
 * A JSON member as text (a JSON string without its quotes; NULL when absent). JSON stays
 * text in both stores (records are kept byte for byte), so PostgreSQL casts to jsonb to read.
 */
export function jsonText(engine: Engine, json: Expression<unknown>, path: JsonPath): RawBuilder<string | null> {
  return engine === 'sqlite'
    ? sql<string | null>`json_extract(${json}, ${sqlitePath(path)})`
    : sql<string | null>`(${json})::jsonb #>> ${pgPath(path)}`;
}

/** A JSON member as a number (NULL when absent): SQLite's json_extract answers numbers typed, PostgreSQL's #>> text. */
export function jsonNumber(engine: Engine, json: Expression<unknown>, path: JsonPath): RawBuilder<number | null> {
  return engine === 'sqlite'
    ? sql<number | null>`json_extract(${json}, ${sqlitePath(path)})`
    : sql<number | null>`((${json})::jsonb #>> ${pgPath(path)})::double precision`;
}

const sqlitePath = (path: JsonPath) => `$${path.map((key) => `.${JSON.stringify(key)}`).join('')}`;
const pgPath = (path: JsonPath) => `{${path.map((key) => JSON.stringify(key)).join(',')}}`;

/** Null-safe equality (NULL equals NULL): SQLite's `IS`, PostgreSQL's `IS NOT DISTINCT FROM`. */
export function sameValue(engine: Engine, left: Expression<unknown>, right: Expression<unknown>): RawBuilder<boolean> {
  return engine === 'sqlite' ? sql<boolean>`${left} IS ${right}` : sql<boolean>`${left} IS NOT DISTINCT FROM ${right}`;
}

/**
 * Case-insensitive LIKE with `\` escaping. SQLite's LIKE folds ASCII case; PostgreSQL's LIKE
 * folds none, and its ILIKE over our COLLATE "C" columns folds ASCII only, as SQLite does.
 */
export function likeInsensitive(engine: Engine, text: Expression<unknown>, pattern: Expression<unknown>): RawBuilder<boolean> {
  return engine === 'sqlite' ? sql<boolean>`${text} LIKE ${pattern} ESCAPE '\\'` : sql<boolean>`${text} ILIKE ${pattern} ESCAPE '\\'`;
}

/**
 * The Monday (UTC) of the week an ISO-8601 UTC timestamp falls in, as `YYYY-MM-DD`. SQLite
 * steps back to the previous Monday with date modifiers; PostgreSQL truncates to its ISO week,
 * which starts on Monday. The cast reads the text as UTC because the store writes `…Z` times.
 */
export function weekStart(engine: Engine, timestamp: Expression<unknown>): RawBuilder<string | null> {
  return engine === 'sqlite'
    ? sql<string | null>`date(${timestamp}, '-6 days', 'weekday 1')`
    : sql<string | null>`to_char(date_trunc('week', (${timestamp})::timestamp), 'YYYY-MM-DD')`;
}

/**
 * An index hint for the planner. SQLite sometimes picks a worse index for our partial,
 * covering ones and takes `INDEXED BY`; PostgreSQL has no hints (its planner costs partial
 * indexes itself), so the hint is dropped there.
 */
export function indexedBy(engine: Engine, index: string): RawBuilder<unknown> {
  if (!/^[a-z_][a-z0-9_]*$/.test(index)) throw new Error(`index name "${index}" is not a plain identifier`);
  return engine === 'sqlite' ? sql.raw(`INDEXED BY ${index}`) : sql.raw('');
}

/*
 * Spelled alike on both engines, so no fragment is needed, but only in these forms:
 * - upsert: `INSERT … ON CONFLICT (key) DO UPDATE SET c = excluded.c` / `DO NOTHING`
 *   (Kysely's `onConflict`); never SQLite's `INSERT OR REPLACE` / `INSERT OR IGNORE`.
 * - NULL order: always say `NULLS FIRST` or `NULLS LAST` (Kysely's `.nullsFirst()`); SQLite
 *   puts NULLs first in ascending order, PostgreSQL last.
 * - row order of equal keys: there is no `rowid` on PostgreSQL; order by a column.
 * - text order: every text column is COLLATE "C" on PostgreSQL, byte order like SQLite's.
 */

// --- coverage ---

/**
 * `boundRows` as the outer loop of a join, each row read once. On SQLite each of its columns
 * is a JSON read of its row, and a subquery flattened into a join reads it again at every row
 * of the inner loop that tests it (coverage's cell counts over 100,000 runs took twice as
 * long). SQLite never flattens a subquery with a LIMIT into a join, so `LIMIT -1` (no limit)
 * makes it a co-routine whose columns are read once per row. PostgreSQL's `unnest` columns
 * are values already.
 */
export function boundOuterRows(engine: Engine, alias: string, columns: readonly BoundColumn[], rows: ReadonlyArray<readonly unknown[]>): RawBuilder<unknown> {
  const rowsTable = boundRows(engine, alias, columns, rows);
  return engine === 'sqlite' ? sql`(SELECT * FROM ${rowsTable} LIMIT -1) AS ${sql.raw(alias)}` : rowsTable;
}

// --- statistics ---

/**
 * The members of a JSON object of counts as rows `(key, value)`, `value` an integer: a
 * table for a FROM or JOIN, correlated to the row `json` comes from. SQLite's table-valued
 * `json_each` sees the outer row by itself and answers numbers typed; PostgreSQL's
 * `jsonb_each_text` answers text, cast here, inside a LATERAL subquery so the outer row is
 * visible there too. NULL gives no rows on both; the store writes these columns as objects.
 */
export function jsonCounts(engine: Engine, json: Expression<unknown>): RawBuilder<{ key: string; value: number }> {
  return engine === 'sqlite'
    ? sql`json_each(${json})`
    : sql`LATERAL (SELECT key, value::bigint AS value FROM jsonb_each_text((${json})::jsonb))`;
}

// --- auth ---

/**
 * Equality of ASCII text ignoring case. SQLite compares with NOCASE (the auth store's
 * username column is declared so, and its unique index serves this); PostgreSQL compares
 * `lower()` of both, which an index on `lower(column)` serves. Both fold ASCII letters only
 * (PostgreSQL's lower() under COLLATE "C").
 */
export function sameTextIgnoringCase(engine: Engine, column: Expression<unknown>, value: Expression<unknown>): RawBuilder<boolean> {
  return engine === 'sqlite' ? sql<boolean>`${column} = ${value} COLLATE NOCASE` : sql<boolean>`lower(${column}) = lower(${value})`;
}

// --- jobs ---

/** A column of `boundRows`: its name, and its type on PostgreSQL (SQLite reads JSON's own). */
export type BoundColumn = readonly [name: string, type: 'bigint' | 'text'];

/**
 * Rows passed as a fixed number of bound parameters and read as a table named `alias`, for
 * `UPDATE … FROM` one statement per batch however many rows it holds. PostgreSQL unnests one
 * array per column (`unnest($1::bigint[], $2::text[]) AS c(seq, token_hash)`); SQLite has no
 * array parameter, so the rows go as one JSON array of arrays, read back with `json_each`.
 */
export function boundRows(engine: Engine, alias: string, columns: readonly BoundColumn[], rows: ReadonlyArray<readonly unknown[]>): RawBuilder<unknown> {
  for (const name of [alias, ...columns.map(([column]) => column)]) {
    if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`"${name}" is not a plain identifier`);
  }
  if (engine === 'sqlite') {
    const picks = columns.map(([name], i) => `json_extract(value, '$[${i}]') AS ${name}`).join(', ');
    return sql`(SELECT ${sql.raw(picks)} FROM json_each(${JSON.stringify(rows)})) AS ${sql.raw(alias)}`;
  }
  const arrays = columns.map(([, type], i) => sql`${rows.map((row) => row[i])}::${sql.raw(type)}[]`);
  return sql`unnest(${sql.join(arrays)}) AS ${sql.raw(`${alias}(${columns.map(([name]) => name).join(', ')})`)}`;
}

/**
 * The next harness-cap revision, one no concurrent writer shares. PostgreSQL draws it from
 * the column's identity sequence (migration 0091): a `MAX() + 1` there reads the committed
 * rows as its statement starts, so two concurrent transactions can take the same. On SQLite
 * a statement that writes holds the database's only write lock from its start, so the
 * `MAX() + 1` it computes inside the same statement cannot be taken twice.
 */
export function nextCapRevision(engine: Engine): RawBuilder<number> {
  return engine === 'sqlite'
    ? sql<number>`(SELECT COALESCE(MAX(revision), 0) + 1 FROM harness_config)`
    : sql<number>`nextval(pg_get_serial_sequence('harness_config', 'revision'))`;
}

// --- runs ---

/**
 * Locks the rows a write transaction read, so what it writes from them cannot be based on a
 * read another writer has since overtaken. SQLite needs nothing: BEGIN IMMEDIATE holds the
 * database's write lock for the whole transaction. PostgreSQL's READ COMMITTED takes row
 * locks only on write, so the read says `FOR UPDATE`.
 */
export function lockedRows<Q extends { forUpdate(): Q }>(engine: Engine, query: Q): Q {
  return engine === 'postgres' ? query.forUpdate() : query;
}

/**
 * Holds, until the caller's write transaction ends, the lock of one run id, which no row may
 * carry yet: a run being stored and a showcase upload binding that run id to its job take it,
 * so each sees what the other committed. SQLite needs nothing (BEGIN IMMEDIATE holds the
 * database's write lock); on PostgreSQL it is a transaction-scoped advisory lock on the id's
 * hash (a collision only makes two unrelated writes wait for each other).
 */
export function lockRunId(engine: Engine, runId: string): RawBuilder<unknown> {
  return engine === 'postgres' ? sql`SELECT pg_advisory_xact_lock(hashtextextended(${`run:${runId}`}, 0))` : sql`SELECT 1`;
}

// --- catalog ---

/**
 * Holds off every write to `table` until the transaction ends, and waits for those in flight
 * to commit first, so the transaction's next statements see them. SQLite needs nothing:
 * BEGIN IMMEDIATE already holds the database's only write lock. PostgreSQL's READ COMMITTED
 * does not see another transaction's uncommitted insert, and a DELETE … WHERE NOT EXISTS
 * would go ahead past it; SHARE mode conflicts with the ROW EXCLUSIVE lock every INSERT,
 * UPDATE and DELETE takes, and not with reads.
 */
export async function lockAgainstWrites(engine: Engine, trx: Kysely<StoreSchema>, table: keyof StoreSchema): Promise<void> {
  if (engine === 'postgres') await sql`LOCK TABLE ${sql.table(table)} IN SHARE MODE`.execute(trx);
}

