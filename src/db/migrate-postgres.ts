import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { MINUTE, SECOND } from '../time.js';
import { checkNewerMigrations, readMigrations, type AppliedMigration, type MigrationFile } from './migration-files.js';

/**
 * The PostgreSQL twins of the SQLite migrations: one file per file in ./migrations/, same
 * number and name (test/db/postgres-schema.test.ts holds the two schemas together).
 */
export const POSTGRES_MIGRATIONS = fileURLToPath(new URL('./migrations-postgres/', import.meta.url));

/** How long a process waits for another one's migrations before giving up (ms), as on SQLite. */
const MIGRATION_WAIT = 5 * MINUTE;

/**
 * How long one try of a migration waits for a table lock (ms). A DDL statement waiting for
 * its lock holds up every query of that table queued after it, so a migration on a busy
 * table gives up quickly, lets those queries through, and tries again (DDL_RETRY_MS).
 */
export const DDL_LOCK_WAIT_MS = 1 * SECOND;
/** The pause between tries of a migration that could not take its locks, doubling up to DDL_RETRY_MAX_MS. */
const DDL_RETRY_MS = 100;
const DDL_RETRY_MAX_MS = 5 * SECOND;
/** PostgreSQL's code for a lock not granted within lock_timeout. */
const LOCK_NOT_AVAILABLE = '55P03';

/**
 * The advisory lock key every build migrates under. Advisory locks are per database, so
 * stores in other databases of one cluster never wait for each other. ('evbm' in ASCII.)
 */
const MIGRATION_LOCK_KEY = 0x6576626d;

export interface MigrateOptions {
  /** One try's lock wait (ms; default DDL_LOCK_WAIT_MS). */
  lockWaitMs?: number;
  /** Apply migrations numbered up to this one only (default all; a data step follows it: data-steps.ts). */
  upTo?: number;
}

/**
 * Applies every migration in `migrationsDir` the database has not applied yet, each in its
 * own transaction, all under a session advisory lock: the API, workers and CLI may start at
 * one moment, and the second process waits for the first and then finds nothing left to do.
 * A migration waits at most `lockWaitMs` for its table locks per try, and is tried again
 * until MIGRATION_WAIT has passed. A database a newer build has migrated is served when the
 * newer migrations are all expand steps, and refused with the SQLite runner's message
 * otherwise. The service calls it as it opens the store (open-store.ts).
 */
export async function migratePostgres(pool: pg.Pool, migrationsDir: string = POSTGRES_MIGRATIONS, options: MigrateOptions = {}): Promise<void> {
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
    await client.query('CREATE TABLE IF NOT EXISTS schema_data_steps (name text COLLATE "C" PRIMARY KEY, applied_at text COLLATE "C" NOT NULL)');
    // Only when missing: ALTER TABLE takes the table's lock even when there is nothing to add.
    const { rows: [marked] } = await client.query<{ present: boolean }>(
      "SELECT EXISTS (SELECT FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'schema_migrations' AND column_name = 'expand') AS present",
    );
    if (!marked?.present) await client.query('ALTER TABLE schema_migrations ADD COLUMN expand smallint NOT NULL DEFAULT 0');
    const applied = (await client.query<AppliedMigration>('SELECT id, name, expand FROM schema_migrations ORDER BY id')).rows;
    const { rows: [database] } = await client.query<{ name: string }>('SELECT current_database() AS name');
    checkNewerMigrations(`PostgreSQL database "${database!.name}"`, applied, newestKnown);
    const done = new Set(applied.map((row) => row.id));
    const deadline = Date.now() + MIGRATION_WAIT;
    for (const file of files) {
      if (!done.has(file.id) && file.id <= (options.upTo ?? Infinity)) await applyWithRetries(client, file, options.lockWaitMs ?? DDL_LOCK_WAIT_MS, deadline);
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

/** Applies `file` and records it in one transaction, trying again while its locks are busy. */
async function applyWithRetries(client: pg.PoolClient, file: MigrationFile, lockWaitMs: number, deadline: number): Promise<void> {
  for (let pause = DDL_RETRY_MS; ; pause = Math.min(2 * pause, DDL_RETRY_MAX_MS)) {
    await client.query('BEGIN');
    try {
      await client.query(`SET LOCAL lock_timeout = ${lockWaitMs}`);
      await client.query(file.sql());
      await client.query('INSERT INTO schema_migrations (id, name, applied_at, expand) VALUES ($1, $2, $3, $4)', [
        file.id, file.name, new Date().toISOString(), file.step === 'expand' ? 1 : 0,
      ]);
      await client.query('COMMIT');
      return;
    } catch (error) {
      // A rollback that fails too (the connection is gone) must not hide why the migration failed.
      await client.query('ROLLBACK').catch(() => {});
      const busy = (error as { code?: string }).code === LOCK_NOT_AVAILABLE;
      if (busy && Date.now() + pause < deadline) {
        // Jittered, so processes of a fleet do not line up their tries.
        await sleep(pause / 2 + Math.random() * (pause / 2));
        continue;
      }
      const why = busy ? `its tables stayed locked by other sessions for ${MIGRATION_WAIT / MINUTE} minutes` : (error as Error).message;
      throw new Error(`PostgreSQL migration ${file.name} failed: ${why}`, { cause: error });
    }
  }
}
