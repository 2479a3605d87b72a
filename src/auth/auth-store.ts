import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../config.js';
import { postgresStore, sqliteStore, type Store } from '../db/dialect.js';
import { migrateOnItsOwnConnection } from '../db/open-store.js';
import { storePool } from '../db/pool-policy.js';
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

/**
 * Where the auth store lives: its SQLite file, or a PostgreSQL database, where `schema` (when
 * set) names a schema of its own in a database the backend shares.
 */
export type AuthStoreLocation = { file: string } | { url: string; schema?: string };

/** The schema the auth service keeps its tables in when it shares the backend's database. */
export const AUTH_SCHEMA = 'auth_service';

/**
 * AUTH_DATABASE_URL when set. Else, with DATABASE_URL set, a schema of its own in the
 * backend's database, so a PostgreSQL deployment keeps nothing in SQLite; but an
 * `auth.sqlite` already in DATA_DIR (accounts made before) stays where it is. Else
 * `auth.sqlite` in DATA_DIR.
 */
export function authStoreLocation(config: Pick<Config, 'authDatabaseUrl' | 'databaseUrl' | 'dataDir'>): AuthStoreLocation {
  if (config.authDatabaseUrl) return { url: config.authDatabaseUrl };
  const file = join(config.dataDir, 'auth.sqlite');
  if (config.databaseUrl && !existsSync(file)) return { url: config.databaseUrl, schema: AUTH_SCHEMA };
  return { file };
}

/** Where a location is, for logs: never the URL, which may hold a password. */
export function describeAuthStore(location: AuthStoreLocation): string {
  if ('file' in location) return location.file;
  return location.schema ? `the schema ${location.schema} of DATABASE_URL's database` : "AUTH_DATABASE_URL's database";
}

/**
 * Opens and migrates the auth store; `store.db.destroy()` closes it. On PostgreSQL it needs a
 * database, or a schema, of its own: its migrations are recorded in `schema_migrations` as
 * the backend's are, so a database holding another store's is refused.
 */
export async function openAuthStore(location: AuthStoreLocation, poolSize?: number): Promise<AuthStore> {
  if ('file' in location) return sqliteStore<AuthSchema>(openDatabase(location.file, AUTH_MIGRATIONS));
  // Every connection sees the schema's tables only (and the catalog).
  const config = { connectionString: location.url, ...(location.schema ? { options: `-c search_path=${location.schema}` } : {}) };
  await migrateOnItsOwnConnection(config, async (migrator) => {
    if (location.schema) await createSchema(migrator, location.schema);
    await refuseAnotherStore(migrator);
    await migratePostgres(migrator, AUTH_POSTGRES_MIGRATIONS);
  });
  return postgresStore<AuthSchema>(storePool('auth', config, poolSize ? { max: poolSize } : {}));
}

/** Creates the schema unless it exists; two processes starting at once may both try. */
async function createSchema(pool: pg.Pool, schema: string): Promise<void> {
  try {
    await pool.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  } catch (error) {
    // IF NOT EXISTS still races another creator: a duplicate is the schema we wanted.
    const { code } = error as { code?: string };
    if (code !== '23505' && code !== '42P06') throw error;
  }
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
