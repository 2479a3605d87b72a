import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../config.js';
import { postgresPool, postgresStore, sqliteStore, type Store } from '../db/dialect.js';
import { migratePostgres } from '../db/migrate-postgres.js';
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
 * are, and a database the backend migrated is refused as one a newer build migrated.
 */
export async function openAuthStore(location: AuthStoreLocation): Promise<AuthStore> {
  if ('file' in location) return sqliteStore<AuthSchema>(openDatabase(location.file, AUTH_MIGRATIONS));
  const pool = postgresPool({ connectionString: location.url });
  try {
    await migratePostgres(pool, AUTH_POSTGRES_MIGRATIONS);
  } catch (error) {
    await pool.end();
    throw error;
  }
  return postgresStore<AuthSchema>(pool);
}
