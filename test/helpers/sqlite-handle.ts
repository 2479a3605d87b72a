import type { Database } from '../../src/db/open-database.js';

/**
 * A getter of the SQLite handle, for the tests and benches that read the SQLite file itself
 * (its pages, its write lock). On PostgreSQL there is none: reading it throws, naming the
 * code that read it (its caller's stack frame).
 */
export function sqliteHandleGetter(sqlite: Database | null): () => Database {
  return function rawSqliteHandle() {
    if (sqlite) return sqlite;
    // [0] the message, [1] this getter, [2] its reader.
    const reader = new Error().stack?.split('\n')[2]?.trim().replace(/^at /, '') ?? 'unknown';
    throw new Error(
      `DATABASE_URL names a PostgreSQL store, but ${reader} reads the SQLite handle: it runs on SQLite only (unset DATABASE_URL).`,
    );
  };
}
