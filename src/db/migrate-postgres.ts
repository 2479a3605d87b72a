import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { MINUTE } from '../time.js';
import { newerBuildError, readMigrations } from './migration-files.js';

/**
 * The PostgreSQL twins of the SQLite migrations: one file per file in ./migrations/, same
 * number and name (test/db/postgres-schema.test.ts holds the two schemas together).
 */
export const POSTGRES_MIGRATIONS = fileURLToPath(new URL('./migrations-postgres/', import.meta.url));

/** How long a process waits for another one's migrations before giving up (ms), as on SQLite. */
const MIGRATION_WAIT = 5 * MINUTE;

/**
 * The advisory lock key every build migrates under. Advisory locks are per database, so
 * stores in other databases of one cluster never wait for each other. ('evbm' in ASCII.)
 */
const MIGRATION_LOCK_KEY = 0x6576626d;

/**
 * Applies every migration in `migrationsDir` the database has not applied yet, each in its
 * own transaction, all under a session advisory lock: the API, workers and CLI may start at
 * one moment, and the second process waits for the first and then finds nothing left to do.
 * A database a newer build has migrated is refused with the SQLite runner's message.
 * The service calls it as it opens the store (open-store.ts).
 */
export async function migratePostgres(pool: pg.Pool, migrationsDir: string = POSTGRES_MIGRATIONS): Promise<void> {
  const { files, newestKnown } = readMigrations(migrationsDir);
  const client = await pool.connect();
  let locked = false;
  try {
    await client.query(`SET lock_timeout = ${MIGRATION_WAIT}`);
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    locked = true;
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (id integer PRIMARY KEY, name text COLLATE "C" NOT NULL, applied_at text COLLATE "C" NOT NULL)',
    );
    const applied = (await client.query<{ id: number; name: string }>('SELECT id, name FROM schema_migrations ORDER BY id')).rows;
    const newer = applied.filter((row) => row.id > newestKnown);
    if (newer.length > 0) {
      const { rows } = await client.query<{ name: string }>('SELECT current_database() AS name');
      throw newerBuildError(`PostgreSQL database "${rows[0]!.name}"`, newer, newestKnown);
    }
    const done = new Set(applied.map((row) => row.id));
    for (const file of files) {
      if (done.has(file.id)) continue;
      await client.query('BEGIN');
      try {
        await client.query(file.sql());
        await client.query('INSERT INTO schema_migrations (id, name, applied_at) VALUES ($1, $2, $3)', [file.id, file.name, new Date().toISOString()]);
        await client.query('COMMIT');
      } catch (error) {
        // A rollback that fails too (the connection is gone) must not hide why the migration failed.
        await client.query('ROLLBACK').catch(() => {});
        throw new Error(`PostgreSQL migration ${file.name} failed: ${(error as Error).message}`, { cause: error });
      }
    }
  } finally {
    // Leave a pooled connection as it was found; a dropped session releases the lock by itself.
    try {
      await client.query('RESET lock_timeout');
      if (locked) await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
      client.release();
    } catch (error) {
      // The connection is unusable: release it as broken, so the pool closes it.
      client.release(error as Error);
    }
  }
}
