import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../config.js';
import { postgresPool, postgresStore, sqliteStore, type Store } from '../db/dialect.js';
import type pg from 'pg';
import { migratePostgres } from '../db/migrate-postgres.js';
import { readMigrations } from '../db/migration-files.js';
import { openDatabase } from '../db/open-database.js';
import type { AuthSchema } from './auth-schema.js';

/** The auth service's SQLite migrations; ./migrations-postgres/ holds their PostgreSQL twins, same numbers and names. */
export const AUTH_MIGRATIONS = fileURLToPath(new URL('./migrations/', import.meta.url));
export const AUTH_POSTGRES_MIGRATIONS = fileURLToPath(new URL('./migrations-postgres/', import.meta.url));

/** The auth service's store: its own database, apart from the backend's, on either engine. */
export type AuthStore = Store<AuthSchema>;

/** Where the auth store lives: its SQLite file, or its PostgreSQL database (AUTH_DATABASE_URL). */
export type AuthStoreLocation = { file: string } | { url: string };

/** AUTH_DATABASE_URL when set, else `auth.sqlite` in DATA_DIR. */
export const authStoreLocation = (config: Pick<Config, 'authDatabaseUrl' | 'dataDir'>): AuthStoreLocation =>
  config.authDatabaseUrl ? { url: config.authDatabaseUrl } : { file: join(config.dataDir, 'auth.sqlite') };

/**
 * Opens and migrates the auth store; `store.db.destroy()` closes it. On PostgreSQL it needs a
 * database of its own: its migrations are recorded in `schema_migrations` as the backend's
 * are, so a database holding another store's is refused.
 */
export async function openAuthStore(location: AuthStoreLocation): Promise<AuthStore> {
  if ('file' in location) return sqliteStore<AuthSchema>(openDatabase(location.file, AUTH_MIGRATIONS));
  const pool = postgresPool({ connectionString: location.url });
  try {
    await refuseAnotherStore(pool);
    await migratePostgres(pool, AUTH_POSTGRES_MIGRATIONS);
  } catch (error) {
    await pool.end();
    throw error;
  }
  return postgresStore<AuthSchema>(pool);
}

/**
 * Refuses a database whose `schema_migrations` records a migration this build's auth store
 * numbers differently (the backend's, say). Numbers past the newest known are left to the
 * migration runner, which refuses them as a newer build's.
 */
async function refuseAnotherStore(pool: pg.Pool): Promise<void> {
  const { files, newestKnown } = readMigrations(AUTH_POSTGRES_MIGRATIONS);
  const { rows: [table] } = await pool.query<{ present: boolean }>("SELECT to_regclass('schema_migrations') IS NOT NULL AS present");
  if (!table?.present) return;
  const ours = new Set(files.map((file) => file.name));
  const { rows } = await pool.query<{ name: string }>('SELECT name FROM schema_migrations WHERE id <= $1 ORDER BY id', [newestKnown]);
  const foreign = rows.find((row) => !ours.has(row.name));
  if (foreign) {
    throw new Error(`The auth service's PostgreSQL database holds another store's migrations (${foreign.name}): give the auth service a database of its own (AUTH_DATABASE_URL).`);
  }
}
