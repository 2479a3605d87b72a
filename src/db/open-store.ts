import { join } from 'node:path';
import { sql } from 'kysely';
import type pg from 'pg';
import type { Config } from '../config.js';
import { BACKEND_DATA_STEPS, migrateWithDataSteps } from './data-steps.js';
import { postgresStore, sqliteStore, type BackendStore } from './dialect.js';
import { migratePostgres, POSTGRES_MIGRATIONS } from './migrate-postgres.js';
import { BACKEND_MIGRATIONS, migrateSqlite, openDatabase, type Database } from './open-database.js';
import { STORE_CONNECT_TIMEOUT_MS, storePool, type StoreConnection } from './pool-policy.js';
import { maskPostgresUrl } from './store-copy/store-location.js';
import type { StoreSchema } from './store-schema.js';

export { STORE_CONNECT_TIMEOUT_MS, STORE_POOL_SIZE, STORE_STATEMENT_TIMEOUT_MS } from './pool-policy.js';

export interface OpenedStore {
  store: BackendStore;
  /**
   * The SQLite handle under `store`, for modules not moved to the store layer yet; null on
   * PostgreSQL, where nothing may need it.
   */
  sqlite: Database | null;
  /** Where the store is (a file, or the URL with its password masked): safe to log. */
  location: string;
  /** Closes the handle or ends the pool. */
  close(): Promise<void>;
}

export interface OpenStoreOptions {
  /**
   * Told of an error on an idle pooled connection (the server restarted, say): the pool drops
   * that connection and opens a new one when next needed. Default: ignored.
   */
  onIdleError?: (error: Error) => void;
}

/**
 * Opens the deployment's store, migrated: a `pg` pool on DATABASE_URL when it is set (no
 * SQLite file is created), otherwise the SQLite file `DATA_DIR/backend.sqlite`. The API and
 * `npm run worker` open it alike.
 */
export async function openStore(
  config: Pick<Config, 'dataDir' | 'databaseUrl'> & Partial<Pick<Config, 'databasePoolSize'>>,
  options: OpenStoreOptions = {},
): Promise<OpenedStore> {
  if (config.databaseUrl === null) {
    const file = join(config.dataDir, 'backend.sqlite');
    const sqlite = openDatabase(file, BACKEND_MIGRATIONS, firstDataStep());
    // The Kysely instance is not destroyed: that would close the handle a second time.
    const store = sqliteStore<StoreSchema>(sqlite);
    try {
      await migrateWithDataSteps(store, BACKEND_DATA_STEPS, (upTo) => migrateSqlite(sqlite, BACKEND_MIGRATIONS, upTo));
    } catch (error) {
      sqlite.close();
      throw error;
    }
    return { store, sqlite, location: file, close: async () => { sqlite.close(); } };
  }
  const connectionString = config.databaseUrl;
  await migrateOnItsOwnConnection({ connectionString }, (migrator) =>
    migrateWithDataSteps(postgresStore(migrator), BACKEND_DATA_STEPS, (upTo) => migratePostgres(migrator, POSTGRES_MIGRATIONS, { upTo })));
  const store = postgresStore<StoreSchema>(storePool('serving', { connectionString }, { ...(options.onIdleError ? { onIdleError: options.onIdleError } : {}), ...(config.databasePoolSize ? { max: config.databasePoolSize } : {}) }));
  return { store, sqlite: null, location: maskPostgresUrl(connectionString), close: () => store.db.destroy() };
}

/** The number of the migration the first data step follows (Infinity: none), where opening the SQLite file stops migrating. */
function firstDataStep(): number {
  return Math.min(Infinity, ...BACKEND_DATA_STEPS.map((step) => step.after));
}

/**
 * Runs `migrate` on a pool of one connection of its own (the `migration` policy), ended
 * after: migrations may wait minutes for another process's (an advisory lock) and run long
 * statements, so they go without the serving pool's timeouts.
 */
export async function migrateOnItsOwnConnection(connection: StoreConnection, migrate: (pool: pg.Pool) => Promise<void>): Promise<void> {
  const migrator = storePool('migration', connection);
  try {
    await migrate(migrator);
  } finally {
    await migrator.end();
  }
}

/**
 * Whether the store answers a trivial query within STORE_CONNECT_TIMEOUT_MS: null when it
 * does, otherwise why not (for readiness). SQLite is a file this process holds open: always
 * reachable.
 */
export async function storeUnreachable(store: BackendStore): Promise<string | null> {
  if (store.engine === 'sqlite') return null;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${STORE_CONNECT_TIMEOUT_MS} ms`)), STORE_CONNECT_TIMEOUT_MS);
  });
  try {
    await Promise.race([sql`SELECT 1`.execute(store.db), late]);
    return null;
  } catch (error) {
    return `The store (PostgreSQL) cannot be reached: ${(error as Error).message}`;
  } finally {
    clearTimeout(timer);
  }
}
