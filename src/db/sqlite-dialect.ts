import {
  SqliteDialect, type DatabaseConnection, type Driver, type QueryCompiler, type SqliteDatabase, type SqliteStatement, type TransactionSettings,
} from 'kysely';
import type { Database } from './open-database.js';

/** Statements the SQLite store keeps prepared; past this many the least recently run is dropped. */
export const PREPARED_STATEMENTS = 500;
/**
 * SQL longer than this (characters) is prepared each time it runs, not kept: a multi-row
 * insert of a bulk copy, whose rows outweigh its preparing and whose compiled program is large.
 */
export const KEPT_SQL_LENGTH = 16 * 1024;

/**
 * Kysely's SQLite dialect over an open better-sqlite3 handle, without two costs of its
 * driver that grow with the load: every query prepared anew, and every waiter for the one
 * connection woken each time it is released.
 */
export function sqliteDialect(database: Database): SqliteDialect {
  return new InTurnSqliteDialect({ database: preparedOnce(database) });
}

class InTurnSqliteDialect extends SqliteDialect {
  override createDriver(): Driver {
    return new InTurnDriver(super.createDriver());
  }
}

/**
 * The handle as the driver sees it, each SQL text prepared once: preparing a listing page's
 * wide select cost several times what running it does. Reusing a statement is safe because
 * the driver runs one query at a time on its one connection (a stream holds it until it ends).
 */
function preparedOnce(database: Database): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => database.close(),
    prepare(text) {
      if (text.length > KEPT_SQL_LENGTH) return database.prepare(text);
      const statement = statements.get(text) ?? database.prepare(text);
      // A Map iterates in insertion order: re-inserting keeps the least recently run first.
      statements.delete(text);
      statements.set(text, statement);
      if (statements.size > PREPARED_STATEMENTS) statements.delete(statements.keys().next().value!);
      return statement;
    },
  };
}

/**
 * The driver with its one connection handed to the queries waiting for it one at a time, in
 * the order they asked. Kysely's own lock wakes every waiter at each release and all but one
 * go back to waiting, so N queued queries cost N wake-ups each: 600 run records stored at
 * once spent more time there than writing.
 */
class InTurnDriver implements Driver {
  readonly #inner: Driver;
  readonly #waiting: Array<() => void> = [];
  #held = false;

  constructor(inner: Driver) {
    this.#inner = inner;
  }

  init(): Promise<void> {
    return this.#inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    if (this.#held) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#held = true;
    try {
      return await this.#inner.acquireConnection();
    } catch (error) {
      // Never handed out: pass it on, or no waiter would ever get it.
      this.#handOn();
      throw error;
    }
  }

  #handOn(): void {
    const next = this.#waiting.shift();
    // Handed straight to the next waiter: a query arriving meanwhile queues behind it.
    if (next) next();
    else this.#held = false;
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    try {
      await this.#inner.releaseConnection(connection);
    } finally {
      this.#handOn();
    }
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.#inner.beginTransaction(connection, settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#inner.commitTransaction(connection);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#inner.rollbackTransaction(connection);
  }

  savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    return this.#inner.savepoint!(connection, name, compile);
  }

  rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    return this.#inner.rollbackToSavepoint!(connection, name, compile);
  }

  releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    return this.#inner.releaseSavepoint!(connection, name, compile);
  }

  destroy(): Promise<void> {
    return this.#inner.destroy();
  }
}
